#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: bench ab switches real policies through wakeplacectl: ABBA blocks, CSV, summary.json, policy restored
# requires: vm root module ctl bench jq topo=llc2
. "$WP_TESTS/lib.sh"
. "${WP_BENCH:-$WP_ROOT/bench-scripts}/guest-case.sh"

bench_need_bin rr wpstats
wp_loaded && fail "$WP_MODNAME is loaded before the test"
at_exit 'wp_loaded && rmmod wakeplace'
wp_load
initial=$(wp_read policy)
sw0=$(awk '$1 == "switches" { print $2 }' "$(wp_sysfs counters)")

out=$BENCH_OUT/ab
"$WP_BENCH/ab" -p "stock mirror" -w rr -l 0.5 -r 1 -d 2 --warmup 1 \
	--settle 1 -s 11 --switcher "$WP_CTL policy set" -o "$out" \
	>"$BENCH_OUT/ab.out" 2>"$BENCH_OUT/ab.err"
rc=$?
sed 's/^/#   /' "$BENCH_OUT/ab.err" | tail -n 15 >&2
assert_eq "$rc" 0 "ab exit status"
sed 's/^/#   /' "$out/table.txt" >&2

# The switcher ran once per block, and really switched the module.
sw1=$(awk '$1 == "switches" { print $2 }' "$(wp_sysfs counters)")
assert_ge "$((sw1 - sw0))" 4 "module policy switches during ab"
assert_eq "$(grep -c ' switch ' "$out/switch.log")" 4 "switcher calls (ABBA)"
assert_eq "$(wp_read policy)" "$initial" "policy restored after the run"
assert_eq "$(wp_read state)" ok "module state"

# Rows of both policies, numeric values, a valid summary with module facts.
for p in stock mirror; do
	n=$(awk -F, -v p="$p" 'NR > 1 && $4 == p && $7 == "tps"' "$out/results.csv" | wc -l)
	assert_ge "$n" 1 "tps samples of $p"
done
# The module's own figures, one set per block (the real latency_hist and
# stats files), and their rows in the table.
for p in stock mirror; do
	n=$(awk -F, -v p="$p" 'NR > 1 && $4 == p && $7 == "wp_lat" && $8 ~ /^L6ns;[0-9]+:/' "$out/results.csv" | wc -l)
	assert_eq "$n" 2 "non-empty wp_lat histograms of $p (one per block)"
	n=$(awk -F, -v p="$p" 'NR > 1 && $4 == p && $7 == "wp_stacked_pct" && $8 >= 0 && $8 <= 100' "$out/results.csv" | wc -l)
	assert_eq "$n" 2 "wp_stacked_pct samples of $p within 0..100"
	grep -qE "wp_lat_p99_us +lower .* $p " "$out/table.txt" ||
		fail "table.txt has no wp_lat_p99_us row for $p"
done
jq -e '(.module_version | type == "string") and (.kernel == $k) and
	(.order | length == 4) and (.stats.rows | length > 0) and
	(.tunables | type == "object")' --arg k "$(uname -r)" "$out/summary.json" \
	>/dev/null || fail "summary.json lacks the module facts"
pass "summary.json: module version, kernel, order, stats"
