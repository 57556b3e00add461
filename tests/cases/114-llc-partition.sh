#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: after cpuset partitions swap CPUs between LLC domains and keep the target's LLC id and size, idlemask's picks stay in the target's current LLC and find its idle CPU
# requires: module smt
# tier: core
#
# On the smt topology (one LLC of 4 CPUs), with cgroup v2 partitions: P
# is a partition over CPUs 0-2, Q an isolated partition inside it over CPU
# 2 (a root partition over CPU 1 after the swap), W a member of P where
# the probe runs (P's CPUs less Q's), and the
# root keeps CPU 3.  The idle state is built then: CPU 0's LLC domain is
# {0,1} (id 0, size 2).  Then Q moves to CPU 1: CPU 0's LLC domain is
# {0,2}, still id 0 and size 2, and no other CPU where tasks wake changes
# (the root's CPU 3 stays alone, Q has no task), so nothing but the
# probe's own picks can notice.  A wakeprobe in W (waker on 0,
# wakee's prev 0: target 0 busy) must land on 2, the idle CPU of its LLC
# now, and every traced pick of a target in {0,2} must choose a CPU in
# {0,2}.  A state checked only by (id, size) keeps offering CPU 1, which
# W's tasks may not use, and falls back to the busy target.
. "$WP_TESTS/lib.sh"
require_smt
[ "$(nr_cpus)" = 4 ] && [ "$(cpulist_count "$(cpus_of_llc 0)")" = 4 ] ||
	skip "needs one LLC of 4 CPUs"

probe=$WP_ROOT/tests/tools/wakeprobe
[ -x "$probe" ] || fail "tests/tools/wakeprobe not built"

cg=/sys/fs/cgroup
[ -e $cg/cgroup.subtree_control ] || fail "no cgroup v2 at $cg"
grep -qw cpuset $cg/cgroup.subtree_control ||
	echo +cpuset > $cg/cgroup.subtree_control 2>/dev/null
grep -qw cpuset $cg/cgroup.subtree_control || fail "no cgroup v2 cpuset controller"
P=$cg/wp114p Q=$P/q W=$P/w
rmdir $W $Q $P 2>/dev/null
mkdir $P || fail "cannot create $P"
at_exit "rmdir $P"
echo 0-2 > $P/cpuset.cpus || fail "cannot give P CPUs 0-2"
echo root > $P/cpuset.cpus.partition || fail "cannot make P a partition"
at_exit "echo member > $P/cpuset.cpus.partition"
echo +cpuset > $P/cgroup.subtree_control || fail "no cpuset below P"
mkdir $Q $W || fail "cannot create $Q and $W"
at_exit "rmdir $W $Q"
echo 2 > $Q/cpuset.cpus || fail "cannot give Q CPU 2"
echo isolated > $Q/cpuset.cpus.partition || fail "cannot make Q isolated"
at_exit "echo member > $Q/cpuset.cpus.partition"

# check_part GROUP TYPE CPUS: GROUP's partition type and effective CPUs.
check_part() {
	local t e
	read -r t < "$1/cpuset.cpus.partition"
	read -r e < "$1/cpuset.cpus.effective"
	[ "$t" = "$2" ] || fail "${1#"$cg"/}: partition '$t', wanted $2"
	[ "$(cpulist_expand "$e")" = "$(cpulist_expand "$3")" ] ||
		fail "${1#"$cg"/}: effective CPUs '$e', wanted $3"
}
# doms0: the kernel's sched domains of CPU 0 and their spans (hex masks)
# from /proc/schedstat (later versions put the domain's name first).
doms0() {
	awk '$1 ~ /^cpu/ { c = $1 }
	     c == "cpu0" && $1 ~ /^domain/ {
		printf "%s %s ", $1, ($2 ~ /^[0-9a-f,]+$/ ? $2 : $3) }' /proc/schedstat
}
check_part $P root 0-1
check_part $Q isolated 2
d=$(doms0)
[ "$d" = "domain0 3 " ] || fail "CPU 0's sched domains: '$d', wanted one over CPUs 0,1 (mask 3)"

wp_load policy=idlemask
at_exit 'wp_loaded && rmmod wakeplace'
select_cpu_instance wp114
inst=$WP_TRACE_INST

# probe_in_w: wakeprobe in W, waker on 0, prev 0; prints its output.
probe_in_w() {
	bash -c 'echo $$ > "$1/cgroup.procs" && exec "$2" -w 0 -p 0 -n 30' \
		probe "$W" "$probe" || fail "wakeprobe in W failed"
}
landed() { awk -v c="$2" '$1 == "cpu" && $2 == c { print $3 }' <<<"$1"; }

log "CPU 0's domains: $d"
out=$(probe_in_w)
log "W on {0,1}: $(tr '\n' ' ' <<<"$out")"
on1=$(landed "$out" 1)
assert_ge "${on1:-0}" 20 "wakeups on CPU 1, the idle CPU of W's LLC {0,1}"

# The swap: Q gives 2 back to P and takes 1.  6.1 moves the CPUs but
# keeps the domains until the next rebuild (CPU 0's stayed {0,1}); Q
# turning from an isolated into a load-balanced partition rebuilds them,
# with P over {0,2} throughout (a one-CPU partition has no domain either).
echo 1 > $Q/cpuset.cpus || fail "cannot move Q to CPU 1"
echo root > $Q/cpuset.cpus.partition || fail "cannot make Q a root partition"
check_part $P root 0,2
check_part $Q root 1
d=$(doms0)
log "CPU 0's domains: $d"
[ "$d" = "domain0 5 " ] || fail "CPU 0's sched domains after the swap: '$d', wanted one over CPUs 0,2 (mask 5)"
rb=$(awk '$1 == "rebuilds" { print $2 }' "$(wp_sysfs counters)")

echo > "$inst/trace"
echo 1 > "$inst/tracing_on"
out=$(probe_in_w)
echo 0 > "$inst/tracing_on"
log "W on {0,2}: $(tr '\n' ' ' <<<"$out")"
log "counters: $(grep -E '^(rebuilds|stale|corrected) ' "$(wp_sysfs counters)" | tr '\n' ' ')(rebuilds before the probe: $rb)"
on2=$(landed "$out" 2)
assert_ge "${on2:-0}" 20 "wakeups on CPU 2, the idle CPU of W's LLC {0,2}"
read -r n bad < <(awk '
	/select_cpu:/ && match($0, / target=[0-9]+ chosen=[0-9]+/) {
		split(substr($0, RSTART + 1, RLENGTH - 1), f, /[= ]/)
		t = f[2]; c = f[4]
		if (t == 0 || t == 2) {
			n++
			if (c != 0 && c != 2) { bad++; if (bad < 4) print > "/dev/stderr" }
		}
	}
	END { print n + 0, bad + 0 }' "$inst/trace")
log "traced picks with target in {0,2}: $n, outside {0,2}: $bad"
assert_gt "$n" 0 "traced picks with target 0 or 2"
assert_eq "$bad" 0 "picks of a target in {0,2} outside {0,2}"
assert_eq "$(counter corrected)" 0 "corrected picks"
wp_unload
