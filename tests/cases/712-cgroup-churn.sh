#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: cgroup assignment churn: assignments changed, nested ones set and unset, a task pair moved between cgroups, assigned cgroups created and removed, the machine-wide policy switched, the shadow's cgroup scope moved (once onto a cgroup then removed), a CPU taken offline and back, all under load with latency tracking on; every traced pick of a covered task is by an assigned policy of its cgroup, never the machine-wide one, and an uncovered task's only by the machine-wide one; changes counted exactly, no correction, no revert, no lookup answered wrongly by the cache (audited in the test build)
# requires: module topo=llc2
#
# Long version: tests/stress/cases/907-cgroup-churn.sh (key "cgchurn").
. "$WP_TESTS/lib.sh"
. "$WP_TESTS/stress/lib.sh"

N=$(st_param cgchurn 1500)
st_init cgroup-churn "$N" "$(st_param cgchurn_s 45)"

cg_tree wp712 a/n b free mover
top=$CG_TOP

# The policies each cgroup may have; the machine-wide ones never place a
# task of a, a/n or b.
A_POLS=(idlemask cachehot shortwake)
N_POLS=(eager)
B_POLS=(idlecore prevfirst)
M_POLS=(mirror noscan)

wp_load detach_ms=100
at_exit 'wp_loaded && rmmod wakeplace'
select_cpu_instance wp712
echo 4096 > "$WP_TRACE_INST/buffer_size_kb" || log "cannot grow the trace buffer"

cg_waker $top/a
cg_waker $top/a/n
cg_waker $top/b
cg_waker $top/free
cg_waker $top/mover
wait_until 60 eval '[ "$(cat $top/a/cgroup.procs $top/a/n/cgroup.procs $top/b/cgroup.procs $top/free/cgroup.procs $top/mover/cgroup.procs | wc -l)" -ge 10 ]' ||
	fail "the pipe pairs did not start in their groups"
MOVER=$(cat $top/mover/cgroup.procs)
for p in $MOVER; do
	echo "$p" > $top/a/cgroup.procs || fail "cannot move $p into a"
done
rmdir $top/mover

# Which policies each thread may be placed by: a's, a/n's (which inherit
# a's when unset), b's, the mover's (any of those), free's (machine-wide).
map=$WP_OUT/threads.map
{
	sed "s/\$/ a ${A_POLS[*]}/" $top/a/cgroup.threads
	sed "s/\$/ a\/n ${N_POLS[*]} ${A_POLS[*]}/" $top/a/n/cgroup.threads
	sed "s/\$/ b ${B_POLS[*]}/" $top/b/cgroup.threads
	sed "s/\$/ free ${M_POLS[*]}/" $top/free/cgroup.threads
} | grep -vwF -f <(printf '%s\n' $MOVER) > "$map"
for p in $MOVER; do
	echo "$p mover ${A_POLS[*]} ${N_POLS[*]} ${B_POLS[*]}"
done >> "$map"
log "threads: $(awk '{ print $2 }' "$map" | sort | uniq -c | tr -s ' \n' ' ')"

cgw() { printf '%s' "$1" > "$WP_S/cgroups" 2>/dev/null; }
declare -A CUR
assign() { # GROUP POLICY|unset
	if cgw "/wp712/$1 $2"; then
		if [ "${CUR[$1]:-unset}" != "$2" ]; then
			changes=$((changes + 1))
		fi
		CUR[$1]=$2
	else
		st_bad "/wp712/$1 $2 refused"
	fi
}
changes=0 moves=0 removed=0 hotplugs=0 offcpu=
# CPU hotplug meanwhile: one CPU at a time goes offline and comes back.
HP=()
for c in $(online_cpus); do
	[ -w "$CPU_SYS/cpu$c/online" ] && HP+=("$c")
