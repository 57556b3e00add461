#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: loaded on stock with no shadow and measurement off, nothing of the module runs under load: probe_hits 0, hook_hits 0, the hook detached; latency_sample 1 runs the probes (stock still needs no hook), 0 stops them again; a policy switched away from leaves nothing running once its hook and idle state have lingered
# requires: module perf topo=llc2
# tier: core
. "$WP_TESTS/lib.sh"

# probe_hits and hook_hits: hook counters of test builds.
# ctxt: context switches of the whole guest so far.
ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }
# loaded_for S: S seconds pass under the load, with at least 2000 context
# switches in them (else the load did not run and a 0 proves nothing).
loaded_for() {
	local c0
	c0=$(ctxt)
	sleep "$1"
	assert_ge "$(($(ctxt) - c0))" 2000 "context switches in ${1}s of load"
}
# over NAME N: counter NAME is above N now (for wait_until, which runs
# its command again each time).
over() { [ "$(counter "$1")" -gt "$2" ]; }
tracked() { [ "$(stat_of stock tracked)" -gt 0 ]; }
detached() { [ "$(wp_read hook)" = detached ]; }
# still: probe_hits and hook_hits hold still for 2 s.
still() {
	local a b
	a="$(counter probe_hits) $(counter hook_hits)"
	sleep 2
	b="$(counter probe_hits) $(counter hook_hits)"
	[ "$a" = "$b" ]
}

wp_load detach_ms=500
at_exit 'wp_loaded && rmmod wakeplace'
if [ -z "$(counter probe_hits)" ] || [ -z "$(counter hook_hits)" ]; then
	fail "counters has no probe_hits/hook_hits: not a test build?"
fi
assert_eq "$(wp_read policy)" stock "policy at load"
assert_eq "$(wp_read shadow)" off "shadow at load"
assert_eq "$(wp_read latency_sample)" 0 "latency_sample at load (measurement off)"
assert_eq "$(wp_read hook)" detached "hook at load"

bg_load -g 2 -l 200
at_exit stop_load

# 1. Stock, no shadow, measurement off: nothing runs.
loaded_for 4
assert_eq "$(counter probe_hits)" 0 "stock, measurement off: probe hits under load"
assert_eq "$(counter hook_hits)" 0 "stock, measurement off: hook hits under load"
assert_eq "$(counter calls)" 0 "stock, measurement off: hook calls under load"
log "stock, off: probe_hits 0 hook_hits 0"

# 2. Measurement on: the probes run and stock's wakeups are measured (by
# the sched_waking stamp, no hook).
wp_write latency_sample 1 || fail "latency_sample 1 refused"
wait_until 60 over probe_hits 0 ||
	fail "measurement on: no probe hits in 60 s under load"
wait_until 60 tracked ||
	fail "measurement on: no tracked stock wakeups in 60 s under load"
loaded_for 2
on=$(counter probe_hits)
assert_gt "$on" 0 "measurement on: probe hits"
assert_eq "$(counter hook_hits)" 0 "measurement on, stock: hook hits"
assert_eq "$(wp_read hook)" detached "measurement on, stock: hook"
log "stock, on: probe_hits $on hook_hits 0"

# 3. Off again: the probes are gone when the write returns.
wp_write latency_sample 0 || fail "latency_sample 0 refused"
p0=$(counter probe_hits)
loaded_for 4
assert_eq "$(counter probe_hits)" "$p0" "measurement off again: new probe hits"
assert_eq "$(counter hook_hits)" 0 "measurement off again: hook hits"
log "stock, off again: probe_hits still $p0"

# 4. A policy with the hook and the idle state's probes, then stock: once
# its hook (detach_ms) and idle state (10 s) have lingered, nothing runs
# again (bounded waits: 60 s, 120 s).
wp_write policy idlemask || fail "cannot set idlemask"
wait_until 60 over hook_hits 0 || fail "idlemask: no hook hits in 60 s"
wait_until 60 over probe_hits "$p0" || fail "idlemask: no idle-state probe hits in 60 s"
wp_write policy stock || fail "cannot set stock"
wait_until 60 detached || fail "hook still attached 60 s after stock"
wait_until 120 still || fail "probe or hook hits still rising 120 s after stock"
p1=$(counter probe_hits) h1=$(counter hook_hits)
loaded_for 4
assert_eq "$(counter probe_hits)" "$p1" "back on stock: new probe hits"
assert_eq "$(counter hook_hits)" "$h1" "back on stock: new hook hits"
pass "stock with measurement off runs no probe and no hook under load (0 hits); on: $on probe hits; off again and after idlemask: none"
