#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: eager never hands one CPU to two wakees of a burst, takes prev first, then its core, then the LLC, and counts each level in policies/eager/counters
# requires: module
# tier: core
#
# wakeburst: a waker wakes K sleepers, all last run on prev P, with one
# FUTEX_WAKE, so their picks follow each other before any of them runs; K
# is the number of idle CPUs of P's LLC.  Each round is delimited in the
# trace by the tool's markers (the wakeups that end the wakees come after
# "wakeburst end").  The rules:
#  1. no CPU is picked twice in a round (fallbacks to the target apart),
#     and most picks find an idle CPU;
#  2. the first level, prev, takes one wakee per round: its counter moves
#     by about the number of rounds;
#  3. the next wakees go outward: on SMT, P's idle sibling (core), else
#     the rest of the LLC (llc).
. "$WP_TESTS/lib.sh"

burst=$WP_ROOT/tests/tools/wakeburst
[ -x "$burst" ] || fail "tests/tools/wakeburst not built"

# The quality counters below need the measurement on (off at load).
wp_load policy=eager latency_sample=1
at_exit 'wp_loaded && rmmod wakeplace'
select_cpu_instance wp117
inst=$WP_TRACE_INST
level() { wp_read policies/eager/counters | awk -v k="$1" '$1 == k { print $2 }'; }
for l in prev target core cluster llc none; do
	[ -n "$(level $l)" ] || fail "policies/eager/counters has no $l line"
done

# W: the waker; P: on another LLC if there is one, else on another core.
W=$(online_cpus | awk '{ print $1 }')
WL=$(cpulist_expand "$(cpus_of_llc "$W")" | xargs)
P=''
for c in $(online_cpus); do
	[[ " $WL " == *" $c "* ]] || { P=$c; break; }
done
if [ -z "$P" ]; then
	sib=" $(cpulist_expand "$(smt_siblings "$W")" | xargs) "
	for c in $WL; do
		[[ "$sib" == *" $c "* ]] || { P=$c; break; }
	done
fi
[ -n "$P" ] || skip "no second LLC nor second core"
K=$(for c in $(cpulist_expand "$(cpus_of_llc "$P")"); do [ "$c" != "$W" ] && echo "$c"; done | wc -l)
[ "$K" -ge 2 ] || skip "P's LLC has fewer than 2 idle CPUs"
R=20
log "waker $W, prev $P, $K wakees, $R rounds"

wp_write stats/reset eager || fail "stats/reset eager refused"
declare -A l0
for l in prev target core cluster llc none; do l0[$l]=$(level $l); done
echo > "$inst/trace"
echo 1 > "$inst/tracing_on"
out=$("$burst" -w "$W" -p "$P" -k "$K" -n "$R" -m "$inst/trace_marker") ||
	fail "wakeburst failed"
echo 0 > "$inst/tracing_on"
tids=$(awk '$1 == "wakee" { print $2 }' <<<"$out" | xargs)
[ -n "$tids" ] || fail "wakeburst did not print its wakees"
declare -A d
for l in prev target core cluster llc none; do
	d[$l]=$(($(level $l) - ${l0[$l]}))
done
log "level hits: $(for l in prev target core cluster llc none; do printf '%s %s ' $l "${d[$l]}"; done)"
log "rounds in which the wakees ran on distinct CPUs: $(awk '$1 == "distinct" { print $2 }' <<<"$out") of $R"

# Per round: the wakees' picks; "twice" counts a CPU picked again in a
# round by a pick that was not a fallback.
# first: rounds whose first pick took prev P (level prev); mask: picks
# found past prev and target (levels core, cluster, llc); sib: rounds
# whose second pick is an SMT sibling of P (the LLC level, lowest CPU
# first, would give the waker's sibling on smt: 0 1 | 2 3, W 0, P 2).
sibs=" $(cpulist_expand "$(smt_siblings "$P")" | xargs) "
read -r picks found twice rounds first mask sib < <(burst_picks eager "$tids" |
	awk -v p="$P" -v sibs="$sibs" '
	$1 == "round" { rounds++; delete seen; n = 0; next }
	{
		picks++
		o = $4
		c = $3
		if (n == 0 && o == "prev" && c == p)
			first++
		if (o == "mask")
			mask++
		if (n++ == 1 && c != p && index(sibs, " " c " "))
			sib++
		if (o == "fallback")
			next
		found++
		if (c in seen)
			twice++
		seen[c] = 1
	}
	END { print picks + 0, found + 0, twice + 0, rounds + 0, first + 0, mask + 0, sib + 0 }')
log "traced: $picks picks of the wakees in $rounds rounds, $found found an idle CPU, $twice picked a CPU again; $first rounds began with prev, $mask picks past target, $sib second picks on a sibling of prev"
assert_eq "$rounds" "$R" "rounds marked in the trace"
assert_ge "$picks" $((K * R * 3 / 4)) "traced picks of the wakees"
assert_eq "$twice" 0 "CPUs picked twice in a round"
assert_ge $((found * 100 / picks)) 75 "% of the wakees' picks on an idle CPU"
assert_ge "$first" $((R * 3 / 4)) "rounds whose first pick is prev"
assert_ge "${d[prev]}" "$first" "prev level hits (at least the wakees')"
# Placement quality is tracked for eager as for every policy (latency.c):
# the wakees left prev, one pick in a round at most stays there.
assert_gt "$(stat_of eager tracked)" 0 "eager: tracked wakeups"
assert_gt "$(stat_of eager migrated)" 0 "eager: migrated wakeups"
[ -n "$(stat_of eager stacked)" ] || fail "stats/eager has no stacked line"
assert_ge "$mask" $((R * 3 / 4)) "the wakees' picks past prev and target"
assert_ge $((d[core] + d[cluster] + d[llc])) "$mask" "core, cluster and llc level hits (at least the wakees')"
if has_smt && in_list "$P" "$WL"; then
	# The second wakee of a round: prev's idle sibling, before the LLC.
	# Only where prev shares the waker's LLC: with P on another LLC,
	# wake_affine may put the target on the waker's side, whose LLC eager
	# searches then (prev is not in it).
	assert_ge "$sib" $((R * 3 / 4)) "rounds whose second pick is prev's idle sibling"
	assert_ge "${d[core]}" "$sib" "core level hits (at least the wakees')"
elif has_smt; then
	log "prev's sibling rule not checked: prev $P is not in the waker's LLC"
fi
