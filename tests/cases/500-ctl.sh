#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: wakeplacectl drives the real module: load, list, set under load, stats deltas, reset, shadow, tune, unload
# requires: vm root module ctl perf jq topo=llc2
. "$WP_TESTS/lib.sh"

CTL=$WP_CTL
SYS=$WP_SYSFS

# ctl ARGS...: run the tool; its stdout in $OUT, stderr shown, status in $RC.
OUT=$WP_OUT/ctl.out
ctl() {
	RC=0
	"$CTL" "$@" >"$OUT" 2>"$WP_OUT/ctl.err" || RC=$?
	log "wakeplacectl $* -> exit $RC"
	[ -s "$WP_OUT/ctl.err" ] && sed 's/^/#   stderr: /' "$WP_OUT/ctl.err" >&2
	return 0
}
ctl_ok() { # ctl_ok ARGS...: must exit 0
	ctl "$@"
	[ "$RC" = 0 ] || { sed 's/^/#   stdout: /' "$OUT" >&2; fail "wakeplacectl $* exited $RC"; }
}
jqo() { jq -r "$1" "$OUT"; }
mirror_picks() { "$CTL" -j stats --policy mirror | jq -r '.policies[0].picks'; }

wp_loaded && fail "$WP_MODNAME is loaded before the test"
at_exit 'wp_loaded && rmmod wakeplace'

# ---- not loaded ------------------------------------------------------------------
ctl status
assert_eq "$RC" 3 "status exit code when not loaded"
grep -q "not loaded" "$OUT" || fail "status does not say 'not loaded'"
ctl policy list
assert_eq "$RC" 3 "policy list exit code when not loaded"

# ---- load -------------------------------------------------------------------------
ctl_ok load --ko "$WP_KO"
wp_loaded || fail "module not loaded after wakeplacectl load"
[ -d "$SYS" ] || fail "$SYS missing after load"
ctl load --ko "$WP_KO"
assert_eq "$RC" 1 "second load is refused"

ctl_ok -j status
assert_eq "$(jqo .loaded)" true "status: loaded"
assert_eq "$(jqo .policy)" stock "status: policy after load"

# ---- the measurement switch: off at load, on for what follows ----------------------
ctl_ok -j stats latency
assert_eq "$(jqo .latency_sample)" 0 "stats latency -j: off at load"
ctl_ok stats latency on
assert_eq "$(wp_read latency_sample)" 1 "stats latency on"
ctl_ok stats latency sample 4
assert_eq "$(wp_read latency_sample)" 4 "stats latency sample 4"
ctl_ok stats latency on
assert_eq "$(wp_read latency_sample)" 4 "stats latency on keeps sample 4"
ctl_ok stats latency off
assert_eq "$(wp_read latency_sample)" 0 "stats latency off"
ctl stats latency sample 65537
assert_eq "$RC" 2 "stats latency sample 65537: exit 2"
ctl_ok stats latency on
assert_eq "$(wp_read latency_sample)" 1 "stats latency on again"
ctl_ok -j status	# $OUT again holds the status the checks below read
assert_eq "$(jqo .state)" ok "status: state"
assert_eq "$(jqo .kernel.release)" "$(uname -r)" "status: kernel release"
assert_eq "$(jqo .kernel.supported)" true "status: kernel supported"
assert_eq "$(jqo .version)" "$(cat "$SYS/version")" "status: version"
hook=$(jqo .hook)
log "hook: $hook ($(jqo .hook_line))"
# On stock with no shadow the module registers no hook.
[ "$hook" = unknown ] || assert_eq "$hook" detached "status: hook detached on stock"
ctl_ok status
grep -q "^policy: *stock" "$OUT" || fail "status text lacks the policy"

# ---- list ----------------------------------------------------------------------------
ctl_ok pol l
grep -q "^\* stock " "$OUT" || fail "policy list does not mark stock active"
grep -q "^  mirror " "$OUT" || fail "policy list lacks mirror"
ctl_ok -j policy list
assert_eq "$(jqo '[.policies[].name] | join(" ")')" "$(tr -d '[]' <"$SYS/available_policies")" \
	"policy list -j names = available_policies"

