#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: idlemask and idlecore: a wakeup that finds nothing idle and whose target already has a wakee on its way goes to another CPU of the LLC (spread); with spread 0 it stays on the target; wakeplacectl policy show reports the same counters
# requires: module ctl jq
# tier: core
#
# wakeburst with the waker W as the wakees' prev and a spinner on every
# other online CPU: at the burst W runs the waker and the others their
# spinners, so the idle mask is empty and every pick of the K wakees falls
# back, to the target W (prev, and the waker's CPU).  The wakees placed on
# W wait there until the waker leaves the burst's FUTEX_WAKE, so each pick
# after the first finds a wakee on its way to W.  Per round, a
# "collision" is a pick whose target is a CPU an earlier pick of the round
# chose.
#  1. spread 4: collisions go to other CPUs of the LLC, each CPU gets one
#     wakee per round, and policies/<policy>/counters counts them;
#  2. spread 0 (the default): collisions stay on the target (the kernel's
#     fallback), so W gets them all, and nothing is counted as spread;
#  3. with three CPUs or more in the LLC, spread 1 and the wakees not
#     allowed on X, the LLC's next CPU after W: the walk passes X over
#     without spending its budget of one, so a collision per round still
#     goes to the CPU after X, and no pick is X.
. "$WP_TESTS/lib.sh"

burst=$WP_ROOT/tests/tools/wakeburst
[ -x "$burst" ] || fail "tests/tools/wakeburst not built"

wp_load policy=idlemask
at_exit 'wp_loaded && rmmod wakeplace'
select_cpu_instance wp109
inst=$WP_TRACE_INST

# W: the waker and the wakees' prev; its LLC needs another CPU.
W=$(online_cpus | awk '{ print $1 }')
WL=$(cpulist_expand "$(cpus_of_llc "$W")" | xargs)
K=$(wc -w <<<"$WL")
[ "$K" -ge 2 ] || skip "the waker's LLC has one CPU"
[ "$K" -le 4 ] || K=4
R=30
spin=()
for c in $(online_cpus); do
	[ "$c" != "$W" ] && spin+=(-s "$c")
done
log "waker and prev $W, LLC $WL, $K wakees, $R rounds, spinners on all but $W"

hits() { wp_read "policies/$1/counters" | awk -v k="$2" '$1 == k { print $2 }'; }

