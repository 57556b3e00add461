#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: scxdfl follows sched_ext's order: a sync wakeup to the otherwise empty waker's CPU; on SMT an idle core before an idle prev (sync: prev first), prev's idle sibling before other idle CPUs
# requires: module
# tier: core
#
# The rules, each in a situation built with wakeprobe (-S: a sync wakeup
# through a pipe) and read from the module's select_cpu events:
#  1. sync, prev busy, nothing but the waker on its CPU: the waker's CPU
#     (outcome local); the same wakeup without sync: an idle CPU of the
#     LLC (the control);
#  2. SMT only: prev is the idle sibling of the busy waker, another core
#     is idle: the idle core; with sync, prev;
#  3. SMT only: prev busy, its sibling idle, the waker's sibling idle and
#     first in the walk from prev: prev's sibling.
. "$WP_TESTS/lib.sh"

[ -x "$WP_ROOT/tests/tools/wakeprobe" ] || fail "tests/tools/wakeprobe not built"

# The quality counters below need the measurement on (off at load).
wp_load latency_sample=1
at_exit 'wp_loaded && rmmod wakeplace'
select_cpu_instance wp116


# 1. Prev busy in another LLC if there is one (else in the waker's), so
# that the waker's LLC has an idle CPU besides: E.  Only the picks whose
# target is in the waker's LLC count (wake_affine may choose prev's).
# The probe first brings down the wake_wide flip count its threads
# inherit from the shell (-D 8, see 112 and wakeprobe.c), or wake_wide
# may veto the waker's side for much of a run.
W=$(online_cpus | awk '{ print $1 }')
WL=$(cpulist_expand "$(cpus_of_llc "$W")" | xargs)
P=''
for c in $(online_cpus); do
	in_list "$c" "$WL" || { P=$c; break; }
done
[ -n "$P" ] || P=$(for c in $WL; do [ "$c" != "$W" ] && echo "$c"; done | tail -n 1)
E=$(for c in $WL; do [ "$c" != "$W" ] && [ "$c" != "$P" ] && echo "$c"; done | xargs)
[ -n "$P" ] && [ -n "$E" ] || skip "no LLC with room for rule 1"
log "rule 1: waker $W (LLC $WL), busy prev $P, idle CPUs of the waker's LLC: $E"
inW="index(\" $WL \", \" \" \$1 \" \")"
out=$(probe_picks scxdfl -w "$W" -p "$P" -s "$P" -n 40 -S -D 8)
assert_ge "$(pick_share "$out" "$inW")" 25 "sync: % of picks with the target in the waker's LLC"
out=$(awk "$inW" <<<"$out")
assert_ge "$(pick_share "$out" "\$2 == $W && \$3 == \"local\"")" 75 \
	"sync: % of picks on the waker's CPU $W, outcome local"
# The control: without sync, wake_affine's weights (not the rule) pick the
# target's LLC: the waker's for 37-40 of 41 picks once the flips are down
# (before -D, as few as 14% on 7.2, and the control was skipped below 10
# picks); pick_share() needs 10.
out=$(probe_picks scxdfl -w "$W" -p "$P" -s "$P" -n 40 -D 8)
out=$(awk "$inW" <<<"$out")
assert_ge "$(pick_share "$out" "index(\" $E \", \" \" \$2 \" \")")" 75 \
	"no sync (control): % of picks on an idle CPU of the waker's LLC"

# Placement quality is tracked for scxdfl as for every policy: rule 1
# moved the wakee off its busy prev.
assert_gt "$(stat_of scxdfl migrated)" 0 "scxdfl: migrated wakeups"
[ -n "$(stat_of scxdfl stacked)" ] || fail "stats/scxdfl has no stacked line"

if ! has_smt; then
	log "SKIP rules 2 and 3: they need SMT"
	exit 0
fi

# 2. prev idle beside the busy waker, a whole core idle elsewhere.
sib=$(cpulist_expand "$(smt_siblings "$W")" | xargs)
P=$(for c in $sib; do [ "$c" != "$W" ] && echo "$c"; done | head -n 1)
other=$(for c in $WL; do in_list "$c" "$sib" || echo "$c"; done | xargs)
[ -n "$P" ] && [ -n "$other" ] || skip "no sibling or no second core for rule 2"
log "rule 2: waker $W, idle prev $P (its sibling), other cores: $other"
out=$(probe_picks scxdfl -w "$W" -p "$P" -n 40)
assert_ge "$(pick_share "$out" "index(\" $other \", \" \" \$2 \" \")")" 75 \
	"no sync: % of picks on the idle core rather than prev"
out=$(probe_picks scxdfl -w "$W" -p "$P" -n 40 -S)
assert_ge "$(pick_share "$out" "\$2 == $P && \$3 == \"prev\"")" 75 \
	"sync: % of picks on idle prev $P, outcome prev"

# 3. Cores {W, W2} and {P, S}: W runs the waker, P spins, W2 and S are
# idle, and the walk from P (wrapping) meets W2 before S: a plain
# idle-CPU walk from prev would take W2.
W2=$P
n=$(nr_cpus)
P='' S=''
for p in $other; do
	for s in $(cpulist_expand "$(smt_siblings "$p")"); do
		[ "$s" = "$p" ] && continue
		if (((W2 - p + n) % n < (s - p + n) % n)); then
			P=$p S=$s
			break 2
		fi
	done
done
[ -n "$P" ] || skip "no CPU numbering for rule 3"
# Every other core keeps one CPU busy: a wholly idle core anywhere would
# come first (rule 2), as it does on any SMT machine with more than the
# two cores used here.
spin=(-s "$P")
for c in $(online_cpus); do
	in_list "$c" "$sib $P $S" && continue
	[ "$c" = "$(cpulist_expand "$(smt_siblings "$c")" | awk '{ print $1 }')" ] &&
		spin+=(-s "$c")
done
log "rule 3: waker $W, its idle sibling $W2, busy prev $P, its idle sibling $S; spinning: ${spin[*]}"
out=$(probe_picks scxdfl -w "$W" -p "$P" "${spin[@]}" -n 60)
# Only the picks of a wakee that slept on P count: unpinned while it waits
# behind P's spinner to go to sleep, it is at times pulled to an idle CPU
# by load balancing, and that CPU is then its prev.
onp=$(awk -v p="$P" '$4 == p' <<<"$out")
log "rule 3: $(grep -c . <<<"$onp") of $(grep -c . <<<"$out") picks with prev $P"
assert_ge "$(pick_share "$onp" "\$2 == $S")" 75 \
	"% of the picks with prev $P on its idle sibling $S rather than $W2"
