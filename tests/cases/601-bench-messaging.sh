#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: bench workload messaging (perf bench sched messaging): seconds per iteration
# requires: bench perf topo=llc2
. "$WP_TESTS/lib.sh"
. "${WP_BENCH:-$WP_ROOT/bench-scripts}/guest-case.sh"

bench_run messaging seconds -t 3 -l 0.5 -n 5
