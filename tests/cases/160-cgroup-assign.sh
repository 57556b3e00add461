#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: a policy per cgroup: each traced pick is made by the policy of the wakee's nearest assigned cgroup (nested, explicit stock, a task moved, the machine-wide policy for the rest); the cgroups file lists id, policy, state, path; bad writes and a full table are refused; a removed cgroup's assignment goes with one log line; the hook detaches when no assignment needs it; unload with assignments under load
# requires: module perf
# tier: core
. "$WP_TESTS/lib.sh"

cg=/sys/fs/cgroup
if ! [ -e $cg/cgroup.subtree_control ]; then
	mount -t cgroup2 none $cg 2>/dev/null ||
		fail "cannot mount cgroup v2 on $cg"
fi
top=$cg/wp160
cleanup_groups() {
	find "$top" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
	rmdir "$top" 2>/dev/null
}
cleanup_groups
mkdir -p $top/lat/sub $top/batch $top/other || fail "cannot create the groups under $top"
at_exit cleanup_groups

wp_load detach_ms=100
at_exit 'wp_loaded && rmmod wakeplace'
select_cpu_instance wp160
at_exit kill_pipes

assert_eq "$(wp_read cgroups_max)" 64 "cgroups_max"
assert_eq "$(wp_read cgroups)" "" "no assignment at load"

# cg_write LINE: one command to the cgroups file; returns its status.
cg_write() { wp_write cgroups "$1"; }

# pipe_in GROUP: a task started in GROUP that sleeps 5 ms and wakes, over
# and over (read's timeout on a pipe that stays empty: no fork per
# wakeup), with the pipe's writer, a sleep, beside it.  A few hundred
# wakeups a second: enough picks to check, few enough to read back
# quickly under TCG (a perf bench sched pipe pair per group made the
# test take 400 s).
PIPES=()
pipe_in() {
	bash -c 'echo $$ > "$0/cgroup.procs" || exit 1
		exec 3< <(exec sleep 100000)
		while :; do read -r -t 0.005 -u 3; done' \
		"$1" </dev/null >/dev/null 2>&1 &
	PIPES+=("$!")
}
kill_pipes() {
	local p
	for p in "${PIPES[@]}"; do
		pkill -KILL -P "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	for p in "${PIPES[@]}"; do
		wait "$p" 2>/dev/null
	done
	PIPES=()
}

pipe_in $top/lat
pipe_in $top/lat/sub
pipe_in $top/batch
pipe_in $top/other
# Both processes of each pair in their group before any check.
wait_until 60 eval '[ "$(cat $top/lat/cgroup.procs $top/lat/sub/cgroup.procs $top/batch/cgroup.procs $top/other/cgroup.procs | wc -l)" -ge 8 ]' ||
	fail "the pipe pairs did not start in their groups"