# ---- set mirror under load, stats deltas grow --------------------------------------------
bg_load -g 2 -l 200
ctl_ok policy set mirror
assert_eq "$(cat "$SYS/policy")" mirror "policy file after policy set"
assert_eq "$(tr -d '\n' <"$OUT")" "" "policy set prints nothing"
ctl_ok -j status
assert_eq "$(jqo .policy)" mirror "status policy after set"
hook=$(jqo .hook)
[ "$hook" = unknown ] || assert_eq "$hook" attached "status: hook attached on mirror"

p1=$(mirror_picks)
wait_until 300 sh -c "[ \"\$('$CTL' -j stats --policy mirror | jq -r '.policies[0].picks')\" -gt $p1 ]" ||
	fail "mirror picks did not grow under load (stayed $p1)"
p2=$(mirror_picks)
assert_gt "$p2" "$p1" "mirror picks grow under load"

ctl_ok -j stats --policy mirror --interval 2 --count 3
n=$(jqo '.samples|length')
assert_eq "$n" 3 "stats --interval --count 3 samples"
sum=$(jqo '[.samples[].policies[] | select(.name == "mirror") | .picks] | add')
assert_gt "$sum" 0 "mirror picks over 3 intervals"
rate=$(jqo '[.samples[].policies[] | select(.name == "mirror") | .picks_per_s] | max | floor')
assert_gt "$rate" 0 "mirror picks/s"
ctl_ok stats --policy mirror
grep -q "^mirror\* " "$OUT" || fail "stats table lacks the active mirror row"

# ---- the oracle and unplaced in the JSON, as the module counts them -------------------------
# Tracking paused for the read (no probe counts meanwhile), so that one
# read's keys are consistent: a read is not atomic across CPUs.
ctl_ok -j stats --policy mirror --interval 1 --count 1
assert_gt "$(jqo '.samples[0].policies[0].tracked')" 0 "mirror tracked wakeups in an interval under load"
wp_write latency_sample 0 || fail "latency_sample 0 refused"
ctl_ok -j stats --policy mirror
wp_write latency_sample 1 || fail "latency_sample 1 refused"
pause_load	# what follows reads the snapshot in $OUT
m='.policies[0]'
for k in tracked stacked missed_idle unplaced; do
	v=$(jqo "$m.$k")
	[[ $v =~ ^[0-9]+$ ]] || fail "stats -j: mirror $k is '$v', not an integer"
done
for o in $(src_outcomes); do
	for k in "stacked_$o" "missed_$o" "double_$o"; do
		[[ $(jqo "$m.$k") =~ ^[0-9]+$ ]] || fail "stats -j: mirror $k is not an integer"
		assert_eq "$(jqo "$m.derived | has(\"${k}_pct\")")" true "stats -j: derived.${k}_pct exists"
	done
