#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: eager never hands one CPU to two wakees of a burst, takes prev first, then its core, then the LLC, and counts each level in policies/eager/counters
# requires: module
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

wp_load policy=eager
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
read -r picks found twice rounds < <(awk -v tids=" $tids " '
	function val(k) {
		if (!match($0, " " k "=[^ ]+"))
			return ""
		return substr($0, RSTART + length(k) + 2, RLENGTH - length(k) - 2)
	}
	/wakeburst end/ { exit }
	/wakeburst round / { rounds++; delete seen; next }
	/select_cpu: policy=eager / {
		if (!index(tids, " " val("pid") " "))
			next
		picks++
		if (val("outcome") == "fallback")
			next
		found++
		c = val("chosen")
		if (c in seen)
			twice++
		seen[c] = 1
	}
	END { print picks + 0, found + 0, twice + 0, rounds + 0 }' "$inst/trace")
log "traced: $picks picks of the wakees in $rounds rounds, $found found an idle CPU, $twice picked a CPU again"
assert_eq "$rounds" "$R" "rounds marked in the trace"
assert_ge "$picks" $((K * R * 3 / 4)) "traced picks of the wakees"
assert_eq "$twice" 0 "CPUs picked twice in a round"
assert_ge $((found * 100 / picks)) 75 "% of the wakees' picks on an idle CPU"
assert_ge "${d[prev]}" $((R * 3 / 4)) "prev level hits (one wakee per round)"
if has_smt; then
	assert_ge "${d[core]}" $((R * 3 / 4)) "core level hits (prev's idle sibling)"
else
	assert_ge "${d[llc]}" $((R * 3 / 4)) "llc level hits"
fi
