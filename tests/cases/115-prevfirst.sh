#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: prevfirst takes an idle prev before anything else (on SMT: before the idle core idlecore takes), and with prev busy searches like idlecore
# requires: module
# tier: core
#
# The rules, each in a situation built with wakeprobe and read from the
# module's select_cpu events for the wakee:
#  1. prev idle and in target's LLC: prevfirst picks prev (outcome prev);
#  2. SMT only: prev is the idle sibling of the busy waker and another core
#     is idle: prevfirst picks prev, idlecore the idle core (the control
#     that shows the situation tells the two orders apart);
#  3. prev busy: an idle CPU of the target's LLC, as idlecore.
. "$WP_TESTS/lib.sh"

[ -x "$WP_ROOT/tests/tools/wakeprobe" ] || fail "tests/tools/wakeprobe not built"

# The quality counters below need the measurement on (off at load).
wp_load latency_sample=1
at_exit 'wp_loaded && rmmod wakeplace'
select_cpu_instance wp115


# 1. prev idle next to the waker, in one LLC.
W='' P=''
for w in $(online_cpus); do
	for p in $(cpulist_expand "$(cpus_of_llc "$w")"); do
		[ "$p" != "$w" ] && W=$w P=$p && break 2
	done
done
[ -n "$W" ] || skip "no LLC with two CPUs"
log "rule 1: waker $W, idle prev $P"
out=$(probe_picks prevfirst -w "$W" -p "$P" -n 40)
assert_ge "$(pick_share "$out" "\$2 == $P && \$3 == \"prev\"")" 75 \
	"prevfirst: % of picks on idle prev $P, outcome prev"

# 2. SMT: prev idle beside the busy waker, a whole core idle elsewhere.
if has_smt; then
	W=$(online_cpus | awk '{ print $1 }')
	sib=$(cpulist_expand "$(smt_siblings "$W")")
	P=$(for c in $sib; do [ "$c" != "$W" ] && echo "$c"; done | head -n 1)
	other=
	for c in $(cpulist_expand "$(cpus_of_llc "$W")"); do
		in_list "$c" "$sib" || other="$other $c"
	done
	if [ -n "$P" ] && [ -n "$other" ]; then
		log "rule 2: waker $W, idle prev $P (its sibling), other cores:$other"
		out=$(probe_picks prevfirst -w "$W" -p "$P" -n 40)
		assert_ge "$(pick_share "$out" "\$2 == $P")" 75 \
			"prevfirst: % of picks on prev $P rather than an idle core"
		out=$(probe_picks idlecore -w "$W" -p "$P" -n 40)
		assert_ge "$(pick_share "$out" "index(\" $other \", \" \" \$2 \" \")")" 75 \
			"idlecore (control): % of picks on the idle core"
	else
		log "SKIP rule 2: no sibling or no second core in the waker's LLC"
	fi
else
	log "SKIP rule 2 (prev before an idle core): needs SMT"
fi

# 3. prev busy: the idle CPUs of W's and P's LLCs but W and P (as 110).
W='' P='' E=''
for w in $(online_cpus); do
	for p in $(online_cpus); do
		[ "$p" = "$w" ] && continue
		e=$(for c in $(cpulist_expand "$(cpus_of_llc "$w")") \
			$(cpulist_expand "$(cpus_of_llc "$p")"); do
			[ "$c" != "$w" ] && [ "$c" != "$p" ] && echo "$c"
		done | sort -nu | xargs)
		[ -n "$e" ] && W=$w P=$p E=$e && break 2
	done
done
[ -n "$W" ] || skip "no LLC with room for rule 3"
log "rule 3: waker $W, busy prev $P, idle CPUs: $E"
out=$(probe_picks prevfirst -w "$W" -p "$P" -s "$P" -n 40)
assert_ge "$(pick_share "$out" "index(\" $E \", \" \" \$2 \" \")")" 75 \
	"prevfirst: % of picks on an idle CPU of the target's LLC when prev is busy"
# Placement quality is tracked for prevfirst as for every policy: rule 3
# moved the wakee off its busy prev.
assert_gt "$(stat_of prevfirst migrated)" 0 "prevfirst: migrated wakeups"
[ -n "$(stat_of prevfirst stacked)" ] || fail "stats/prevfirst has no stacked line"