# check_picks "GROUP=POLICY ..." : trace 1 s of picks; every pick of a
# thread of GROUP (its cgroup.threads, read while tracing) was made by
# POLICY ("none": no pick traced, the kernel placed it), and each GROUP
# with a policy has picks.
check_picks() {
	local spec=$1 inst=$WP_TRACE_INST map=$WP_OUT/threads.map res
	echo > "$inst/trace"
	echo 1 > "$inst/tracing_on"
	sleep 0.5
	: > "$map"
	local kv g
	for kv in $spec; do
		g=${kv%%=*}
		sed "s|\$| $g ${kv#*=}|" "$top/$g/cgroup.threads" >> "$map"
	done
	sleep 0.5
	echo 0 > "$inst/tracing_on"
	res=$(awk '
		NR == FNR { grp[$1] = $2; want[$1] = $3; groups[$2] = $3; next }
		/select_cpu: policy=/ {
			match($0, /policy=[^ ]+/); pol = substr($0, RSTART + 7, RLENGTH - 7)
			match($0, / pid=[0-9]+/); pid = substr($0, RSTART + 5, RLENGTH - 5)
			if (!(pid in grp))
				next
			n[grp[pid]]++
			if (pol != want[pid]) {
				bad++
				if (bad <= 3)
					printf "pid %s of %s placed by %s, not %s; ", pid, grp[pid], pol, want[pid]
			}
		}
		END {
			for (g in groups) {
				if (groups[g] == "none" && n[g])
					printf "%s: %d picks, expected none; ", g, n[g]
				if (groups[g] != "none" && !n[g])
					printf "%s: no pick by %s traced; ", g, groups[g]
				printf "%s:%d ", g, n[g] > "/dev/stderr"
			}
			printf "\n" > "/dev/stderr"
			if (bad)
				printf "%d misplaced", bad
		}' "$map" "$inst/trace" 2> >(sed 's/^/# picks per group: /' >&2))
	[ -z "$res" ] || fail "$spec: $res"
	pass "picks by group: $spec"
}

# The assignment: idlemask for lat (and lat/sub below it).
must cg_write "/wp160/lat idlemask"
wp_hook_settle
id=$(stat -c %i $top/lat)
assert_eq "$(wp_read cgroups)" "$id idlemask assigned /wp160/lat" "cgroups file lists id, policy, state, path"
assert_eq "$(wp_read hook)" attached "hook attached for a non-stock assignment"
check_picks "lat=idlemask lat/sub=idlemask batch=none other=none"
assert_gt "$(wp_read counters | awk '$1 == "cgroup_wakeups" { print $2 }')" 0 "cgroup_wakeups counted"

# cg_stat ID KEY...: values of one read of the assignment's cgroup_stats
# line, in KEY order ("outcomes": the sum of the outcome counters).
cg_stat() {
	local id=$1
	shift
	wp_read cgroup_stats | awk -v id="$id" -v keys="$*" '
		$1 == id {
			for (i = 2; i < NF; i += 2) {
				v[$i] = $(i + 1)
				if (i >= 8)
					v["outcomes"] += $(i + 1)
			}
			n = split(keys, k, " ")
			for (j = 1; j <= n; j++)
				printf "%s%s", v[k[j]] + 0, j < n ? " " : "\n"
		}'
}
read -r w r h o <<<"$(cg_stat "$id" wakeups redirected handed_back outcomes)"
log "lat's cgroup_stats: wakeups $w redirected $r handed_back $h outcomes $o"
assert_gt "${r:-0}" 100 "lat's assignment: wakeups redirected by idlemask"
# One read, but summed CPU by CPU while wakeups go on: a few apart at most.
assert_ge "$((w + 16))" "$((r + h))" "lat's assignment: wakeups >= redirected + handed_back"
assert_ge "$((o + 16))" "$r" "lat's assignment: outcomes cover the redirected"
assert_ge "$((r + 16))" "$o" "lat's assignment: no outcome beyond the redirected"

# Nested: the nearest assigned ancestor wins.
must cg_write "//wp160/lat/sub/ mirror"
check_picks "lat=idlemask lat/sub=mirror batch=none other=none"
assert_match "$(wp_read cgroups)" "[0-9]+ mirror assigned /wp160/lat/sub" "a path is listed normalised"

# An explicit stock assignment overrides its ancestor's; its counters
# (kept from mirror's time) see wakeups but redirect none.
must cg_write "/wp160/lat/sub stock"
sid=$(stat -c %i $top/lat/sub)
read -r w0 r0 <<<"$(cg_stat "$sid" wakeups redirected)"
check_picks "lat=idlemask lat/sub=none batch=none"
read -r w1 r1 <<<"$(cg_stat "$sid" wakeups redirected)"
assert_gt "$((w1 - w0))" 50 "lat/sub on stock: its wakeups still counted"
assert_le "$((r1 - r0))" 16 "lat/sub on stock: none redirected"

# The machine-wide policy places what no assignment covers.
must wp_write policy prevfirst
check_picks "lat=idlemask lat/sub=none batch=prevfirst other=prevfirst"
must wp_write policy stock

# Tasks moved between cgroups: batch's pair moves into lat.
for p in $(cat $top/batch/cgroup.procs); do
	echo "$p" > $top/lat/cgroup.procs || fail "cannot move $p into lat"
done
assert_eq "$(cat $top/batch/cgroup.procs)" "" "batch emptied"
check_picks "lat=idlemask other=none"

# Unset: lat/sub inherits lat's policy again.
must cg_write "/wp160/lat/sub unset"
check_picks "lat=idlemask lat/sub=idlemask other=none"

# Refused writes.
must_fail cg_write "/wp160/nosuch idlemask"
must_fail cg_write "/wp160/lat nosuchpolicy"
must_fail cg_write "wp160/lat idlemask"
must_fail cg_write "/wp160/lat/../batch idlemask"
must_fail cg_write "/wp160/batch unset"
must_fail cg_write "/wp160/lat/cgroup.procs idlemask"
# Two commands in one write(2) (a shell's printf writes line by line).
printf '/wp160/batch idlemask\n/wp160/other idlemask\n' |
	dd of="$(wp_sysfs cgroups)" bs=4096 count=1 iflag=fullblock 2>/dev/null &&
	fail "two commands in one write were accepted"
pass "two commands in one write are refused"
must_fail cg_write "idlemask"
assert_eq "$(wp_read cgroups | wc -l)" 1 "refused writes changed nothing"

# The table holds 64; the 65th is refused and changes nothing.
for i in $(seq 1 64); do
	mkdir -p $top/many/g$i || fail "mkdir g$i"
done
for i in $(seq 1 63); do
	cg_write "/wp160/many/g$i stock" || fail "assignment $i of 64 refused"
done
err=$( { printf '/wp160/many/g64 stock' > "$(wp_sysfs cgroups)"; } 2>&1) &&
	fail "the 65th assignment was accepted"
assert_match "$err" "space" "the 65th assignment is refused with ENOSPC"
assert_eq "$(wp_read cgroups | wc -l)" 64 "64 assignments listed"
must cg_write "/wp160/lat mirror"
pass "reassigning an assigned cgroup in a full table works"
must cg_write clear
assert_eq "$(wp_read cgroups)" "" "clear removes every assignment"
wait_until 30 eval '[ "$(wp_read hook)" = detached ]' ||
	fail "hook still $(wp_read hook) with no assignment left"
pass "hook detached when the last assignment went"
check_picks "lat=none other=none"

# Only stock assignments: no hook.
must cg_write "/wp160/lat stock"
sleep 0.5
assert_eq "$(wp_read hook)" detached "a stock assignment needs no hook"
must cg_write clear

# A cgroup removed while assigned: its assignment goes, one log line.
mkdir $top/gone || fail "mkdir gone"
gid=$(stat -c %i $top/gone)
must cg_write "/wp160/gone idlecore"
rmdir $top/gone || fail "rmdir gone"
wait_until 30 eval "wp_read cgroups | grep -qx '$gid idlecore removed /wp160/gone'" ||
	fail "no removed line for /wp160/gone: $(wp_read cgroups)"
pass "the removed cgroup's assignment is listed as removed"
dmesg_since_start | grep -q "wakeplace: cgroup /wp160/gone was removed: its assignment to idlecore is gone" ||
	fail "no log line for the removed cgroup"
assert_eq "$(wp_read counters | awk '$1 == "cgroup_removed" { print $2 }')" 1 "cgroup_removed"
wait_until 30 eval '[ "$(wp_read hook)" = detached ]' ||
	fail "hook not detached after the removal"
mkdir $top/gone || fail "mkdir gone again"
must cg_write "/wp160/gone idlecore"
assert_eq "$(wp_read cgroups | grep -c gone)" 1 "a new assignment of the path replaces its removed line"
rmdir $top/gone 2>/dev/null
must cg_write clear

# Unload with assignments in use under load: messaging in lat (this
# shell moves there to start it, and back at exit).
must cg_write "/wp160/lat idlecore"
must cg_write "/wp160/other mirror"
check_picks "lat=idlecore other=mirror"
at_exit 'echo $$ > $cg/cgroup.procs'
echo $$ > $top/lat/cgroup.procs || fail "cannot move the test into lat"
bg_load -g 1 -l 20
echo $$ > $cg/cgroup.procs || fail "cannot move the test back"
wait_until 60 eval '[ "$(stat_of idlecore picks)" -gt 1000 ]' ||
	fail "idlecore placed no load in lat"
wp_unload
pass "unloaded with two assignments under load"
