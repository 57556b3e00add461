#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: insmod + rmmod cycles with a random non-stock policy and shadow placing a wakeup load
# requires: module perf topo=llc2
# tier: core
#
# Long version: tests/stress/cases/901-unload-cycles.sh (key "unload").
. "$WP_TESTS/lib.sh"
. "$WP_TESTS/stress/lib.sh"

N=$(st_param unload 2)
st_init unload-cycles "$N" "$(st_param unload_s 30)"
churn=$WP_ROOT/tests/tools/churn
[ -x "$churn" ] || fail "tests/tools/churn not built (make tools)"

tr=$TRACEFS
tracefs_mount
read -ra pols <<<"$(src_policies stock)"
[ "${#pols[@]}" -gt 0 ] || fail "no policies in module/policies/list.h"

wl_start messaging perf bench sched messaging -g 2 -l 10
wl_start pipe perf bench sched pipe -l 2000
wl_start churn "$churn" -p 2 -n 3000
wl_wait

st_start
tries=0
while st_more && [ "$tries" -lt $((2 * N)) ]; do
	tries=$((tries + 1)) i=$tries
	pol=${pols[RANDOM % ${#pols[@]}]}
	sh=off
	((RANDOM % 2)) && sh=${pols[RANDOM % ${#pols[@]}]}
	if ! res=$(insmod "$WP_KO" policy="$pol" shadow="$sh" 2>&1); then
		st_bad "cycle $i: insmod policy=$pol shadow=$sh: $res"
		continue
	fi
	read -r got < "$WP_S/policy"
	[ "$got" = "$pol" ] || st_bad "cycle $i: policy reads $got, loaded with $pol"
	# The policy must place wakeups before it is pulled out from under them.
	wait_stat_gt 300 "$pol" picks 100 ||
		st_bad "cycle $i: $pol placed $(stat_of "$pol" picks) wakeups in 300 s"
	red=$(counter redirected)
	cor=$(counter corrected)
	[ "$cor" = 0 ] || st_bad "cycle $i: $cor corrected picks"
	st_checked "$red"
	if ! res=$(rmmod wakeplace 2>&1); then
		st_bad "cycle $i: rmmod under $pol: $res"
		break
	fi
	[ -e "$WP_S" ] && st_bad "cycle $i: $WP_S left after rmmod"
	[ -e /sys/module/wakeplace ] && st_bad "cycle $i: module still listed"
	grep -q '^select_task_rq_fair' $tr/enabled_functions &&
		st_bad "cycle $i: ftrace hook left after rmmod"
	log "cycle $i: $pol (shadow $sh): $red redirected, unloaded"
	st_iter
done

wl_stop
loads=$(kmsg_count 'wakeplace: [0-9.]+ loaded on')
unloads=$(kmsg_count 'wakeplace: unloaded')
[ "$loads" = "$ST_ITER" ] || st_bad "$loads load lines in dmesg for $ST_ITER cycles"
[ "$unloads" = "$ST_ITER" ] || st_bad "$unloads unload lines in dmesg for $ST_ITER cycles"
[ "$ST_ITER" = "$tries" ] || st_bad "$ST_ITER of $tries cycles completed"
st_finish
