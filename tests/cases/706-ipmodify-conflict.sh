#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: a second IPMODIFY owner (wakeplace_twin) blocks loading with a non-stock policy, and switching off stock, with EBUSY and a readable message, both ways (a switch whose attach fails after the write returned reverts to stock with one line, and wakeplacectl says so); loading on stock works beside it; after it leaves, switching works
# requires: module perf topo=llc2
# tier: core
#
# Long version: tests/stress/cases/906-ipmodify-conflict.sh (key
# "conflict": cycles).  The twin is the same code built under another
# module name (make KVER=<release> WP_TWIN=1).
. "$WP_TESTS/lib.sh"
. "$WP_TESTS/stress/lib.sh"

N=$(st_param conflict 1)
st_init ipmodify-conflict "$N" "$(st_param conflict_s 60)"
TWIN=$WP_ROOT/build/$(uname -r)-twin/wakeplace_twin.ko
[ -f "$TWIN" ] || fail "twin module not built: $TWIN (make KVER=$(uname -r) WP_TWIN=1)"
tr=$TRACEFS
tracefs_mount
at_exit '[ -d /sys/module/wakeplace_twin ] && rmmod wakeplace_twin'
read -ra pols <<<"$(src_policies stock)"
[ "${#pols[@]}" -gt 0 ] || fail "no policies in module/policies/list.h"
MSG='select_task_rq_fair is already redirected by livepatch or another module \(IPMODIFY busy\)'

wl_start messaging perf bench sched messaging -g 2 -l 10

# owners: lines of enabled_functions for select_task_rq_fair.
owners() { grep -c '^select_task_rq_fair' $tr/enabled_functions; }

# refused KO NAME HOLDER: insmod KO must fail with EBUSY while HOLDER
# (a loaded module) owns the function, and leave nothing behind.
refused() {
	local ko=$1 name=$2 holder=$3 out lines
	lines=$(kmsg_count "$MSG")
	if out=$(insmod "$ko" policy=mirror 2>&1); then
		st_bad "insmod $name succeeded while $holder holds select_task_rq_fair"
		rmmod "$name"
		return
	fi
	log "insmod $name: $out"
	[[ $out == *"Device or resource busy"* ]] ||
		st_bad "insmod $name: not EBUSY: $out"
	[ "$(kmsg_count "$MSG")" = $((lines + 1)) ] ||
		st_bad "insmod $name: no (or more than one) dmesg line '$MSG'"
	[ -d "/sys/module/$name" ] && st_bad "$name listed after a refused insmod"
	[ -d "/sys/module/$holder" ] || st_bad "$holder gone after $name was refused"
	[ "$(owners)" = 1 ] || st_bad "enabled_functions: $(owners) select_task_rq_fair lines"
}

# busy NAME HOLDER: NAME, loaded on stock beside HOLDER, attaches nothing,
# and a switch to a policy or a shadow fails with EBUSY and one dmesg line
# (NAME is loaded with attach_wait_ms=60000: a write waits for the attach
# however slow the guest); NAME stays on stock and usable.
busy() {
	local name=$1 holder=$2 S=/sys/kernel/$1 f lines err
	[ "$(cat "$S/hook")" = detached ] || st_bad "$name: hook attached on stock"
	[ "$(owners)" = 1 ] || st_bad "enabled_functions: $(owners) select_task_rq_fair lines"
	for f in policy shadow; do
		lines=$(kmsg_count "$MSG")
		if err=$( { printf mirror > "$S/$f"; } 2>&1); then
			st_bad "$name: $f mirror accepted while $holder holds select_task_rq_fair"
			continue
		fi
		[[ $err == *"Device or resource busy"* ]] ||
			st_bad "$name: $f mirror: not EBUSY: $err"
		[ "$(kmsg_count "$MSG")" = $((lines + 1)) ] ||
			st_bad "$name: $f mirror: no (or more than one) dmesg line '$MSG'"
	done
	[ "$(cat "$S/policy")" = stock ] || st_bad "$name: policy $(cat "$S/policy") after EBUSY"
	[ "$(cat "$S/shadow")" = off ] || st_bad "$name: shadow $(cat "$S/shadow") after EBUSY"
	[ "$(cat "$S/hook")" = detached ] || st_bad "$name: hook attached after EBUSY"
	[ "$(cat "$S/state")" = ok ] || st_bad "$name: state '$(cat "$S/state")' after EBUSY"
	sysw "$S/policy" stock || st_bad "$name: stock refused after EBUSY"
	[ "$(owners)" = 1 ] || st_bad "enabled_functions: $(owners) select_task_rq_fair lines after EBUSY"
	late "$name"
}

