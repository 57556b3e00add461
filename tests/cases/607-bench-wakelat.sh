#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: bench workload wakelat (futex wakeup latency probe): rps, percentiles, histogram
# requires: bench topo=llc2
. "$WP_TESTS/lib.sh"
. "${WP_BENCH:-$WP_ROOT/bench-scripts}/guest-case.sh"

bench_need_bin wakelat
bench_run wakelat rps -t 3 -l 1
for m in p50_us p99_us hist; do
	grep -q " wakelat $m " "$BENCH_OUT/wakelat.out" || fail "no $m line"
done
pass "percentile and histogram lines present"
