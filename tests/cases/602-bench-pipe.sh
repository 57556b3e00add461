#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: bench workload pipe (perf bench sched pipe): usecs_per_op
# requires: bench perf topo=llc2
. "$WP_TESTS/lib.sh"
. "${WP_BENCH:-$WP_ROOT/bench-scripts}/guest-case.sh"

bench_run pipe usecs_per_op -t 3 -l 0.5 -n 2000