# late NAME: the attach fails after the write returned (the write does not
# wait, and the test build holds the attach 2 s): the write succeeds, the
# hook reads attaching, then the module reverts to stock with one line
# and says why in state; wakeplacectl, which waits for the hook, exits 1
# naming stock.
late() {
	local name=$1 S=/sys/kernel/$1 P=/sys/module/$1/parameters lines rev
	[ -e "$P/test_attach_delay_ms" ] || return 0
	echo 0 > "$P/attach_wait_ms"
	echo 2000 > "$P/test_attach_delay_ms"
	lines=$(kmsg_count "$MSG")
	rev=$(kmsg_count "wakeplace: policy mirror reverted to stock: the hook could not attach to select_task_rq_fair")
	if ! { printf mirror > "$S/policy"; } 2>/dev/null; then
		st_bad "$name: policy mirror refused by a write that does not wait"
	else
		[ "$(cat "$S/hook")" = attaching ] ||
			st_bad "$name: hook '$(cat "$S/hook")' while its attach is held"
		wp_hook_settle "$S"
		[ "$(cat "$S/policy")" = stock ] ||
			st_bad "$name: policy $(cat "$S/policy") after a failed late attach"
		[ "$(cat "$S/state")" = "reverted: mirror: the hook could not attach" ] ||
			st_bad "$name: state '$(cat "$S/state")' after a failed late attach"
		[ "$(cat "$S/hook")" = detached ] ||
			st_bad "$name: hook '$(cat "$S/hook")' after a failed late attach"
		[ "$(kmsg_count "$MSG")" = $((lines + 1)) ] ||
			st_bad "$name: late attach: no (or more than one) dmesg line '$MSG'"
		[ "$(kmsg_count "wakeplace: policy mirror reverted to stock: the hook could not attach to select_task_rq_fair")" = $((rev + 1)) ] ||
			st_bad "$name: late attach: no (or more than one) revert line"
	fi
	if [ "$name" = wakeplace ] && [ -x "$WP_CTL" ]; then
		local out rc=0
		out=$("$WP_CTL" policy set idlemask 2>&1) || rc=$?
		[ "$rc" = 1 ] || st_bad "wakeplacectl policy set idlemask, late attach failing: exit $rc: $out"
		[[ $out == *"stock is active"* ]] ||
			st_bad "wakeplacectl policy set idlemask, late attach failing: '$out'"
	fi
	echo 0 > "$P/test_attach_delay_ms"
	echo 60000 > "$P/attach_wait_ms"
	[ "$(owners)" = 1 ] || st_bad "enabled_functions: $(owners) select_task_rq_fair lines after a late attach"
}

# works NAME POLICY: the loaded module NAME places wakeups with POLICY.
works() {
	local name=$1 pol=$2 p0 WP_S=/sys/kernel/$1
	sysw "$WP_S/policy" "$pol" || st_bad "$name: switch to $pol refused"
	p0=$(stat_of "$pol" picks)
	wait_stat_gt 300 "$pol" picks $((p0 + 200)) ||
		st_bad "$name: $pol placed no wakeups"
	grep -q '^select_task_rq_fair.* I ' $tr/enabled_functions ||
		st_bad "$name: no IPMODIFY owner in enabled_functions"
	st_checked "$(counter redirected)"
}

st_start
while st_more; do
	p1=${pols[RANDOM % ${#pols[@]}]} p2=${pols[RANDOM % ${#pols[@]}]}
	# wakeplace first, the twin refused; then the other way round.
	insmod "$WP_KO" policy="$p1" || { st_bad "insmod wakeplace failed"; break; }
	refused "$TWIN" wakeplace_twin wakeplace
	works wakeplace "$p1"
	insmod "$TWIN" attach_wait_ms=60000 ||
		{ st_bad "insmod wakeplace_twin on stock failed beside wakeplace"; break; }
	busy wakeplace_twin wakeplace
	rmmod wakeplace_twin || { st_bad "rmmod wakeplace_twin failed"; break; }
	rmmod wakeplace || { st_bad "rmmod wakeplace failed"; break; }
	insmod "$TWIN" policy="$p2" ||
		{ st_bad "insmod wakeplace_twin failed after wakeplace left"; break; }
	refused "$WP_KO" wakeplace wakeplace_twin
	works wakeplace_twin "$p2"
	insmod "$WP_KO" attach_wait_ms=60000 ||
		{ st_bad "insmod wakeplace on stock failed beside wakeplace_twin"; break; }
	busy wakeplace wakeplace_twin
	rmmod wakeplace || { st_bad "rmmod wakeplace failed"; break; }
	rmmod wakeplace_twin || { st_bad "rmmod wakeplace_twin failed"; break; }
	[ "$(owners)" = 0 ] || st_bad "select_task_rq_fair still traced with no owner"
	st_iter
done

# Once the other owner is gone, loading succeeds, and so does a switch
# from stock.
wp_load policy=idlemask
works wakeplace idlemask
wp_unload
wp_load
works wakeplace mirror
wl_stop
wp_unload
st_finish
