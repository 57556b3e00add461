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
rmdir $top/a/b $top/a/d $top/a $top/c $top 2>/dev/null
mkdir -p $top || fail "cannot create $top"
at_exit "rmdir $top/a/b $top/a/d $top/a $top/c $top"
echo +cpu > $top/cgroup.subtree_control || fail "cpu controller in $top"
mkdir $top/a $top/c && echo +cpu > $top/a/cgroup.subtree_control &&
	mkdir $top/a/b $top/a/d || fail "cannot create the groups"
# systemd's shape: a slice with a low weight holding a heavy service.
echo 100 > $top/a/cpu.weight && echo 1000 > $top/a/b/cpu.weight &&
	echo 30 > $top/c/cpu.weight || fail "cannot set cpu.weight"

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
	in_group $top/a/b perf bench sched messaging -g 1 -l 60
	in_group $top/a/d perf bench sched pipe -l 4000
	in_group $top/c perf bench sched messaging -g 1 -l 30
	for p in "${PIDS[@]}"; do
		wait "$p" || fail "workload failed in round $round"
	done
	PIDS=()
	read -r cmp agree < <(shadow_counts)
	[ "$cmp" -ge 4000 ] && break
done
read -r cmp agree < <(shadow_counts)
pct=$(awk -v a="$agree" -v c="$cmp" 'BEGIN { printf "%.2f", 100 * a / c }')
log "cgroups: mirror agrees with stock on $agree of $cmp picks ($pct%) after $round rounds"
echo "agreement $pct $agree $cmp" > "$WP_OUT/agreement"
assert_ge "$cmp" 2000 "picks compared"
assert_le "$agree" "$cmp" "agreed <= compared"
assert_ge $((agree * 10000 / cmp)) 9900 "agreement in 1/100 %"
wp_write shadow off || fail "shadow off refused"