done
tr=$(jqo "$m.tracked") st=$(jqo "$m.stacked") mi=$(jqo "$m.missed_idle") un=$(jqo "$m.unplaced")
log "mirror: tracked $tr stacked $st missed_idle $mi unplaced $un"
assert_gt "$tr" 0 "stats -j: mirror tracked under load"
assert_le "$mi" "$st" "stats -j: missed_idle <= stacked"
assert_le "$st" "$tr" "stats -j: stacked <= tracked"
assert_eq "$(jqo "[$m | to_entries[] | select(.key | test(\"^stacked_\")) | .value] | add")" "$st" "stats -j: stacked_<outcome> sum to stacked"
assert_eq "$(jqo "[$m | to_entries[] | select(.key | test(\"^missed_\") and . != \"missed_idle\") | .value] | add")" "$mi" "stats -j: missed_<outcome> sum to missed_idle"
assert_eq "$(jqo "[$m | to_entries[] | select(.key | test(\"^double_\") and . != \"double_picks\") | .value] | add")" "$(jqo "$m.double_picks")" "stats -j: double_<outcome> sum to double_picks"
assert_eq "$(jqo "$m.latency.all.count")" "$tr" "stats -j: latency all count = tracked"
assert_eq "$(jqo "$m.latency.unplaced.count")" "$un" "stats -j: latency unplaced count = unplaced"
assert_eq "$(jqo "$m.latency | keys_unsorted | last")" unplaced "stats -j: unplaced is the last latency row"
assert_eq "$(jqo "$m.derived | (.missed_idle_pct - 100 * $mi / $tr | fabs) < 0.002")" true \
	"stats -j: derived.missed_idle_pct = missed_idle / tracked"
assert_eq "$(jqo "$m.derived | (.unplaced_pct - 100 * $un / ($tr + $un) | fabs) < 0.002")" true \
	"stats -j: derived.unplaced_pct = unplaced / (tracked + unplaced)"
# The split of stale_hint and the test build's audit: a number when the
# module has the key, null when it does not.
for k in stale_pending stale_running stale_preempted audited false_busy; do
	if grep -q "^$k " "$SYS/stats/mirror"; then
		[[ $(jqo "$m.$k") =~ ^[0-9]+$ ]] || fail "stats -j: $k is in stats/mirror but not a number"
	else
		assert_eq "$(jqo "$m.$k")" null "stats -j: $k absent from stats/mirror: null"
	fi
done
ctl_ok stats --policy mirror --outcomes
grep -Eq "^POLICY +STACKED +MISSED +DOUBLE" "$OUT" || fail "stats: no MISSED column beside STACKED"
grep -Eq "^  unplaced +[0-9]" "$OUT" || fail "stats --outcomes: no unplaced row"
assert_eq "$(awk 'length($0) > 80' "$OUT" | wc -l)" 0 "stats --outcomes: lines over 80 columns"
resume_load

# ---- bad input against the real module: refused, nothing changed -------------------------
ctl policy set nope
assert_eq "$RC" 2 "policy set unknown: exit 2"
ctl tune mirror nokey=1
assert_eq "$RC" 2 "tune unknown key: exit 2"
assert_eq "$(cat "$SYS/policy")" mirror "policy unchanged after refusals"

# ---- reset zeroes ------------------------------------------------------------------------------
ctl_ok policy set stock
assert_eq "$(cat "$SYS/policy")" stock "back to stock"
ctl_ok stats reset mirror
assert_eq "$(mirror_picks)" 0 "mirror picks after stats reset mirror (not active)"
ctl_ok stats reset
ctl_ok -j status
assert_eq "$(jqo .counters.redirected)" 0 "redirected after stats reset with stock active"
assert_ge "$(jqo .counters.switches)" 2 "switches survive stats reset"

# ---- shadow -------------------------------------------------------------------------------------
ctl_ok shadow set mirror
assert_eq "$(cat "$SYS/shadow")" mirror "shadow file after shadow set"
wait_until 300 sh -c "[ \"\$('$CTL' -j shadow show | jq -r .compared)\" -gt 0 ]" ||
	fail "shadow comparisons did not grow"
ctl_ok -j shadow show
assert_eq "$(jqo .shadow)" mirror "shadow show"
assert_gt "$(jqo .compared)" 0 "shadow compared"
log "shadow agreement: $(jqo .agreement_pct)%"
ctl_ok shadow set off
assert_eq "$(cat "$SYS/shadow")" off "shadow off"

# ---- tune, when a policy has tunables ------------------------------------------------------------
tp=""
for p in $(tr -d '[]' <"$SYS/available_policies"); do
	if [ -n "$(cat "$SYS/policies/$p/tunables")" ]; then  # sysfs sizes are 4096
		tp=$p
		break
	fi
done
if [ -n "$tp" ]; then
	read -r key val min max <"$SYS/policies/$tp/tunables"
	ctl_ok tune "$tp" "$key=$min"
	assert_eq "$(cat "$SYS/policies/$tp/$key")" "$min" "tune $tp $key=min"
	ctl tune "$tp" "$key=$((max + 1))"
	assert_eq "$RC" 2 "tune above max refused"
	assert_eq "$(cat "$SYS/policies/$tp/$key")" "$min" "value unchanged after refusal"
	ctl_ok tune "$tp" "$key=$val"
	assert_eq "$(cat "$SYS/policies/$tp/$key")" "$val" "tunable restored"
else
	log "no policy with tunables yet: tune not exercised"
fi

ctl_ok stats period 16
assert_eq "$(cat "$SYS/sample_period")" 16 "sample_period set"
ctl_ok stats period 64

# ---- unload ----------------------------------------------------------------------------------------
stop_load
ctl_ok unload
wp_loaded && fail "module still loaded after wakeplacectl unload"
[ -e "$SYS" ] && fail "$SYS still there after unload"
ctl status
assert_eq "$RC" 3 "status after unload"
pass "wakeplacectl drove the module"
exit 0
