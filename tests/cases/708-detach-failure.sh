#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: a failed detach of the ftrace_ops (injected) pins the module with one dmesg line, rmmod is refused, nothing is freed; a later detach that works unpins it
# requires: module perf topo=llc2
. "$WP_TESTS/lib.sh"

P=/sys/module/wakeplace/parameters
MSG='wakeplace: cannot detach from select_task_rq_fair \(-19\): the module stays loaded'
msgs() { dmesg_since_start | grep -cE -- "$MSG"; }
hook_is() { [ "$(wp_read hook)" = "$1" ]; }
at_exit '[ -e $P/test_detach_fail ] && echo 0 > $P/test_detach_fail'

wp_load detach_ms=100
bg_load -g 2 -l 20
echo 1 > $P/test_detach_fail
wp_write policy mirror || fail "switch to mirror"
wp_write policy stock || fail "switch to stock"
wait_until 120 sh -c "dmesg | grep -qE '$MSG'" ||
	fail "no dmesg line '$MSG' 120 s after the switch to stock"
assert_eq "$(msgs)" 1 "dmesg lines '$MSG'"
assert_eq "$(wp_read hook)" attached "hook after a failed detach"
assert_eq "$(cat /sys/module/wakeplace/refcnt)" 1 "module references (the pin)"
out=$(rmmod wakeplace 2>&1) && fail "rmmod succeeded with the callback still registered"
log "rmmod while pinned: $out"
wp_loaded || fail "module gone"
# Still working: the callback runs and its data is alive.
c0=$(counter calls)
wait_until 120 sh -c "[ \$(awk '\$1 == \"calls\" { print \$2 }' $(wp_sysfs counters)) -gt $((c0 + 100)) ]" ||
	fail "no callbacks while pinned"
wp_write policy idlemask || fail "switch to idlemask while pinned"
wp_write policy stock || fail "switch back to stock while pinned"
sleep 1
assert_eq "$(msgs)" 1 "one line per pin, not per failed detach"

# A detach that works drops the pin.
echo 0 > $P/test_detach_fail
wp_write policy mirror || fail "switch to mirror"
wp_write policy stock || fail "switch to stock"
wait_until 120 hook_is detached || fail "hook still attached 120 s after the fault was cleared"
assert_eq "$(cat /sys/module/wakeplace/refcnt)" 0 "module references after the detach"
stop_load
wp_unload