done
[ ${#HP[@]} = 0 ] || at_exit online_all
assign a "${A_POLS[0]}"
assign b "${B_POLS[0]}"
sysw "$WP_S/policy" "${M_POLS[0]}" || fail "policy ${M_POLS[0]} refused"
# Measurement on (the sched_waking lookup of each tracked wakeup's
# assignment), and a shadow whose scope moves: neither places anything.
SCOPES=(/wp712/a /wp712/b /wp712/a/n none)
sysw "$WP_S/shadow_cgroup" /wp712/a || fail "shadow_cgroup refused"
sysw "$WP_S/shadow" prevsmt || fail "shadow prevsmt refused"
sysw "$WP_S/latency_sample" 1 || fail "latency_sample refused"
wp_hook_settle
c0=$(counter cgroup_changes) changes=0
cor0=$(counter corrected)
echo 1 > "$WP_TRACE_INST/tracing_on"
st_start
where=a
while st_more; do
	r=$((RANDOM % 10))
	case $r in
	0 | 1 | 2 | 3) assign a "${A_POLS[RANDOM % ${#A_POLS[@]}]}" ;;
	4 | 5) assign b "${B_POLS[RANDOM % ${#B_POLS[@]}]}" ;;
	6 | 7)
		if ((RANDOM % 2)); then
			assign a/n "${N_POLS[RANDOM % ${#N_POLS[@]}]}"
		elif [ "${CUR[a/n]:-unset}" != unset ]; then
			assign a/n unset
		fi ;;
	8)
		case $where in a) where=b ;; b) where=a/n ;; *) where=a ;; esac
		for p in $MOVER; do
			echo "$p" > "$top/$where/cgroup.procs" ||
				st_bad "cannot move $p to $where"
		done
		moves=$((moves + 1)) ;;
	9) sysw "$WP_S/policy" "${M_POLS[RANDOM % ${#M_POLS[@]}]}" ||
		st_bad "machine-wide switch refused"
		sysw "$WP_S/shadow_cgroup" "${SCOPES[RANDOM % ${#SCOPES[@]}]}" ||
			st_bad "shadow_cgroup refused" ;;
	esac
	if [ ${#HP[@]} -gt 0 ] && ((ST_ITER % 40 == 20)); then
		if [ -n "$offcpu" ]; then
			echo 1 > "$CPU_SYS/cpu$offcpu/online" ||
				st_bad "cpu$offcpu refused to come online"
			offcpu=
		else
			offcpu=${HP[RANDOM % ${#HP[@]}]}
			if echo 0 > "$CPU_SYS/cpu$offcpu/online"; then
				hotplugs=$((hotplugs + 1))
			else
				st_bad "cpu$offcpu refused to go offline"
				offcpu=
			fi
		fi
	fi
	# An assigned cgroup removed now and then: its assignment goes.
	if ((ST_ITER % 100 == 99)); then
		mkdir $top/tmp && assign tmp "${A_POLS[0]}" &&
			sysw "$WP_S/shadow_cgroup" /wp712/tmp && rmdir $top/tmp &&
			removed=$((removed + 1)) || st_bad "tmp cgroup cycle failed"
		unset 'CUR[tmp]'
	fi
	st_iter
done
echo 0 > "$WP_TRACE_INST/tracing_on"
[ ${#HP[@]} = 0 ] || online_all
log "$ST_ITER iterations: $changes assignment changes, $moves moves, $removed removed cgroups, $hotplugs CPUs offlined"

# Every removal noticed (within a second each).
wait_until 30 eval '[ "$(counter cgroup_removed)" -ge "$removed" ]' ||
	st_bad "cgroup_removed $(counter cgroup_removed), $removed cgroups removed while assigned"
got=$(( $(counter cgroup_changes) - c0 ))
[ "$got" = "$changes" ] || st_bad "cgroup_changes rose by $got, $changes changes made"

group_picks_read "$map" "$WP_TRACE_INST/trace"
[ -z "$GP_RES" ] || st_bad "$GP_RES"
st_checked "${GP_N:-0}"
[ "${GP_N:-0}" -gt 0 ] || st_bad "no pick of the test's tasks traced"

# The assignments still in place measured their tasks' wakeups.
tr=$(awk '{ for (i = 2; i < NF; i += 2) if ($i == "tracked") s += $(i + 1) } END { print s + 0 }' "$WP_S/cgroup_stats")
[ "$tr" -gt 0 ] || st_bad "no tracked wakeup in cgroup_stats after the churn"
log "tracked wakeups of the assignments left: $tr; shadow scope at the end: $(cat "$WP_S/shadow_cgroup")"
sysw "$WP_S/latency_sample" 0 || st_bad "latency_sample 0 refused"
sysw "$WP_S/shadow" off || st_bad "shadow off refused"

[ "$(counter corrected)" = "$cor0" ] ||
	st_bad "corrected picks: $(( $(counter corrected) - cor0 ))"
[ "$(counter reverted)" = 0 ] || st_bad "automatic reverts: $(counter reverted)"
# Every kept answer of the cgroup lookup was the walk's (audited).
[ "$(counter cgroup_cache_wrong)" = 0 ] ||
	st_bad "cgroup lookups answered wrongly by the cache: $(counter cgroup_cache_wrong)"
log "cgroup lookups that missed the cache: $(counter cgroup_lookup_misses) of $(counter wakeups) wakeups"
n=$(kmsg_count 'wakeplace: .*revert')
[ "$n" = 0 ] || st_bad "$n revert lines in the kernel log"

# Clear with the load running, back to stock: the hook goes.
cgw clear || st_bad "clear refused"
sysw "$WP_S/policy" stock || st_bad "stock refused"
wait_until 30 eval '[ "$(cat "$WP_S/hook")" = detached ]' ||
	st_bad "hook $(cat "$WP_S/hook") with stock and no assignment"
wp_unload
st_finish
