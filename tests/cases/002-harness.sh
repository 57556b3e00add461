#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: runner environment: env vars, writable WP_OUT, kernel log marker
# requires: vm topo=llc2
# tier: core flavour
# shellcheck source=tests/lib.sh
. "$WP_TESTS/lib.sh"

for v in WP_TESTS WP_ROOT WP_KO WP_KO_RELEASE WP_CTL WP_BENCH WP_OUT WP_TOPO; do
	[ -n "${!v:-}" ] || fail "$v is not set"
	log "$v=${!v}"
done
assert_eq "$WP_KO" "$WP_ROOT/build/$(uname -r)-test/wakeplace.ko" "WP_KO"
assert_eq "$WP_KO_RELEASE" "$WP_ROOT/build/$(uname -r)/wakeplace.ko" \
	"WP_KO_RELEASE"
[ -f "$WP_TESTS/lib.sh" ] || fail "WP_TESTS does not hold lib.sh"

# WP_OUT is the writable per-test directory on the host-shared --rwdir.
echo probe > "$WP_OUT/probe" || fail "WP_OUT ($WP_OUT) not writable"
assert_eq "$(cat "$WP_OUT/probe")" probe "WP_OUT round trip"

# The post-check relies on the runner's start marker in the kernel log.
dmesg_since_start >/dev/null
dmesg | grep -qF -- "$WP_KMSG_MARK" || fail "runner marker not in dmesg"
pass "runner marker in dmesg"
echo "wp-test: 002 kmsg probe" > /dev/kmsg || fail "cannot write /dev/kmsg"
dmesg_since_start | grep -q "wp-test: 002 kmsg probe" ||
	fail "dmesg_since_start misses a fresh message"
pass "dmesg_since_start sees new messages"

# Nothing but O/E may taint the kernel during the tests: start clean.
log "taint: $(taint)"

# Background load starts and stops (used by module tests under load).
if command -v perf >/dev/null; then
	bg_load -g 1 -l 10
	pg=${WP_BG_PIDS[0]}
	wait_until 300 pgrep -g "$pg" -x perf >/dev/null ||
		fail "bg_load did not start perf in process group $pg"
	stop_load
	left=$(group_pids "$pg")
	[ -z "$left" ] || fail "stop_load left processes in group $pg: $left"
	pass "bg_load/stop_load"
fi
