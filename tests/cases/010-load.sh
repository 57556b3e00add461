#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: insmod works, taints only O/E, sysfs in place, the ftrace hook attached only off stock
# requires: module topo=llc2
# tier: core flavour
. "$WP_TESTS/lib.sh"

t0=$(taint)
wp_load
at_exit 'wp_loaded && rmmod wakeplace'

new=$(( $(taint) & ~t0 ))
assert_eq $(( new & ~(4096 | 8192) )) 0 "new taint bits beyond O/E"

for f in version kernel available_policies policy shadow state counters \
	 hook last_switch sample_period stats/reset stats/stock stats/mirror \
	 policies/mirror/description policies/mirror/tunables; do
	[ -e "$(wp_sysfs "$f")" ] || fail "missing $(wp_sysfs "$f")"
done
pass "sysfs files present"

assert_match "$(wp_read version)" '^[0-9]+\.[0-9]+\.[0-9]+$' "version"
assert_eq "$(wp_read kernel | cut -d' ' -f1)" "$(uname -r)" "kernel release"
avail=$(wp_read available_policies)
want=$(src_policies) || fail "no policies in module/policies/list.h"
assert_eq "$(wp_policies)" "$want" "available_policies: the policies of list.h, in order"
assert_match "$avail" '^\[stock\] mirror( |$)' "stock is listed first and active"
assert_eq "$(wp_read policy)" stock "default policy"
assert_eq "$(wp_read shadow)" off "default shadow"
assert_eq "$(wp_read state)" ok "state"

# On stock nothing is registered; off stock the redirect is an IPMODIFY
# ftrace user of select_task_rq_fair.
tracefs_mount
tr=$TRACEFS
assert_eq "$(wp_read hook)" detached "hook on stock"
grep -q '^select_task_rq_fair' $tr/enabled_functions &&
	fail "select_task_rq_fair traced on stock"
wp_write policy mirror || fail "cannot select mirror"
assert_eq "$(wp_read hook)" attached "hook on mirror"
line=$(grep '^select_task_rq_fair' $tr/enabled_functions)
log "enabled_functions: $line"
assert_match "$line" ' I ' "select_task_rq_fair has an IPMODIFY (I) owner"
wp_write policy stock || fail "cannot select stock"
wait_until 60 sh -c "grep -qx detached $(wp_sysfs hook)" ||
	fail "hook still attached 60 s after the switch to stock"
grep -q '^select_task_rq_fair' $tr/enabled_functions &&
	fail "select_task_rq_fair traced after the hook detached"
pass "hook attached only off stock"

# Non-root writes are refused by mode bits.
for f in policy shadow sample_period; do
	mode=$(stat -c %a "$(wp_sysfs $f)")
	assert_eq "$mode" 644 "mode of $f"
done
assert_eq "$(stat -c %a "$(wp_sysfs stats/reset)")" 200 "mode of stats/reset"
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c "echo mirror > $(wp_sysfs policy)" 2>/dev/null &&
		fail "an unprivileged write to policy succeeded"
	assert_eq "$(wp_read policy)" stock "policy after a non-root write"
fi

wp_unload
[ -e "$(wp_sysfs)" ] && fail "sysfs directory left after rmmod"
grep -q '^select_task_rq_fair' $tr/enabled_functions &&
	fail "ftrace hook left after rmmod"
pass "clean unload"
