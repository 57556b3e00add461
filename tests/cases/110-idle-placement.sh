#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: a pinned waker waking a task whose prev CPU is busy: idle CPU of its LLC, or target under noscan
# requires: module
. "$WP_TESTS/lib.sh"

probe=$WP_ROOT/tests/tools/wakeprobe
[ -x "$probe" ] || fail "tests/tools/wakeprobe not built"
stat_of() { wp_read "stats/$1" | awk -v k="$2" '$1 == k { print $2 }'; }

# Pick a waker W whose LLC has another CPU, and a prev P != W that is not
# in W's LLC if possible (else an LLC of >= 3 CPUs): the idle CPUs of W's
# LLC other than W are where the wakee should land.
W= P= E=
for w in $(online_cpus); do
	llc=$(cpulist_expand "$(cpus_of_llc "$w")")
	for p in $(online_cpus); do
		[ "$p" = "$w" ] && continue
		e=$(for c in $llc; do [ "$c" != "$w" ] && [ "$c" != "$p" ] && echo "$c"; done)
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
	assert_ge $((inE * 100 / n)) 75 "$pol: % of wakeups on an idle CPU of the waker's LLC"
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
