#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: switch storm: random policies, shadows and tunables while messaging and tbench run; workloads finish, no revert
# requires: module perf tbench tbench_srv topo=llc2
#
# Long version: tests/stress/cases/900-switch-storm.sh (key "storm").
#
# The shadow only ever changes among policies that use the per-LLC idle
# state (idlemask, idlecore, cachehot, shortwake, prevfirst, scxdfl,
# eager), so the state's tracepoint probes stay attached through the
# storm, which then measures switches rather than live-patching of
# __schedule (text_poke_bp; multi-threaded TCG crashed on that even
# without the module, see tests/stress/README.md).  With
# storm_probes:1 the shadow also goes "off" and to any policy, which
# detaches and re-attaches them.
. "$WP_TESTS/lib.sh"
. "$WP_TESTS/stress/lib.sh"

N=$(st_param storm 1000)
probes=$(st_param storm_probes 0)
st_init switch-storm "$N" "$(st_param storm_s 20)"

wp_load
read_policies
read_tunables
log "${#POLS[@]} policies, ${#TUN_FILE[@]} tunables"

tbench_server
wl_start messaging perf bench sched messaging -g 1 -l 10
wl_start tbench tbench -t 4 2 127.0.0.1
# Let both get going before the storm.
wl_wait

IDLE_POLS=(idlemask idlecore cachehot shortwake prevfirst scxdfl eager)
sysw "$WP_S/shadow" idlemask || st_bad "shadow idlemask refused"
sw0=$(counter switches) red0=$(counter redirected) cor0=$(counter corrected)
ok_switches=0 tun_writes=0 shadow_writes=0
st_start
while st_more; do
	i=$ST_ITER
	((i % 500 == 499)) && log "$((i + 1)) switches"
	# A tunable within range now and then.
	if ((RANDOM % 3 == 0)); then
		k=$((RANDOM % ${#TUN_FILE[@]}))
		rand_between v "${TUN_MIN[k]}" "${TUN_MAX[k]}"
		# shellcheck disable=SC2154 # rand_between set v (by name)
		if sysw "${TUN_FILE[k]}" "$v"; then
			tun_writes=$((tun_writes + 1))
			read -r got < "${TUN_FILE[k]}"
			[ "$got" = "$v" ] || st_bad "${TUN_FILE[k]}: wrote $v, reads $got"
		else
			st_bad "${TUN_FILE[k]}: in-range value $v refused"
		fi
	fi
	# Another shadow now and then.
	if ((RANDOM % 8 == 0)); then
		s=${IDLE_POLS[RANDOM % ${#IDLE_POLS[@]}]}
		if [ "$probes" = 1 ]; then
			s=off
			((RANDOM % 2)) && s=${POLS[RANDOM % ${#POLS[@]}]}
		fi
		if sysw "$WP_S/shadow" "$s"; then
			shadow_writes=$((shadow_writes + 1))
		else
			st_bad "shadow $s refused"
		fi
	fi
	p=${POLS[RANDOM % ${#POLS[@]}]}
	if sysw "$WP_S/policy" "$p"; then
		ok_switches=$((ok_switches + 1))
		read -r got < "$WP_S/policy"
		[ "$got" = "$p" ] || st_bad "switch $i: wrote $p, policy reads $got"
	else
		st_bad "switch $i: switch to $p refused"
	fi
	st_iter
done
log "$ok_switches switches, $tun_writes tunable writes, $shadow_writes shadow writes"

# Back to one policy while the workloads finish their runs.
sysw "$WP_S/policy" idlemask || st_bad "final switch refused"
wl_stop

red=$(( $(counter redirected) - red0 ))
st_checked "$red"
sw=$(( $(counter switches) - sw0 ))
[ "$sw" = $((ok_switches + 1)) ] ||
	st_bad "switches counter rose by $sw, $((ok_switches + 1)) switches made"
[ "$(counter corrected)" = "$cor0" ] ||
	st_bad "corrected picks: $(( $(counter corrected) - cor0 ))"
[ "$(counter reverted)" = 0 ] || st_bad "automatic reverts: $(counter reverted)"
read -r state < "$WP_S/state"
[ "$state" = ok ] || st_bad "state: $state"
n=$(kmsg_count 'wakeplace: .*revert')
[ "$n" = 0 ] || st_bad "$n revert lines in the kernel log"
[ "$red" -gt 0 ] || st_bad "no wakeup was redirected during the storm"
log "redirected wakeups during the storm: $red"

wp_unload
st_finish
