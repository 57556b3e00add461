#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: shadow mirror follows scheduler features toggled in debugfs (SIS_UTIL off, WA_WEIGHT off, WA_IDLE and WA_WEIGHT off): >= 99% agreement with stock in each setting
# requires: module perf
# tier: core
. "$WP_TESTS/lib.sh"

# The kernel reads its features (kernel/sched/features.h) at every wakeup;
# a perf engineer toggles them in debugfs.  mirror must read the same bits
# at pick time, or it decides differently as soon as one is flipped.

dbg=/sys/kernel/debug
feat=$dbg/sched/features
[ -e $feat ] || mount -t debugfs none $dbg 2>/dev/null
[ -w $feat ] || fail "no $feat"

# Features are restored as they were, whatever happens.
orig=$(cat $feat) || fail "cannot read $feat"
for f in SIS_UTIL WA_IDLE WA_WEIGHT; do
	[[ " $orig " == *" $f "* ]] ||
		fail "$f is not on at start ($orig): another test left it off"
	at_exit "echo $f > $feat"
done

set_feat() {
	echo "$1" > $feat || fail "cannot write $1 to $feat"
	[[ " $(cat $feat) " == *" $1 "* ]] || fail "$1 did not take"
}

# One read of stats/mirror: counters read in two reads are two moments.
shadow_counts() {
	wp_read stats/mirror | awk '$1 == "shadow_compared" { c = $2 }
		$1 == "shadow_agreed" { a = $2 } END { print c + 0, a + 0 }'
}

# phase NAME: reset, run the load until enough picks are compared (the
# round count bounds it), assert agreement.  pipe's 1:1 wakeups are the
# ones wake_affine decides (messaging's M:N ones are mostly wake_wide).
phase() {
	local cmp=0 agree=0 pct
	wp_write stats/reset mirror || fail "stats reset refused"
	for _ in 1 2 3 4 5 6 7 8; do
		perf bench sched messaging -g 1 -l 20 >/dev/null 2>&1 ||
			fail "$1: messaging failed"
		perf bench sched pipe -l 4000 >/dev/null 2>&1 ||
			fail "$1: pipe failed"
		read -r cmp agree < <(shadow_counts)
		[ "$cmp" -ge 3000 ] && break
	done
	pct=$(awk -v a="$agree" -v c="$cmp" 'BEGIN { printf "%.2f", 100 * a / c }')
	log "$1: mirror agrees with stock on $agree of $cmp picks ($pct%)"
	echo "$1 $pct $agree $cmp" >> "$WP_OUT/agreement"
	assert_ge "$cmp" 2000 "$1: picks compared"
	assert_le "$agree" "$cmp" "$1: agreed <= compared"
	assert_ge $((agree * 10000 / cmp)) 9900 "$1: agreement in 1/100 %"
}

wp_load
at_exit 'wp_loaded && rmmod wakeplace'
wp_write shadow mirror || fail "shadow mirror refused"

phase defaults
set_feat NO_SIS_UTIL
phase NO_SIS_UTIL
set_feat SIS_UTIL
set_feat NO_WA_WEIGHT
phase NO_WA_WEIGHT
# Both off: wake_affine always keeps prev.
set_feat NO_WA_IDLE
phase NO_WA_IDLE+NO_WA_WEIGHT
set_feat WA_IDLE
set_feat WA_WEIGHT
wp_write shadow off || fail "shadow off refused"
