#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: wakeplacectl auto on the real module under load: measures, switches, status shows it; SIGTERM leaves stock; with the test build's latency bias it converges on the one unbiased candidate and, when only stock is unbiased, stays on stock; rmmod during auto: it exits 3 cleanly
# requires: vm root module ctl perf jq topo=llc2
. "$WP_TESTS/lib.sh"

CTL=$WP_CTL
LINES=$WP_OUT/auto.jsonl
AERR=$WP_OUT/auto.err
STATE=/run/wakeplace/auto.state
AP=""

wp_loaded && fail "$WP_MODNAME is loaded before the test"
at_exit 'wp_loaded && rmmod wakeplace'
at_exit '[ -n "$AP" ] && kill -9 "$AP" 2>/dev/null'

# epochs N: auto printed at least N epoch lines.
epochs() { [ "$(grep -c '^{"event":"epoch"' "$LINES")" -ge "$1" ]; }
gone() { ! kill -0 "$AP" 2>/dev/null; }
# decided ACTION POLICY: auto printed that decision.
decided() {
	grep '^{"event":"decision"' "$LINES" | grep -q "\"action\":\"$1\",\"policy\":\"$2\""
}
# exploiting N: auto printed N epochs of the exploitation phase.
exploiting() { [ "$(grep -c '^{"event":"epoch".*"phase":"exploit"' "$LINES")" -ge "$1" ]; }
show() { sed 's/^/#   /' "$LINES" "$AERR" >&2; }

# start_auto [ARGS...]: auto in the background, short epochs (every wait
# is bounded).
start_auto() {
	: >"$LINES"
	"$CTL" -j auto --epoch 1 --explore 1 --min-samples 10 "$@" >"$LINES" 2>"$AERR" &
	AP=$!
	log "auto started, pid $AP"
}

# end_auto: wait for auto to exit, its status in ARC.
end_auto() {
	wait_until 120 gone || { show; fail "auto (pid $AP) did not exit"; }
	ARC=0
	wait "$AP" || ARC=$?
	AP=""
	log "auto exited $ARC"
}

# auto measures: it refuses with the measurement off (off at load).
wp_load latency_sample=1
bg_load -g 2 -l 200

# ---- runs under load, status shows it, SIGTERM leaves stock -------------------------
start_auto
wait_until 300 epochs 4 || { show; fail "auto printed fewer than 4 epochs"; }
"$CTL" -j status >"$WP_OUT/status.json" || true
assert_eq "$(jq -r .auto.running "$WP_OUT/status.json")" true "status: auto running"
assert_eq "$(jq -r .auto.pid "$WP_OUT/status.json")" "$AP" "status: auto's pid"
pol=$(jq -r .auto.policy "$WP_OUT/status.json")
assert_match "$pol" '^[a-z]+$' "status: auto's policy"
n=$(jq -s '[.[] | select(.event == "epoch") | .wakeups] | max' "$LINES")
assert_gt "$n" 0 "an epoch under load measured wakeups"
kill -TERM "$AP"
end_auto
assert_eq "$ARC" 0 "auto exits 0 on SIGTERM"
assert_eq "$(cat "$WP_SYSFS/policy")" stock "the policy is stock after SIGTERM"
[ -e "$STATE" ] && fail "auto's state file is left after SIGTERM"
jq -e -s 'all(type == "object" and (.event | type == "string"))' "$LINES" >/dev/null ||
	{ show; fail "auto's JSON lines do not parse"; }
assert_eq "$(tail -1 "$LINES" | jq -r '.event + " " + .reason + " " + .policy')" \
	"exit signal stock" "the last line is the exit event"
pass "auto under load, SIGTERM leaves stock"

# ---- a known best candidate: the test build's latency bias -------------------------
# Every latency sample but those of test_lat_exempt is recorded 200 ms
# late: far beyond TCG's noise, so the exempt policy is the best by p99.
P=/sys/module/$WP_MODNAME/parameters
[ -w "$P/test_lat_bias_us" ] || fail "no test_lat_bias_us parameter: not a test build"
at_exit "[ -w $P/test_lat_bias_us ] && echo 0 >$P/test_lat_bias_us"
echo noscan >"$P/test_lat_exempt"
echo 200000 >"$P/test_lat_bias_us"
start_auto --candidates noscan,prevsmt
wait_until 300 decided choose noscan || { show; fail "auto did not choose noscan, the one unbiased candidate"; }
wait_until 300 exploiting 3 || { show; fail "auto did not exploit its choice"; }
assert_eq "$(cat "$WP_SYSFS/policy")" noscan "the policy while auto exploits noscan"
decided choose prevsmt && { show; fail "auto chose prevsmt, 200 ms worse"; }
kill -TERM "$AP"
end_auto
assert_eq "$ARC" 0 "auto exits 0 on SIGTERM (after converging)"
assert_eq "$(cat "$WP_SYSFS/policy")" stock "stock after SIGTERM (after converging)"
pass "auto converges on the one unbiased candidate, noscan"

echo stock >"$P/test_lat_exempt"
start_auto --candidates noscan,prevsmt
wait_until 300 decided choose stock || { show; fail "auto did not choose stock when every candidate is worse"; }
wait_until 300 exploiting 3 || { show; fail "auto did not exploit stock"; }
assert_eq "$(cat "$WP_SYSFS/policy")" stock "the policy while auto exploits stock"
decided choose noscan && { show; fail "auto chose noscan, 200 ms worse than stock"; }
decided choose prevsmt && { show; fail "auto chose prevsmt, 200 ms worse than stock"; }
kill -TERM "$AP"
end_auto
assert_eq "$ARC" 0 "auto exits 0 on SIGTERM (on stock)"
echo 0 >"$P/test_lat_bias_us"
echo >"$P/test_lat_exempt"
pass "every candidate worse: auto stays on stock"

# ---- rmmod during auto: it exits 3, cleanly --------------------------------------------
start_auto
wait_until 300 epochs 2 || { show; fail "auto printed fewer than 2 epochs"; }
wp_unload
end_auto
assert_eq "$ARC" 3 "auto exits 3 (module not loaded) after rmmod"
grep -q "not loaded" "$LINES" || { show; fail "auto's exit does not say the module is gone"; }
[ -e "$STATE" ] && fail "auto's state file is left after rmmod"
wp_loaded && fail "the module is loaded again"
stop_load
pass "rmmod during auto: auto exits cleanly"
exit 0
