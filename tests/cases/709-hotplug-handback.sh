#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: a pick of an allowed CPU that hotplug took down is handed back and counted (inactive), never a trip; every policy switched in turn while CPUs go offline and online under hackbench: corrected 0, reverted 0, state ok
# requires: module perf topo=llc2
#
# Back in make check: its rmmod hang on 7.2 (the idle-state teardown
# spinning in irq_work_sync() on a rebuild request a dying CPU had queued
# after its last irq_work run) is gone since the wakeup path queues no
# irq_work on a CPU that left the online mask.
#
# Part 1 makes the race certain instead of waiting for it: with one CPU
# offline, the test build's test_fault=inactive turns each pick into an
# allowed CPU that is not active, what a policy sees when hotplug clears
# the CPU's active bit between its check and the hook's.  The pick must go
# back to the kernel (counters inactive and handed_back), the policy stays.
# Part 2 is the real thing: offline/online cycles while every non-stock
# policy is switched in turn, with hackbench waking tasks all along.
. "$WP_TESTS/lib.sh"
. "$WP_TESTS/stress/lib.sh"

N=$(st_param hotplug_pol 1)
st_init hotplug-handback "$N" 0
sys=$CPU_SYS
hotplug_init
hp=("${HP[@]}")

wp_load
[ -w "$WP_PARAMS/test_fault" ] || fail "no test_fault parameter: not a test build"
at_exit "sysw $WP_PARAMS/test_fault off"
read_policies
[ ${#NONSTOCK[@]} -gt 0 ] || fail "no non-stock policy"
wl_start messaging perf bench sched messaging -g 2 -l 10
wl_wait

state_ok() {
	local s
	read -r s < "$WP_S/state"
	[ "$s" = ok ] || st_bad "$1: state '$s'"
}

# ---- 1. an inactive pick is a hand-back --------------------------------------
off=${hp[RANDOM % ${#hp[@]}]}
sysw "$sys/cpu$off/online" 0 || fail "cannot offline cpu$off"
log "cpu$off offline"
for pol in idlemask mirror bounded; do
	in_list "$pol" "${NONSTOCK[*]}" || continue
	cor=$(counter corrected) rev=$(counter reverted)
	ina=$(counter inactive) hb=$(counter handed_back)
	sysw "$WP_S/policy" "$pol" || { st_bad "switch to $pol refused"; continue; }
	sysw "$WP_PARAMS/test_fault" inactive || fail "test_fault=inactive refused: module too old"
	wait_counter_gt 300 inactive $((ina + 50)) ||
		st_bad "$pol: fewer than 50 inactive picks in 300 s ($(( $(counter inactive) - ina )))"
	sysw "$WP_PARAMS/test_fault" off
	d_ina=$(( $(counter inactive) - ina )) d_hb=$(( $(counter handed_back) - hb ))
	log "$pol with cpu$off offline: inactive +$d_ina, handed_back +$d_hb"
	[ "$d_hb" -ge "$d_ina" ] || st_bad "$pol: inactive +$d_ina but handed_back +$d_hb"
	[ "$(counter corrected)" = "$cor" ] || st_bad "$pol: corrected rose"
	[ "$(counter reverted)" = "$rev" ] || st_bad "$pol: reverted rose"
	read -r p < "$WP_S/policy"
	[ "$p" = "$pol" ] || st_bad "$pol: policy is now $p"
	state_ok "$pol, inactive picks"
	st_checked "$d_ina"
done
sysw "$WP_S/policy" stock
sysw "$sys/cpu$off/online" 1 || fail "cannot online cpu$off"

# ---- 2. every policy in turn under offline/online cycles ----------------------
cor0=$(counter corrected) rev0=$(counter reverted)
st_start
while st_more; do
	for pol in "${NONSTOCK[@]}"; do
		sysw "$WP_S/policy" "$pol" || { st_bad "switch to $pol refused"; continue; }
		# A random non-empty subset goes down and comes back, twice.
		for _ in 1 2; do
			hotplug_pick
			off=("${OFF[@]}")
			for c in "${off[@]}"; do
				sysw "$sys/cpu$c/online" 0 || st_bad "$pol: cannot offline cpu$c"
			done
			w=$(counter wakeups)
			wait_counter_gt 300 wakeups $((w + 200)) || st_bad "$pol: no wakeups with ${off[*]} offline"
			for c in "${off[@]}"; do
				sysw "$sys/cpu$c/online" 1 || st_bad "$pol: cannot online cpu$c"
			done
			w=$(counter wakeups)
			wait_counter_gt 300 wakeups $((w + 200)) || st_bad "$pol: no wakeups after onlining ${off[*]}"
		done
		read -r p < "$WP_S/policy"
		[ "$p" = "$pol" ] || st_bad "$pol: policy is now $p (state: $(<"$WP_S/state"))"
		state_ok "$pol under hotplug"
	done
	st_iter
done
online_all
wl_stop
[ "$(counter corrected)" = "$cor0" ] || st_bad "corrected: +$(( $(counter corrected) - cor0 ))"
[ "$(counter reverted)" = "$rev0" ] || st_bad "reverted: +$(( $(counter reverted) - rev0 ))"
st_note "inactive $(counter inactive)"
log "cycles: $ST_ITER x ${#NONSTOCK[@]} policies; inactive $(counter inactive), corrected $(counter corrected), reverted $(counter reverted)"
wp_unload
st_finish
