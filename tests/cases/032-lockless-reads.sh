#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: counters and stats are read without waiting for wp_mutex (a switch, a reset or the revert holding it)
# requires: module topo=llc2
#
# The test build's test_hold_mutex_ms makes a stats/reset hold wp_mutex
# for that long.  While one holds it, counters and stats/<policy> must
# answer: the reads finish while the reset is still running.  Before
# readers were lock-free they waited for the reset to finish.
. "$WP_TESTS/lib.sh"

wp_load policy=mirror
at_exit 'wp_loaded && rmmod wakeplace'
par=/sys/module/wakeplace/parameters
[ -w $par/test_hold_mutex_ms ] || fail "no test_hold_mutex_ms: not a test build"

echo 8000 > $par/test_hold_mutex_ms
( echo all > "$(wp_sysfs stats/reset)" ) &
rpid=$!
at_exit "kill $rpid 2>/dev/null; echo 0 > $par/test_hold_mutex_ms"
# The reset holds the mutex once it sleeps in msleep() (under it).
held() { [ "$(cat /proc/$rpid/wchan 2>/dev/null)" = msleep ]; }
wait_until 60 held || fail "the reset did not get to hold wp_mutex"
c=$(wp_read counters) || fail "counters unreadable"
s=$(wp_read stats/mirror) || fail "stats/mirror unreadable"
kill -0 $rpid 2>/dev/null ||
	fail "counters and stats waited for the reset holding wp_mutex"
pass "counters and stats/mirror read while a reset held wp_mutex"
assert_match "$c" '(^|'$'\n'')wakeups [0-9]+' "counters well formed"
assert_match "$s" '(^|'$'\n'')picks [0-9]+' "stats well formed"
# A bound, not a speed limit: msleep(8000) ends; wait for it.
wait_until 120 eval '! kill -0 '$rpid' 2>/dev/null' ||
	fail "the held reset did not finish"
wait $rpid || fail "the held reset failed"
echo 0 > $par/test_hold_mutex_ms
wp_unload
