#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: stock -> mirror -> stock while perf bench sched messaging runs
# requires: module perf
# tier: core flavour
. "$WP_TESTS/lib.sh"

wp_load
at_exit 'wp_loaded && rmmod wakeplace'

perf bench sched messaging -g 2 -l 150 > "$WP_OUT/messaging.txt" 2>&1 &
pid=$!
sleep 2
r0=$(counter redirected)
wp_write policy mirror || fail "switch to mirror failed"
assert_eq "$(wp_read policy)" mirror "policy after switch"
assert_match "$(wp_read available_policies)" '\[mirror\]' "mirror bracketed"
sleep 2
r1=$(counter redirected)
wp_write policy stock || fail "switch back to stock failed"
r2=$(counter redirected)
sleep 2
r3=$(counter redirected)
wait "$pid" || fail "the workload failed: $(tail -5 "$WP_OUT/messaging.txt")"
grep -q 'Total time' "$WP_OUT/messaging.txt" || fail "the workload did not finish"
pass "workload finished"

assert_gt "$r1" "$r0" "redirected calls rise under mirror"
assert_eq "$r3" "$r2" "no redirected calls under stock"
assert_eq "$(counter corrected)" 0 "corrected picks"
assert_ge "$(counter switches)" 2 "switches counted"
assert_gt "$(stat_of mirror picks)" 0 "mirror picks"
assert_eq "$(wp_read state)" ok "state"
