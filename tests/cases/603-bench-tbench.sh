#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: bench workload tbench (dbench tbench_srv + tbench on loopback): mbps
# requires: bench tbench tbench_srv topo=llc2
. "$WP_TESTS/lib.sh"
. "${WP_BENCH:-$WP_ROOT/bench-scripts}/guest-case.sh"

bench_run tbench mbps -c 2 -l 0.5
