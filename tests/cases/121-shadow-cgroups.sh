#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: shadow mirror under stock agrees with the kernel on >= 99% of picks with the load in nested cgroups (h_load), and never counts more agreements than comparisons
# requires: module perf
. "$WP_TESTS/lib.sh"

# The kernel's wake_affine_weight() scales each task's load by its group's
# hierarchical load (task_h_load), which it refreshes in that very call.
# With the load in nested cgroups of different weights, as systemd lays
# out a box, a copy that reads the stored h_load picks this CPU or prev
# differently from stock.

# One read of stats/mirror: counters read in two reads are two moments.
shadow_counts() {
	wp_read stats/mirror | awk '$1 == "shadow_compared" { c = $2 }
		$1 == "shadow_agreed" { a = $2 } END { print c + 0, a + 0 }'
}

cg=/sys/fs/cgroup
if ! [ -e $cg/cgroup.subtree_control ]; then
	mount -t cgroup2 none $cg 2>/dev/null ||
		fail "cannot mount cgroup v2 on $cg"
fi
grep -qw cpu $cg/cgroup.controllers || fail "no cpu controller in cgroup v2"
grep -qw cpu $cg/cgroup.subtree_control || echo +cpu > $cg/cgroup.subtree_control ||
	fail "cannot enable the cpu controller"
top=$cg/wp121
rmdir $top/r*/a/b $top/r*/a/d $top/r*/a $top/r*/c $top/r* $top 2>/dev/null
mkdir -p $top || fail "cannot create $top"
echo +cpu > $top/cgroup.subtree_control || fail "cpu controller in $top"
at_exit 'rmdir $top/r*/a/b $top/r*/a/d $top/r*/a $top/r*/c $top/r* $top 2>/dev/null'

# groups DIR: systemd's shape, a slice with a low weight holding a heavy
# service: DIR/a (100) with a/b (1000) and a/d (100), DIR/c (30).  Fresh
# groups each round: a group's h_load on a CPU stays 0 until the kernel
# first computes it there.
groups() {
	mkdir $1 && echo +cpu > $1/cgroup.subtree_control &&
		mkdir $1/a $1/c && echo +cpu > $1/a/cgroup.subtree_control &&
		mkdir $1/a/b $1/a/d || fail "cannot create the groups in $1"
	echo 100 > $1/a/cpu.weight && echo 1000 > $1/a/b/cpu.weight &&
		echo 30 > $1/c/cpu.weight || fail "cannot set cpu.weight"
}

# in_group GROUP CMD...: run CMD in GROUP, in the background.
PIDS=()
in_group() {
	local g=$1
	shift
	bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$g" "$@" \
		</dev/null >/dev/null 2>&1 &
	PIDS+=("$!")
}
kill_workers() {
	local p
	for p in "${PIDS[@]}"; do
		pkill -KILL -P "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	PIDS=()
}
at_exit kill_workers

wp_load
at_exit 'wp_loaded && rmmod wakeplace'
assert_eq "$(wp_read policy)" stock "policy"
wp_write shadow mirror || fail "shadow mirror refused"
wp_write stats/reset all || fail "stats reset refused"

# Rounds of the three groups' load until enough picks are compared; the
# round count bounds the test, not a clock.
cmp=0 agree=0
for round in 1 2 3 4 5 6 7 8; do
	g=$top/r$round
	groups $g
	in_group $g/a/b perf bench sched messaging -g 1 -l 30
	in_group $g/a/d perf bench sched pipe -l 2000
	in_group $g/c perf bench sched messaging -g 1 -l 15
	for p in "${PIDS[@]}"; do
		wait "$p" || fail "workload failed in round $round"
	done
	PIDS=()
	rmdir $g/a/b $g/a/d $g/a $g/c $g 2>/dev/null
	read -r cmp agree < <(shadow_counts)
	[ "$round" -ge 4 ] && [ "$cmp" -ge 4000 ] && break
done
read -r cmp agree < <(shadow_counts)
pct=$(awk -v a="$agree" -v c="$cmp" 'BEGIN { printf "%.2f", 100 * a / c }')
log "cgroups: mirror agrees with stock on $agree of $cmp picks ($pct%) after $round rounds"
echo "agreement $pct $agree $cmp" > "$WP_OUT/agreement"
assert_ge "$cmp" 2000 "picks compared"
assert_le "$agree" "$cmp" "agreed <= compared"
assert_ge $((agree * 10000 / cmp)) 9900 "agreement in 1/100 %"
wp_write shadow off || fail "shadow off refused"
