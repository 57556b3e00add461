#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: bench workload rr (TCP ping-pong, one pair and level x CPUs pairs): tps, latency histogram
# requires: bench topo=llc2
. "$WP_TESTS/lib.sh"
. "${WP_BENCH:-$WP_ROOT/bench-scripts}/guest-case.sh"

bench_need_bin rr
bench_run rr tps -t 3 -p 1
bench_run rr tps -t 3 -l 1
grep -q " rr hist L6ns;" "$BENCH_OUT/rr.out" || fail "no histogram line"
pass "histogram line present"