# run POLICY SPREAD [X]: one wakeburst under POLICY with spread SPREAD
# (X: the wakees not allowed there); sets picks fb coll moved dup mdup
# rounds onx (see the header and the awk; onx: picks of X) and the
# counters' deltas d_inbound d_spread.
run() {
	local pol=$1 out tids i0 s0 x=()
	wp_write policy "$pol" || fail "switch to $pol refused"
	wp_write "policies/$pol/spread" "$2" || fail "$pol: spread $2 refused"
	i0=$(hits "$pol" inbound) s0=$(hits "$pol" spread)
	if [ -z "$i0" ] || [ -z "$s0" ]; then
		fail "policies/$pol/counters has no inbound or spread line"
	fi
	echo > "$inst/trace"
	echo 1 > "$inst/tracing_on"
	[ -z "${3:-}" ] || x=(-x "$3")
	out=$("$burst" -w "$W" -p "$W" -k "$K" -n "$R" "${spin[@]}" "${x[@]}" \
		-m "$inst/trace_marker") || fail "wakeburst failed"
	echo 0 > "$inst/tracing_on"
	d_inbound=$(($(hits "$pol" inbound) - i0))
	d_spread=$(($(hits "$pol" spread) - s0))
	tids=$(awk '$1 == "wakee" { print $2 }' <<<"$out" | xargs)
	[ -n "$tids" ] || fail "wakeburst did not print its wakees"
	read -r picks fb coll moved dup mdup rounds onx < <(burst_picks "$pol" "$tids" | awk -v x="${3:--1}" '
		$1 == "round" { rounds++; delete got; next }
		{
			picks++
			t = $2
			c = $3
			if (c == x)
				onx++
			if ($4 == "fallback")
				fb++
			if (t in got) {
				coll++
				if (c != t)
					moved++
			}
			if (c in got) {
				dup++
				if (c != t)
					mdup++
			}
			got[c] = 1
		}
		END { print picks + 0, fb + 0, coll + 0, moved + 0, dup + 0, mdup + 0, rounds + 0, onx + 0 }')
	log "$pol spread $2${3:+ (not allowed on $3)}: $picks picks in $rounds rounds, $fb fallbacks, $coll collisions, $moved moved, $dup CPUs picked again ($mdup of them away from the target); counters: inbound +$d_inbound, spread +$d_spread"
	assert_eq "$rounds" "$R" "$pol spread $2: rounds marked in the trace"
	assert_ge "$picks" $((K * R * 3 / 4)) "$pol spread $2: traced picks of the wakees"
	assert_ge $((fb * 100 / picks)) 90 "$pol spread $2: % of the wakees' picks that fell back"
	assert_ge "$coll" $((R * (K - 1) * 3 / 4)) "$pol spread $2: collisions (a target an earlier pick of the round chose)"
}

for pol in idlemask idlecore; do
	assert_eq "$(wp_read "policies/$pol/spread")" 0 "$pol: spread at load"
	run "$pol" 4
	# Not all: a target that switched in between (the waker preempted by
	# a wakee) has no wakee waiting, and its fallback rightly stays.
	assert_ge $((moved * 100 / coll)) 50 "$pol spread 4: % of collisions sent elsewhere"
	# But a CPU it sends one to never has one on its way already.
	assert_le "$mdup" $((R / 10)) "$pol spread 4: picks sent away from the target to a CPU the round already chose"
	assert_ge "$d_spread" "$moved" "$pol spread 4: counters spread (at least the wakees' moved picks)"
	assert_ge "$d_inbound" "$moved" "$pol spread 4: counters inbound (at least the wakees' moved picks)"

	run "$pol" 0
	assert_eq "$moved" 0 "$pol spread 0: collisions sent elsewhere"
	assert_ge "$dup" $((R * (K - 1) * 3 / 4)) "$pol spread 0: second wakees of a CPU in a round"
	assert_eq "$d_spread" 0 "$pol spread 0: counters spread"
	assert_ge "$d_inbound" $((coll * 3 / 4)) "$pol spread 0: counters inbound (the collisions, a few of whose targets may have switched first)"

	# The budget is of CPUs the wakee may use: X, next after W in the
	# walk, is passed over and the CPU after it taken (one a round; the
	# round's later collisions find it marked and stay on W).
	[ "$(wc -w <<<"$WL")" -ge 3 ] || continue
	X=$(awk '{ print $2 }' <<<"$WL")
	run "$pol" 1 "$X"
	assert_eq "$onx" 0 "$pol spread 1, X=$X not allowed: picks of X"
	assert_ge "$moved" $((R / 2)) "$pol spread 1, X=$X not allowed: collisions sent past X"
	assert_ge "$d_spread" "$moved" "$pol spread 1, X=$X not allowed: counters spread"
done
assert_eq "$(wp_read state)" ok "state after the runs"

# wakeplacectl shows the same counters (on stock nothing moves them).
must wp_write policy stock
for pol in idlemask idlecore; do
	want=$(wp_read "policies/$pol/counters" | awk '{ printf "%s\"%s\":%s", (NR > 1 ? "," : "{"), $1, $2 } END { print "}" }')
	assert_eq "$("$WP_CTL" -j policy show "$pol" | jq -c .counters)" "$want" \
		"$pol: wakeplacectl policy show -j has the policy's counters"
	"$WP_CTL" policy show "$pol" | grep -Eq "^  inbound +[0-9]+$" ||
		fail "$pol: wakeplacectl policy show prints no inbound line"
done
pass "fallbacks spread off targets with a wakee on its way, and stay with spread 0"
