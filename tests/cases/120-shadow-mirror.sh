#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: shadow mirror under stock agrees with the kernel on >= 95% of picks
# requires: module perf topo=llc2
# tier: core flavour
. "$WP_TESTS/lib.sh"

wp_load
at_exit 'wp_loaded && rmmod wakeplace'
wp_write shadow mirror || fail "shadow mirror refused"
assert_eq "$(wp_read shadow)" mirror "shadow"
wp_write stats/reset all
# Moderate load: fewer runnable tasks than CPUs most of the time.
perf bench sched messaging -g 1 -l 100 >/dev/null 2>&1 || fail "workload failed"
perf bench sched pipe -l 10000 >/dev/null 2>&1 || fail "workload failed"
# One read: wakeups go on between two, and agreed would outrun compared.
read -r cmp agree < <(wp_read stats/mirror | awk '$1 == "shadow_compared" { c = $2 }
	$1 == "shadow_agreed" { a = $2 } END { print c + 0, a + 0 }')
assert_gt "$cmp" 1000 "picks compared"
assert_le "$agree" "$cmp" "agreed <= compared"
pct=$(awk -v a="$agree" -v c="$cmp" 'BEGIN { printf "%.2f", 100 * a / c }')
log "mirror agrees with stock on $agree of $cmp picks ($pct%)"
echo "agreement $pct" > "$WP_OUT/agreement"
assert_ge $((agree * 100 / cmp)) 95 "% agreement"
wp_write shadow off || fail "shadow off refused"
assert_eq "$(wp_read shadow)" off "shadow off"
