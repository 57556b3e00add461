#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: measurement per cgroup assignment: with latency tracking on, each assignment counts its tasks' tracked wakeups (quality keys of cgroup_stats, a histogram in cgroup_latency_hist), a stock assignment's wakeups are stock's (not the machine-wide policy's handback row) even with the hook on; the shadow scoped to one cgroup compares only that cgroup's wakeups, compares nothing once the cgroup is removed, and bad scopes are refused
# requires: module topo=llc2
. "$WP_TESTS/lib.sh"

cg_tree wp161 lat other sc
top=$CG_TOP

wp_load detach_ms=100
at_exit 'wp_loaded && rmmod wakeplace'

cg_waker $top/lat
cg_waker $top/other
wait_until 60 eval '[ "$(cat $top/lat/cgroup.procs $top/other/cgroup.procs | wc -l)" -ge 4 ]' ||
	fail "the wakers did not start in their groups"

# cg_stat ID KEY...: values of one read of the assignment's cgroup_stats
# line, in KEY order.
cg_stat() {
	local id=$1
	shift
	wp_read cgroup_stats | awk -v id="$id" -v keys="$*" '
		$1 == id {
			for (i = 2; i < NF; i += 2)
				v[$i] = $(i + 1)
			n = split(keys, k, " ")
			for (j = 1; j <= n; j++)
				printf "%s%s", v[k[j]] + 0, j < n ? " " : "\n"
		}'
}
# cg_hist ID: the sum of the counts of the assignment's histogram line,
# then "bad" if an index is not the middle of its run of 8.
cg_hist() {
	wp_read cgroup_latency_hist | awk -v id="$1" '
		$1 == id {
			n = split($2, f, ";")
			if (f[1] != "L6ns")
				bad = 1
			for (i = 2; i <= n; i++) {
				split(f[i], b, ":")
				s += b[2]
				if (b[1] % 8 != 4)
					bad = 1
			}
			print s + 0, bad ? "bad" : "ok"
		}'
}

must wp_write policy prevfirst
must wp_write cgroups "/wp161/lat idlemask"
must wp_write cgroups "/wp161/other stock"
wp_hook_settle
lid=$(stat -c %i $top/lat)
oid=$(stat -c %i $top/other)
assert_eq "$(wp_read hook)" attached "hook attached"

# Tracking is off at load: the assignments' quality keys stay 0.
sleep 1
read -r t u <<<"$(cg_stat "$lid" tracked unplaced)"
assert_eq "$t $u" "0 0" "nothing tracked while measurement is off"
assert_eq "$(cg_hist "$lid")" "0 ok" "empty histogram while measurement is off"

# Both read while nothing is tracked, before and after: exact deltas.
read -r pt0 <<<"$(stat_of stock tracked)"
read -r ot0 <<<"$(cg_stat "$oid" tracked)"
must wp_write latency_sample 1
wait_until 120 eval '[ "$(cg_stat "$lid" tracked)" -gt 200 ] && [ "$(cg_stat "$oid" tracked)" -gt 200 ]' ||
	fail "assignments tracked too few wakeups: lat $(cg_stat "$lid" tracked), other $(cg_stat "$oid" tracked)"
must wp_write latency_sample 0
read -r pt1 <<<"$(stat_of stock tracked)"
read -r ot1 <<<"$(cg_stat "$oid" tracked)"

read -r t u s m d r <<<"$(cg_stat "$lid" tracked unplaced stacked missed_idle double_picks redirected)"
log "lat: tracked $t unplaced $u stacked $s missed_idle $m double_picks $d redirected $r"
assert_le "$s" "$t" "lat: stacked <= tracked"
assert_le "$m" "$s" "lat: missed_idle <= stacked"
read -r hs hok <<<"$(cg_hist "$lid")"
assert_eq "$hok" ok "lat's histogram: L6ns, counts at the middle of each run of 8"
assert_eq "$hs" "$t" "lat's histogram holds its tracked wakeups"
assert_gt "$r" 0 "lat: wakeups redirected by idlemask"

