#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: sched_ext beside a policy: scx_simple (every task) comes and goes under load; the policy stops and resumes placing, status names the scheduler, switching and unloading work meanwhile, a load meanwhile is refused in one clear line, nothing warns
# requires: module perf ctl topo=llc2
. "$WP_TESTS/lib.sh"

[ -r /sys/kernel/sched_ext/state ] || skip "this kernel has no sched_ext"
scx=$("$WP_ROOT/scripts/buildroot" scx "$(uname -r)") ||
	skip "no sched_ext examples built for $(uname -r) (make deps)"
require_cmd jq

scx_state() { cat /sys/kernel/sched_ext/state; }
scx_is() { [ "$(scx_state)" = "$1" ]; }
SCX_PID=
scx_start() { # NAME ARGS...: start a BPF scheduler, wait until enabled
	local name=$1
	shift
	"$scx/$name" "$@" > "$WP_OUT/$name.log" 2>&1 &
	SCX_PID=$!
	wait_until 120 scx_is enabled ||
		fail "$name did not become enabled (state $(scx_state)): $(tail -3 "$WP_OUT/$name.log")"
	pass "$name enabled"
}
scx_stop() {
	[ -n "$SCX_PID" ] || return 0
	kill -INT "$SCX_PID" 2>/dev/null
	wait_until 120 scx_is disabled ||
		fail "sched_ext still $(scx_state) after SIGINT"
	wait "$SCX_PID" 2>/dev/null
	SCX_PID=
}
rises() { # MSG: redirected grows over 2 s
	local a b
	a=$(counter redirected)
	sleep 2
	b=$(counter redirected)
	assert_gt "$b" "$a" "$1"
}

at_exit 'scx_stop'
at_exit 'wp_loaded && rmmod wakeplace'
[ "$(scx_state)" = disabled ] || fail "sched_ext already $(scx_state) at start"

wp_load
wp_write policy idlemask || fail "policy idlemask"
bg_load -g 2 -l 100
rises "idlemask places wakeups before sched_ext"
assert_match "$("$WP_CTL" status)" 'sched_ext: +disabled' "status: sched_ext disabled"

# Full mode: every CFS task moves to the BPF scheduler.
scx_start scx_simple
out=$("$WP_CTL" status)
assert_match "$out" 'sched_ext: +enabled, scheduler simple, all tasks' "status names scx_simple, all tasks"
assert_eq "$("$WP_CTL" -j status | jq -r '.sched_ext.scheduler + " " + .sched_ext.mode')" \
	"simple all" "status -j: scheduler and mode"
a=$(counter redirected)
sleep 3
b=$(counter redirected)
assert_eq "$b" "$a" "no wakeup reaches the policy while scx_simple owns every task"
for p in mirror stock idlecore idlemask; do
	wp_write policy "$p" || fail "switch to $p under sched_ext"
done
pass "policies switch while sched_ext runs"
scx_stop
pass "scx_simple stopped"
rises "idlemask places wakeups again after sched_ext"

# Partial mode (scx_qmap -p) is not exercised here: Debian's clang 21
# builds scx_qmap's arena code into BPF that 7.2's verifier rejects
# ("R7 invalid mem access 'scalar'"); ctl-module.sh covers its status.

# Unload while a BPF scheduler owns every task.  A load then is refused,
# clearly: the loading task is not CFS's (nor is any other), so neither
# the runqueue checks nor fair_sched_class can be had.  After it: loads.
scx_start scx_simple
wp_unload || fail "unload under sched_ext"
pass "unloaded while scx_simple runs"
out=$(insmod "$WP_KO" 2>&1) && fail "insmod succeeded under scx_simple's full mode"
wp_loaded && fail "insmod failed but the module is loaded"
assert_match "$out" "Device or resource busy" "insmod under full sched_ext: EBUSY"
line=$(dmesg | grep 'wakeplace: ' | tail -1)
assert_match "$line" 'not run by CFS \(its class places with select_task_rq_scx\)' \
	"one line naming the loading task's class"
scx_stop
wp_load
wp_write policy idlemask || fail "policy idlemask after reload"
rises "placing again after reload and sched_ext off"

stop_load
assert_eq "$(counter corrected)" 0 "corrected picks"
assert_eq "$(wp_read state)" ok "state"
bad=$(dmesg_since_start | grep -E 'WARNING|BUG:|Oops|stack trace|sched_ext:.*(error|stall)' || true)
assert_eq "$bad" "" "no warnings, stalls or errors in the kernel log"
