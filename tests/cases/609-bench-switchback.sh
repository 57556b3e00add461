#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: bench switchback alternates real policies under one rr run: blocks, settle windows, plots
# requires: vm root module ctl bench jq gnuplot topo=llc2
. "$WP_TESTS/lib.sh"
. "${WP_BENCH:-$WP_ROOT/bench-scripts}/guest-case.sh"

bench_need_bin rr wpstats
wp_loaded && fail "$WP_MODNAME is loaded before the test"
at_exit 'wp_loaded && rmmod wakeplace'
wp_load
sw0=$(awk '$1 == "switches" { print $2 }' "$(wp_sysfs counters)")

out=$BENCH_OUT/sb
"$WP_BENCH/switchback" -w rr -l 0.5 -p "stock mirror" -b 4 -S 1 -n 1 -s 5 \
	--switcher "$WP_CTL policy set" -o "$out" \
	>"$BENCH_OUT/sb.out" 2>"$BENCH_OUT/sb.err"
rc=$?
sed 's/^/#   /' "$BENCH_OUT/sb.err" | tail -n 15 >&2
assert_eq "$rc" 0 "switchback exit status"
sw1=$(awk '$1 == "switches" { print $2 }' "$(wp_sysfs counters)")
assert_ge "$((sw1 - sw0))" 4 "module policy switches"
assert_eq "$(wc -l <"$out/switches.txt")" 4 "blocks"
n=$(awk -F, 'NR > 1 && $7 == "tps"' "$out/results.csv" | wc -l)
assert_ge "$n" 4 "tps samples kept"
grep -q "<svg" "$out/switchback.svg" || fail "no SVG plot"
[ -s "$out/switchback.png" ] || fail "no PNG plot"
pass "SVG and PNG plots"
jq -e '(.switches | length == 4) and (.stats.rows | length > 0)' \
	"$out/summary.json" >/dev/null || fail "summary.json incomplete"
pass "summary.json"
