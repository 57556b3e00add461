#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: the cgroup lookup's cache: once the assignments settle a steady task's lookups hit it (cgroup_lookup_misses stops growing with the wakeups), a move between cgroups makes every kept answer stale (misses, then hits again), and a task moved in turn into new cgroups (assigned and not, each released before the next is made, so css_sets come back at freed addresses) is placed by its cgroup's assignment, never by a kept answer from before its move; the test build's audit finds no kept answer that the walk does not give; with no assignment left a move or an exit runs no probe
# requires: module perf topo=llc2
# tier: core
. "$WP_TESTS/lib.sh"

cg_tree wp162 a park
top=$CG_TOP

wp_load detach_ms=100
at_exit 'wp_loaded && rmmod wakeplace'
select_cpu_instance wp162

# Machine-wide mirror, idlemask for a and below: both trace their picks.
must wp_write policy mirror
must wp_write cgroups "/wp162/a idlemask"
wp_hook_settle

cg_waker $top/a
wait_until 60 eval '[ "$(wc -l < $top/a/cgroup.procs)" -ge 2 ]' ||
	fail "the pipe pair did not start in a"
PAIR=$(cat $top/a/cgroup.procs)

# dying_done: no removed cgroup under the tree waits for its release.
dying_done() { [ "$(awk '$1 == "nr_dying_descendants" { print $2 }' $top/cgroup.stat)" = 0 ]; }

# miss_share SECONDS: the % of the hook's wakeups in SECONDS that missed
# the cache (100 with no wakeup).
miss_share() {
	local w0 m0 w1 m1
	w0=$(counter wakeups) m0=$(counter cgroup_lookup_misses)
	sleep "$1"
	w1=$(counter wakeups) m1=$(counter cgroup_lookup_misses)
	if [ "$w1" -le "$w0" ]; then
		echo 100
	else
		echo $(((m1 - m0) * 100 / (w1 - w0)))
	fi
}

# settled_share WHAT: wait (60 s at most) until at most 10% of 2 s of
# wakeups miss the cache (an uncached lookup misses every time).
settled_share() {
	local i share=100
	for ((i = 0; i < 30; i++)); do
		share=$(miss_share 2)
		[ "$share" -gt 10 ] || break
	done
	assert_le "$share" 10 "% of wakeups that missed the cache $1"
}

# 1. The cache goes on (its probes register in a work) and holds.
settled_share "with the assignments settled"

# move_pair GROUP: the pair into GROUP (a path under the tree).
move_pair() {
	local p
	for p in $PAIR; do
		echo "$p" > "$top/$1/cgroup.procs" || fail "cannot move $p into $1"
	done
}

# 2. A task moved between cgroups: its next lookups miss (its css_set
# changed, and the move made every kept answer stale), then hit again.
m0=$(counter cgroup_lookup_misses)
move_pair park
wait_until 30 eval '[ "$(counter cgroup_lookup_misses)" -gt "$m0" ]' ||
	fail "no lookup missed after a move: kept answers outlived it"
settled_share "after the move"
pass "a move made the kept answers stale, the cache filled again"

# pair_picks GROUP POLICY: the pair, in GROUP, placed only by POLICY (and
# at least once) over a second of tracing, started after two of its
# wakeups (none from before the move still in flight).
pair_picks() {
	local inst=$WP_TRACE_INST map=$WP_OUT/threads.map w0
	w0=$(counter wakeups)
	wait_until 30 eval '[ "$(counter wakeups)" -ge $((w0 + 2)) ]' ||
		fail "no wakeup in 30 s"
	sed "s|\$| $1 $2|" "$top/$1/cgroup.threads" > "$map"
	echo > "$inst/trace"
	echo 1 > "$inst/tracing_on"
	sleep 1
	echo 0 > "$inst/tracing_on"
	group_picks_read "$map" "$inst/trace"
	[ -z "$GP_RES" ] || fail "round $r, $1: $GP_RES"
	PICKS=$((PICKS + GP_N))
}

# 3. The pair taken through new cgroups, under the unassigned top and
# under a in turn: stopped in one (its answer kept), moved to park, that
# cgroup removed and released (the css_set the pair left is freed), the
# next one made, the pair moved there (a new css_set, often at the freed
# one's address) and woken.  A kept answer that a move does not make
# stale would place it by the cgroup it left.
PICKS=0
prev=
for ((r = 1; r <= 10; r++)); do
	for g in u$r a/v$r; do
		if [ -n "$prev" ]; then
			kill -STOP $PAIR
			move_pair park
			rmdir "$top/$prev" || fail "cannot remove $prev"
			wait_until 60 dying_done || fail "round $r: $prev not released in 60 s"
			# Its css_set is freed a grace period after the move.
			sleep 0.3
		fi
		mkdir "$top/$g" || fail "cannot create $g"
		move_pair "$g"
		kill -CONT $PAIR
		if [ "${g#a/}" = "$g" ]; then
			pair_picks "$g" mirror
		else
			pair_picks "$g" idlemask
		fi
		prev=$g
	done
done
assert_ge "$PICKS" 20 "picks checked over 20 cgroups"
pass "the pair moved through 20 new cgroups: placed by each one's assignment ($PICKS picks)"

# 4. No assignment left (and stock machine-wide): the cache's probes go
# too; a task moved, or one that exits, runs no probe of the module.
must wp_write cgroups "/wp162/a unset"
must wp_write policy stock
quiet() {
	local p0
	p0=$(counter probe_hits)
	move_pair park
	/bin/true
	sleep 0.2
	[ "$(counter probe_hits)" = "$p0" ]
}
wait_until 30 quiet ||
	fail "probe_hits still moved at a task's move and exit 30 s after the last assignment went"
pass "no probe on moves and exits once the assignments are gone"

assert_eq "$(counter cgroup_cache_wrong)" 0 "kept answers the walk did not give (audited)"
assert_eq "$(counter corrected)" 0 "corrected"
assert_eq "$(counter reverted)" 0 "reverted"
