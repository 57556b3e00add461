#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: a pinned waker waking a task whose prev CPU is busy: an idle CPU of the target's LLC, or the target itself under noscan
# requires: module
. "$WP_TESTS/lib.sh"

probe=$WP_ROOT/tests/tools/wakeprobe
[ -x "$probe" ] || fail "tests/tools/wakeprobe not built"
stat_of() { wp_read "stats/$1" | awk -v k="$2" '$1 == k { print $2 }'; }

# Pick a waker W whose LLC has another CPU, and a prev P != W.  wake_affine
# makes the target either W or P (which one depends on load the test does
# not control: under TCG 6.12 chose P for a quarter of the wakeups), and
# the search then looks in the target's LLC: the idle CPUs of W's and P's
# LLCs other than W and P are where the wakee should land.
W= P= E=
for w in $(online_cpus); do
	for p in $(online_cpus); do
		[ "$p" = "$w" ] && continue
		e=$(for c in $(cpulist_expand "$(cpus_of_llc "$w")") \
			$(cpulist_expand "$(cpus_of_llc "$p")"); do
			[ "$c" != "$w" ] && [ "$c" != "$p" ] && echo "$c"
		done | sort -nu)
		[ -n "$e" ] || continue
		W=$w P=$p E=$(echo $e)
		break 2
	done
done
[ -n "$W" ] || skip "no LLC with room for this test"
log "waker CPU $W, prev CPU $P (kept busy), expected idle CPUs: $E"

wp_load
at_exit 'wp_loaded && rmmod wakeplace'

# landing POLICY: run the probe, print "hits_in_E hits_on_W_or_P trials".
landing() {
	local out inE=0 onW=0 n
	wp_write policy "$1" || fail "switch to $1 refused"
	wp_write stats/reset "$1"
	out=$("$probe" -w "$W" -p "$P" -s "$P" -n 40) || fail "wakeprobe failed"
	log "$1: $(tr '\n' ' ' <<<"$out")"
	while read -r key cpu count; do
		[ "$key" = cpu ] || continue
		[[ " $E " == *" $cpu "* ]] && inE=$((inE + count))
		[ "$cpu" = "$W" ] || [ "$cpu" = "$P" ] && onW=$((onW + count))
	done <<<"$out"
	n=$(awk '$1 == "trials" { print $2 }' <<<"$out")
	echo "$inE $onW $n"
}

for pol in idlemask idlecore bounded; do
	read -r inE onW n <<<"$(landing $pol)"
	assert_ge $((inE * 100 / n)) 75 "$pol: % of wakeups on an idle CPU of the target's LLC"
	case $pol in
	idlemask|idlecore) assert_gt "$(stat_of $pol mask)" 0 "$pol: mask hits" ;;
	bounded) assert_gt "$(stat_of $pol scan)" 0 "$pol: scan hits" ;;
	esac
done
# noscan does not search: the wakee stays on the target wake_affine chose
# (the waker's CPU or its busy prev), whatever is idle next to it.
read -r inE onW n <<<"$(landing noscan)"
assert_ge $((onW * 100 / n)) 75 "noscan: % of wakeups on the target (waker's CPU or prev)"
assert_le $((inE * 100 / n)) 25 "noscan: % of wakeups on an idle CPU it did not look for"
assert_gt "$(stat_of noscan fallback)" 0 "noscan: fell back to target"
