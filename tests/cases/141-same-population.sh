#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: every policy is measured on the same wakeups: each wakeup of a wakee (a sched_waking, then its switch-in) is one wakeup_latency event under stock, mirror and idlemask alike, in an outcome row or the unplaced one; the wakee still on its CPU when woken (wake list) is unplaced for every policy
# requires: module topo=llc2
# tier: core
. "$WP_TESTS/lib.sh"

probe=$WP_ROOT/tests/tools/wakeprobe
[ -x "$probe" ] || fail "tests/tools/wakeprobe not built"
[ "$(nr_cpus)" -ge 2 ] || skip "needs 2 CPUs"
read -ra CPUS <<<"$(online_cpus)"
W=${CPUS[0]} P=${CPUS[1]}

wp_load
at_exit 'wp_loaded && rmmod wakeplace'
wp_write latency_sample 1 || fail "cannot set latency_sample 1"

tracefs_mount
inst=$TRACEFS/instances/wp141
rmdir "$inst" 2>/dev/null
mkdir "$inst" || fail "cannot create trace instance"
at_exit "echo 0 > $inst/events/wakeplace/wakeup_latency/enable 2>/dev/null; echo 0 > $inst/events/sched/sched_waking/enable 2>/dev/null; echo 0 > $inst/events/sched/sched_switch/enable 2>/dev/null; rmdir $inst"
echo 0 > "$inst/tracing_on"
echo 4096 > "$inst/buffer_size_kb"
echo 1 > "$inst/events/wakeplace/wakeup_latency/enable" ||
	fail "no wakeplace:wakeup_latency event"
echo 1 > "$inst/events/sched/sched_waking/enable" ||
	fail "no sched:sched_waking event"
echo 1 > "$inst/events/sched/sched_switch/enable" ||
	fail "no sched:sched_switch event"
# shellcheck disable=SC2034 # read by probe_trace (tests/lib.sh)
WP_TRACE_INST=$inst

# run POLICY WAKEPROBE-ARGS...: the wakee's sched_waking events, its
# switch-ins that follow a waking, then its wakeup_latency events in
# outcome rows and in the unplaced row, on one line.  Events are matched
# by the wakee's TID.  A waking counts as a wakeup only if the wakee had
# switched out since it last ran: one that finds it still running (it set
# its sleep state but had not left the CPU: ttwu_runnable) is no wakeup,
# it goes on running, and the module stamps nothing (on_rq and on_cpu).
run() {
	local pol=$1 tid
	shift
	wp_write policy "$pol" || fail "switch to $pol refused"
	tid=$(probe_trace "$@")
	[ -n "$tid" ] || fail "wakeprobe $* failed or printed no wakee TID"
	# Let the last wakee's switch-in land in the buffer.
	awk -v tid="$tid" '
		/ sched_waking: / && index($0, " pid=" tid " ") {
			w++
			if (!run) pend = 1
		}
		/ sched_switch: / && index($0, " prev_pid=" tid " ") { run = 0 }
		/ sched_switch: / && index($0, " next_pid=" tid " ") {
			if (pend) s++
			pend = 0
			run = 1
		}
		/ wakeup_latency: / && index($0, " pid=" tid " ") {
			if (index($0, " outcome=unplaced ")) u++; else p++
		}
		END { printf "%d %d %d %d\n", w, s, p, u }' "$inst/trace"
}

# The waker wakes the wakee right after it said it goes to sleep (-i 0),
# so some wakeups find it still on its CPU: the kernel queues those on
# that CPU's wake list without select_task_rq_fair.  Then with the usual
# settle time (the wakee asleep when woken): every wakeup is placed.
for pol in stock mirror idlemask; do
	for settle in 0 20000; do
		read -r w s p u <<<"$(run $pol -w "$W" -p "$P" -n 60 -i "$settle")"
		log "$pol, settle ${settle} us: $w wakings, $s switch-ins after one, $p placed rows, $u unplaced"
		assert_ge "$w" 20 "$pol settle $settle: the wakee's sched_waking events"
		assert_ge "$s" 20 "$pol settle $settle: the wakee's switch-ins after a waking"
		# One event per wakeup: none lost to the hook's view, none twice.
		# The trace cannot see two windows, each a wakeup at most: a
		# waking between the wakee's dequeue and its sched_switch event
		# (a wakeup, stamped, that the trace thinks ran), and one of a
		# preempted wakee not yet off its CPU (not stamped, which the
		# trace counts).  The last event can be missing (tracing stops
		# as the probe exits); a lost slot is counted in lat_dropped.
		assert_le $((p + u)) "$w" "$pol settle $settle: latency events <= wakings"
		assert_ge $((p + u)) $((s - 2)) "$pol settle $settle: latency events >= wakeups - 2"
		if [ "$settle" = 20000 ]; then
			# Asleep and unpinned: select_task_rq_fair for each.
			assert_le "$u" 1 "$pol settle $settle: unplaced events"
		fi
		eval "u_${pol}_$settle=$u"
	done
done
assert_eq "$(counter lat_dropped)" 0 "lat_dropped"

# The stats agree with the events: unplaced is its own counter, not in
# tracked, and the latency files' unplaced row is not in all.
for pol in stock mirror; do
	s=$(wp_read "stats/$pol")
	tr=$(awk '$1 == "tracked" { print $2 }' <<<"$s")
	un=$(awk '$1 == "unplaced" { print $2 }' <<<"$s")
	st=$(awk '$1 == "stacked" { print $2 }' <<<"$s")
	mi=$(awk '$1 == "missed_idle" { print $2 }' <<<"$s")
	{ [ -n "$un" ] && [ -n "$mi" ]; } || fail "stats/$pol: no unplaced or missed_idle key"
	log "stats/$pol: tracked $tr unplaced $un stacked $st missed_idle $mi"
	assert_le "$mi" "$st" "stats/$pol: missed_idle <= stacked"
	assert_le "$st" "$tr" "stats/$pol: stacked <= tracked"
	l=$(wp_read "latency/$pol")
	all=$(awk '$1 == "all" { print $2 }' <<<"$l")
	lu=$(awk '$1 == "unplaced" { print $2 }' <<<"$l")
	assert_eq "$all" "$tr" "latency/$pol: all row count = tracked"
	assert_eq "$lu" "$un" "latency/$pol: unplaced row count = unplaced"
done
log "unplaced at settle 0: stock ${u_stock_0:-?} mirror ${u_mirror_0:-?} idlemask ${u_idlemask_0:-?}"
pass "one wakeup population for every policy"
