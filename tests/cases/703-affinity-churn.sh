#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: affinity churn (sched_setaffinity and a cpuset cgroup) under every policy: no wakeup outside the allowed CPUs
# requires: module topo=llc2
#
# Long version: tests/stress/cases/903-affinity-churn.sh (key "churn":
# total wakeups over all policies).
#
# tests/tools/affchurn changes its workers' allowed CPUs from another
# thread (sched_setaffinity, and the cpuset.cpus of a cgroup it sits in)
# while they ping-pong; each worker checks the CPU it woke up on against
# the mask the kernel reported, and a sampler checks /proc from outside.
# The module's counter of picks outside p->cpus_ptr or the active mask
# (corrected) must stay 0.
. "$WP_TESTS/lib.sh"
. "$WP_TESTS/stress/lib.sh"

N=$(st_param churn 24000)
st_init affinity-churn "$N" "$(st_param churn_s 30)"
aff=$WP_ROOT/tests/tools/affchurn
[ -x "$aff" ] || fail "tests/tools/affchurn not built (make tools)"

# A cpuset cgroup (cgroup v2) for the tool to churn.
cg=
root=/sys/fs/cgroup
if [ -e $root/cgroup.subtree_control ]; then
	grep -qw cpuset $root/cgroup.subtree_control ||
		echo +cpuset > $root/cgroup.subtree_control 2>/dev/null
	if grep -qw cpuset $root/cgroup.subtree_control; then
		cg=$root/wp703
		rmdir $cg 2>/dev/null
		mkdir $cg || fail "cannot create $cg"
		at_exit "rmdir $cg"
	fi
fi
[ -n "$cg" ] || fail "no cgroup v2 cpuset controller"

# The checks can fail: with a wrong mask published (-F) both must fire.
res=$("$aff" -p 2 -n 3000 -w 50 -c "$cg" -F 2>/dev/null)
rc=$?
read -r _ _ _ _ _ _ _ v _ _ _ sv _ <<<"$res"
[ "$rc" = 1 ] && [ "${v:-0}" -gt 0 ] && [ "${sv:-0}" -gt 0 ] ||
	fail "affchurn -F (wrong masks) did not report violations: $res"
pass "affchurn self-test: $v wakeup and $sv sample violations with wrong masks"

wp_load
read_policies
per=$(( (N + ${#NONSTOCK[@]} - 1) / ${#NONSTOCK[@]} ))
st_start
cor0=$(counter corrected)
tot_w=0 tot_c=0 tot_s=0 tot_cs=0 tot_aff=0 k=0
for pol in "${NONSTOCK[@]}"; do
	sysw "$WP_S/policy" "$pol" || st_bad "switch to $pol refused"
	r0=$(counter redirected)
	# An even share of what is left of the budget.
	secs=$(( $(st_left) / (${#NONSTOCK[@]} - k) ))
	k=$((k + 1))
	res=$("$aff" -p 3 -n "$per" -t "$((secs > 0 ? secs : 1))" -s "$RANDOM" \
		-c "$cg" -i 0 -w 20 2>&1)
	rc=$?
	log "$pol: $res"
	log "$pol: redirected $(( $(counter redirected) - r0 ))"
	read -r _ w _ c _ _ _ v _ s _ sv _ a _ cs _ _ <<<"$(tail -1 <<<"$res")"
	if [ "$rc" != 0 ] || ! [[ $w =~ ^[0-9]+$ ]]; then
		st_bad "$pol: affchurn failed (exit $rc): $(tr '\n' ' ' <<<"$res")"
		continue
	fi
	[ "$v" = 0 ] || st_bad "$pol: $v wakeups outside the allowed CPUs"
	[ "$sv" = 0 ] || st_bad "$pol: $sv samples outside the allowed CPUs"
	[ "$c" -gt 0 ] || st_bad "$pol: no wakeup could be checked"
	[ "$a" -gt 0 ] || st_bad "$pol: no sched_setaffinity change"
	[ "$cs" -gt 0 ] || st_bad "$pol: no cpuset change"
	tot_w=$((tot_w + w)) tot_c=$((tot_c + c)) tot_s=$((tot_s + s))
	tot_cs=$((tot_cs + cs)) tot_aff=$((tot_aff + a))
	st_iter "$w"
done
st_checked "$tot_c"
[ "$(counter corrected)" = "$cor0" ] ||
	st_bad "corrected picks: $(( $(counter corrected) - cor0 ))"
[ "$(counter reverted)" = 0 ] || st_bad "automatic reverts: $(counter reverted)"
read -r state < "$WP_S/state"
[ "$state" = ok ] || st_bad "state: $state"
st_note "wakeups $tot_w sampled $tot_s setaffinity $tot_aff cpuset $tot_cs"
log "wakeups $tot_w, checked $tot_c, sampled $tot_s, changes: setaffinity $tot_aff, cpuset $tot_cs"
wp_unload
st_finish
