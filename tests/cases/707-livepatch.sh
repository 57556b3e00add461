#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: on stock wakeplace registers no ftrace_ops (calls stay still) and a real livepatch of select_task_rq_fair applies beside it; a switch off stock is then EBUSY with one line; once the livepatch is gone the switch works
# requires: module perf topo=llc2
# tier: core
# taint-ok: K
#
# The livepatch is tests/tools/livepatch (built per kernel by tests/check:
# make -C tests/tools/livepatch KVER=<release>).  Loading a livepatch
# taints the kernel with K, which this test is allowed to add.
. "$WP_TESTS/lib.sh"

LP=$WP_ROOT/build/$(uname -r)-lp/wakeplace_lp.ko
KLP=/sys/kernel/livepatch/wakeplace_lp
MSG='wakeplace: select_task_rq_fair is already redirected by livepatch or another module \(IPMODIFY busy\)'
[ -f "$LP" ] || fail "livepatch module not built: $LP (make -C tests/tools/livepatch KVER=$(uname -r))"
[ -d /sys/kernel/livepatch ] || skip "no livepatch support in this kernel"

msgs() { dmesg_since_start | grep -cE -- "$MSG"; }
# lp_gone: the patch is disabled and its module removed (rmmod once it can).
lp_gone() {
	[ ! -d "$KLP" ] || return 1
	[ ! -d /sys/module/wakeplace_lp ] || rmmod wakeplace_lp 2>/dev/null
}
at_exit '[ -d $KLP ] && echo 0 > $KLP/enabled; wait_until 300 lp_gone'
at_exit 'wp_loaded && rmmod wakeplace'
tracefs_mount
tr=$TRACEFS

# A write waits for its attach however slow the guest (attach_wait_ms), so
# that EBUSY reaches it; 706 covers an attach that fails after the write.
wp_load attach_wait_ms=60000
bg_load -g 2 -l 20
assert_eq "$(wp_read hook)" detached "hook after loading on stock"
c0=$(counter calls)
# Wakeups happen meanwhile: the load runs (hang guard on its progress).
w0=$(awk '/^ctxt/ { print $2 }' /proc/stat)
wait_until 120 sh -c "[ \$(awk '/^ctxt/ { print \$2 }' /proc/stat) -gt $((w0 + 20000)) ]" ||
	fail "the load made no progress"
assert_eq "$(counter calls)" "$c0" "ftrace callbacks on stock"

# A real livepatch of select_task_rq_fair applies while wakeplace stays.
out=$(insmod "$LP" 2>&1) || fail "livepatch refused beside wakeplace on stock: $out"
wait_until 300 sh -c "[ \"\$(cat $KLP/transition)\" = 0 ]" ||
	fail "livepatch transition did not finish in 300 s"
assert_eq "$(cat $KLP/enabled)" 1 "livepatch enabled"
line=$(grep '^select_task_rq_fair' "$tr/enabled_functions")
log "enabled_functions: $line"
assert_match "$line" ' I ' "select_task_rq_fair owned (IPMODIFY) by the livepatch"
wp_loaded || fail "wakeplace gone"

# Off stock is refused with EBUSY and one line; wakeplace stays on stock.
for f in policy shadow; do
	n=$(msgs)
	err=$( { printf mirror > "$(wp_sysfs $f)"; } 2>&1) &&
		fail "$f mirror accepted while the livepatch owns the function"
	assert_match "$err" 'Device or resource busy' "$f mirror while livepatched"
	assert_eq "$(msgs)" $((n + 1)) "dmesg lines '$MSG' after $f mirror"
done
assert_eq "$(wp_read policy)" stock "policy after EBUSY"
assert_eq "$(wp_read shadow)" off "shadow after EBUSY"
assert_eq "$(wp_read hook)" detached "hook after EBUSY"
assert_eq "$(wp_read state)" ok "state after EBUSY"
wp_write policy stock || fail "stock refused after EBUSY"
assert_eq "$(grep -c '^select_task_rq_fair' "$tr/enabled_functions")" 1 \
	"owners of select_task_rq_fair after EBUSY"

# Without the livepatch the switch works and wakeplace places wakeups.
echo 0 > $KLP/enabled || fail "cannot disable the livepatch"
wait_until 300 lp_gone || fail "livepatch not disabled and removed in 300 s"
pass "livepatch disabled and removed"
wp_write policy mirror || fail "switch to mirror after the livepatch left"
assert_eq "$(wp_read hook)" attached "hook on mirror"
r0=$(counter redirected)
wait_until 300 sh -c "[ \$(awk '\$1 == \"redirected\" { print \$2 }' $(wp_sysfs counters)) -gt $((r0 + 100)) ]" ||
	fail "mirror placed no wakeups"
assert_eq "$(counter corrected)" 0 "corrected picks"
stop_load
wp_unload
