#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: CPU hotplug under load with idlemask/idlecore: no pick of an offline CPU (counter and trace), idle state rebuilt
# requires: module perf topo=llc2
# tier: core
#
# Long version: tests/stress/cases/902-hotplug.sh (key "hotplug").
#
# Each cycle offlines a random non-empty set of the hotpluggable CPUs
# (cpu0 has no "online" file on x86), lets wakeups run, and onlines them
# again.  While they are offline, a private trace instance records every
# wakeplace:select_cpu event: none may have chosen an offline CPU.  The
# module's own check (corrected) must stay 0 throughout, and the per-LLC
# idle state must be rebuilt after each offline and each online.
. "$WP_TESTS/lib.sh"
. "$WP_TESTS/stress/lib.sh"

N=$(st_param hotplug 2)
st_init hotplug "$N" "$(st_param hotplug_s 30)"
sys=$CPU_SYS
hotplug_init
hp=("${HP[@]}")
log "hotpluggable CPUs: ${hp[*]}"

wp_load policy=idlemask
# Attached once: recording is switched with tracing_on, not by toggling the
# event (each toggle live-patches kernel text, which TCG handles badly).
select_cpu_instance wp702
inst=$WP_TRACE_INST
echo 8192 > "$inst/buffer_size_kb"

wl_start messaging perf bench sched messaging -g 2 -l 10
wl_start pipe perf bench sched pipe -l 2000
wl_wait

cor0=$(counter corrected)
rb_total0=$(counter rebuilds)
events=0
st_start
while st_more; do
	i=$((ST_ITER + 1))
	pol=idlemask
	((i % 2 == 0)) && pol=idlecore
	sysw "$WP_S/policy" "$pol" || st_bad "cycle $i: switch to $pol refused"

	# A random non-empty subset of the hotpluggable CPUs.
	hotplug_pick
	off=("${OFF[@]}")
	rb=$(counter rebuilds)
	for c in "${off[@]}"; do
		sysw "$sys/cpu$c/online" 0 || st_bad "cycle $i: cannot offline cpu$c"
	done
	wait_counter_gt 300 rebuilds "$rb" ||
		st_bad "cycle $i: no idle-state rebuild after offlining ${off[*]}"

	# Wakeups while they are offline, traced.
	echo > "$inst/trace"
	echo 1 > "$inst/tracing_on"
	red=$(counter redirected)
	wait_counter_gt 300 redirected $((red + 500)) ||
		st_bad "cycle $i: fewer than 500 redirected wakeups in 300 s"
	echo 0 > "$inst/tracing_on"
	read -r n bad lost < <(awk -v off=" ${off[*]} " '
		/select_cpu:/ {
			n++
			if (match($0, / chosen=[0-9]+/)) {
				c = substr($0, RSTART + 8, RLENGTH - 8)
				if (index(off, " " c " ")) { bad++; if (bad < 4) print > "/dev/stderr" }
			}
		}
		/LOST [0-9]+ EVENTS/ { lost++ }
		END { print n + 0, bad + 0, lost + 0 }' "$inst/trace")
	[ "$n" -gt 0 ] || st_bad "cycle $i: no select_cpu event traced"
	[ "$bad" = 0 ] || st_bad "cycle $i: $bad picks of offline CPUs ${off[*]} traced"
	events=$((events + n))
	st_checked "$n"

	rb=$(counter rebuilds)
	for c in "${off[@]}"; do
		sysw "$sys/cpu$c/online" 1 || st_bad "cycle $i: cannot online cpu$c"
	done
	wait_counter_gt 300 rebuilds "$rb" ||
		st_bad "cycle $i: no idle-state rebuild after onlining ${off[*]}"
	log "cycle $i: $pol, offline ${off[*]}: $n picks traced ($lost lost markers), rebuilds $(counter rebuilds), stale $(counter stale)"
	st_iter
done

online_all
# Everything is back: the state covers all CPUs again and is used.
sysw "$WP_S/policy" idlecore || st_bad "switch to idlecore refused"
mask0=$(stat_of idlecore mask)
wait_stat_gt 300 idlecore mask "$mask0" ||
	st_bad "idlecore found no idle CPU in its mask after the cycles"
wl_stop
[ "$(counter corrected)" = "$cor0" ] ||
	st_bad "corrected picks: $(( $(counter corrected) - cor0 ))"
[ "$(counter reverted)" = 0 ] || st_bad "automatic reverts: $(counter reverted)"
read -r state < "$WP_S/state"
[ "$state" = ok ] || st_bad "state: $state"
rb=$(( $(counter rebuilds) - rb_total0 ))
[ "$rb" -ge $((2 * ST_ITER)) ] || st_bad "$rb rebuilds for $ST_ITER cycles"
st_note "rebuilds $rb stale $(counter stale)"
log "picks traced while CPUs were offline: $events; rebuilds: $rb"
echo 0 > "$inst/events/wakeplace/select_cpu/enable"
wp_unload
st_finish