# The stock assignment: counted (by the probes, the hook places none of
# them), and in stock's rows, not the machine-wide policy's: only other's
# tasks are on stock here (the rest of the machine is on prevfirst).
read -r r <<<"$(cg_stat "$oid" redirected)"
assert_eq "$r" 0 "other (stock): nothing redirected"
ot=$((ot1 - ot0)) st=$((pt1 - pt0))
log "tracked while measuring: other's assignment $ot, stock's stats $st"
assert_gt "$ot" 0 "the stock assignment's tracked wakeups"
assert_eq "$st" "$ot" "stock's stats count the stock assignment's wakeups, and no other"

# The shadow scoped to lat: it compares lat's wakeups only.
assert_eq "$(wp_read shadow_cgroup)" none "no scope at load"
must wp_write shadow_cgroup /wp161/lat
assert_eq "$(wp_read shadow_cgroup)" /wp161/lat "scope reads back"
must wp_write shadow mirror
# cmp_red: mirror's shadow_compared and lat's redirected, read by one
# cat a moment apart (separate forks would be a TCG scheduling apart).
cmp_red() {
	cat "$(wp_sysfs stats/mirror)" "$(wp_sysfs cgroup_stats)" |
		awk -v id="$lid" '
			$1 == "shadow_compared" { c = $2 }
			$1 == id { for (i = 2; i < NF; i += 2) if ($i == "redirected") r = $(i + 1) }
			END { print c + 0, r + 0 }'
}
read -r c0 r0 <<<"$(cmp_red)"
sleep 2
read -r c1 r1 <<<"$(cmp_red)"
log "scope lat: compared $((c1 - c0)), lat redirected $((r1 - r0))"
assert_gt "$((c1 - c0))" 50 "the scoped shadow compares lat's wakeups"
# Read one after the other while wakeups go on: a few apart at most.
assert_le "$((c1 - c0))" "$((r1 - r0 + 16))" "the scoped shadow compares nothing beyond lat's wakeups"

# Scoped to other (stock): compared after the fact, as with stock active.
must wp_write shadow_cgroup /wp161/other
c0=$(stat_of mirror shadow_compared)
sleep 2
c1=$(stat_of mirror shadow_compared)
assert_gt "$((c1 - c0))" 50 "the shadow scoped to a stock assignment compares its wakeups"

# A scope whose cgroup goes: nothing compared, one log line, read says so.
must wp_write shadow_cgroup /wp161/sc
rmdir $top/sc || fail "rmdir sc"
wait_until 30 eval '[ "$(wp_read shadow_cgroup)" = "removed /wp161/sc" ]' ||
	fail "shadow_cgroup reads $(wp_read shadow_cgroup) after the removal"
pass "a removed scope reads removed"
dmesg_since_start | grep -q "wakeplace: cgroup /wp161/sc was removed: the shadow compares nothing" ||
	fail "no log line for the removed scope"
c0=$(stat_of mirror shadow_compared)
sleep 1
c1=$(stat_of mirror shadow_compared)
assert_eq "$((c1 - c0))" 0 "a removed scope compares nothing"

# Refused scopes leave it as it was.
must_fail wp_write shadow_cgroup /wp161/nosuch
must_fail wp_write shadow_cgroup wp161/lat
must_fail wp_write shadow_cgroup /wp161/../wp161
assert_eq "$(wp_read shadow_cgroup)" "removed /wp161/sc" "refused scopes changed nothing"
must wp_write shadow_cgroup none
c0=$(stat_of mirror shadow_compared)
sleep 1
c1=$(stat_of mirror shadow_compared)
assert_gt "$((c1 - c0))" 50 "no scope: the shadow compares every cgroup's wakeups"

# Unload with a scope and assignments in place.
must wp_write shadow_cgroup /wp161/lat
wp_unload
pass "unloaded with a shadow scope and assignments"
