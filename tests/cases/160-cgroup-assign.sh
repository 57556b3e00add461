#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: a policy per cgroup: each traced pick is made by the policy of the wakee's nearest assigned cgroup (nested, explicit stock, a task moved, the machine-wide policy for the rest); the cgroups file lists id, policy, state, path; bad writes and a full table are refused; a removed cgroup's assignment goes with one log line; the hook detaches when no assignment needs it; unload with assignments under load
# requires: module perf ctl jq topo=llc2
# tier: core
. "$WP_TESTS/lib.sh"

cg_tree wp160 lat/sub batch other
cg=$CG_ROOT top=$CG_TOP

wp_load detach_ms=100
at_exit 'wp_loaded && rmmod wakeplace'
select_cpu_instance wp160

assert_eq "$(wp_read cgroups_max)" 64 "cgroups_max"
assert_eq "$(wp_read cgroups)" "" "no assignment at load"

# cg_write LINE: one command to the cgroups file; returns its status.
cg_write() { wp_write cgroups "$1"; }

cg_waker $top/lat
cg_waker $top/lat/sub
cg_waker $top/batch
cg_waker $top/other
# Both processes of each pair in their group before any check.
wait_until 60 eval '[ "$(cat $top/lat/cgroup.procs $top/lat/sub/cgroup.procs $top/batch/cgroup.procs $top/other/cgroup.procs | wc -l)" -ge 8 ]' ||
	fail "the pipe pairs did not start in their groups"

# check_picks "GROUP=POLICY ..." : trace 1 s of picks; every pick of a
# thread of GROUP (its cgroup.threads, read while tracing) was made by
# POLICY ("none": no pick traced, the kernel placed it), and each GROUP
# with a policy has picks.
check_picks() {
	local spec=$1 inst=$WP_TRACE_INST map=$WP_OUT/threads.map
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
	group_picks_read "$map" "$inst/trace"
	[ -z "$GP_RES" ] || fail "$spec: $GP_RES"
	pass "picks by group: $spec"
}

# The assignment: idlemask for lat (and lat/sub below it).
must cg_write "/wp160/lat idlemask"
wp_hook_settle
id=$(stat -c %i $top/lat)
assert_eq "$(wp_read cgroups)" "$id idlemask assigned /wp160/lat" "cgroups file lists id, policy, state, path"
assert_eq "$(wp_read hook)" attached "hook attached for a non-stock assignment"
check_picks "lat=idlemask lat/sub=idlemask batch=none other=none"
assert_gt "$(counter cgroup_wakeups)" 0 "cgroup_wakeups counted"

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
must cg_write "/wp160/many/g1 unset"
assert_match "$(wp_read cgroups | sed -n 2p)" " /wp160/many/g2$" \
	"an unset keeps the others in the order they were made"
must cg_write " /wp160/lat  mirror "
assert_match "$(wp_read cgroups | head -1)" " mirror assigned /wp160/lat$" \
	"reassigning an assigned cgroup in a full table works (whitespace around the fields)"
must cg_write "  clear"
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
assert_eq "$(counter cgroup_removed)" 1 "cgroup_removed"
wait_until 30 eval '[ "$(wp_read hook)" = detached ]' ||
	fail "hook not detached after the removal"
mkdir $top/gone || fail "mkdir gone again"
must cg_write "/wp160/gone idlecore"
assert_eq "$(wp_read cgroups | grep -c gone)" 1 "a new assignment of the path replaces its removed line"
rmdir $top/gone 2>/dev/null
must cg_write clear
# Removed, made again and assigned again before the module's poll (once
# a second) may have seen the removal: the old cgroup's assignment goes
# with its log line, and no removed line stays beside the new one.
mkdir $top/gone || fail "mkdir gone (3)"
must cg_write "/wp160/gone idlecore"
rem=$(counter cgroup_removed)
rmdir $top/gone || fail "rmdir gone (3)"
mkdir $top/gone || fail "mkdir gone (4)"
gid=$(stat -c %i $top/gone)
must cg_write "/wp160/gone prevfirst"
wait_until 30 eval "[ \"\$(counter cgroup_removed)\" -gt $rem ]" ||
	fail "the removal of the first /wp160/gone was not seen"
assert_eq "$(wp_read cgroups | grep gone)" "$gid prevfirst assigned /wp160/gone" \
	"cgroups after a removal and a new assignment of the same path"
rmdir $top/gone 2>/dev/null
must cg_write clear

# wakeplacectl against the real file and mount: a filesystem path, the
# JSON list, unset by a relative path, a config file applied, a bad one
# refused with nothing applied.
must "$WP_CTL" policy set prevfirst --cgroup "$top/other"
"$WP_CTL" -j policy list > "$WP_OUT/list.json" || fail "policy list -j failed"
jq -e '[.cgroups[] | select(.path == "/wp160/other" and .policy == "prevfirst" and .state == "assigned")] | length == 1' \
	"$WP_OUT/list.json" >/dev/null || fail "policy list -j: $(cat "$WP_OUT/list.json")"
pass "wakeplacectl policy set --cgroup, policy list -j"
must "$WP_CTL" policy unset --cgroup wp160/other
assert_eq "$(wp_read cgroups)" "" "wakeplacectl policy unset --cgroup"
conf=$WP_OUT/cgroups.conf
printf '# the test\n/wp160/lat idlecore\nwp160/other  mirror  # relative\n' > "$conf"
printf '/wp160/lat idlecore\n/wp160/nosuch mirror\n' > "$conf.bad"
must_fail "$WP_CTL" apply "$conf.bad"
assert_eq "$(wp_read cgroups)" "" "a bad config file applies nothing"
must "$WP_CTL" apply "$conf"
assert_eq "$(wp_read cgroups | awk '{ print $2, $3, $4 }' | sort | tr '\n' ,)" \
	"idlecore assigned /wp160/lat,mirror assigned /wp160/other," "wakeplacectl apply"

# Unload with assignments in use under load: messaging in lat (this
# shell moves there to start it, and back at exit).
check_picks "lat=idlecore other=mirror"
at_exit 'echo $$ > $cg/cgroup.procs'
echo $$ > $top/lat/cgroup.procs || fail "cannot move the test into lat"
bg_load -g 1 -l 20
echo $$ > $cg/cgroup.procs || fail "cannot move the test back"
wait_until 60 eval '[ "$(stat_of idlecore picks)" -gt 1000 ]' ||
	fail "idlecore placed no load in lat"
wp_unload
pass "unloaded with two assignments under load"
