#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# wakeplacectl auto against a fake sysfs tree whose latency histograms a
# background "load" fills for whichever policy the policy file names, each
# policy at the latency bucket a profile file gives it (changed mid-run to
# make the load change).  Refusals, convergence, stock when every
# candidate is worse, drift, the guardrail, a revert by the module, a
# policy changed behind auto's back, SIGTERM/SIGINT/SIGHUP, the module's
# unload, status, --daemon and the JSON lines.  No timing assertion: every
# wait is bounded (a hang guard), epochs are long enough for a loaded host.
# TAP output.
# shellcheck disable=SC2034 # ARC, SUM, RC: read by the eval'd checks
set -u
. "$(dirname "$0")/../../ctl/test-lib.sh"

command -v jq >/dev/null || { tap_skip_all "jq not installed"; exit 0; }

T=$TMPD/sys
make_tree "$T"
export WAKEPLACE_SYSFS=$T
export WAKEPLACE_AUTO_STATE=$TMPD/run/auto.state
PROFILE=$TMPD/profile
LINES=$TMPD/auto.jsonl
AERR=$TMPD/auto.err
LOADPID="" AUTOPID="" ARC=""
EP=(--epoch 0.5 --min-samples 1)
trap 'stop_auto; stop_fake; rm -rf "$TMPD"' EXIT

# Latency buckets of the profiles (ctl/test-lib.sh explains the index):
B11=300	# [11264, 11520): p99 11391 ns
B21=330	# [21504, 22016): p99 21759 ns
B32=350	# [31744, 32256): p99 31999 ns
B99=400	# [98304, 100352): p99 99327 ns

# profile POLICY=BUCKET...: the load's latency for each policy (others 300).
profile() {
	printf '%s\n' "$@" | tr '=' ' ' | put "$PROFILE"
}

start_fake() { fake_load "$T" "$PROFILE" & LOADPID=$!; }
stop_fake() {
	[ -n "$LOADPID" ] && kill "$LOADPID" 2>/dev/null && wait "$LOADPID" 2>/dev/null
	LOADPID=""
}

# start_auto ARGS...: `wakeplacectl -j auto ARGS` in the background.  The
# files are emptied first, here: the child's redirection runs later, and a
# wait for an epoch line would find the last run's.
start_auto() {
	: >"$LINES"
	: >"$AERR"
	"$WP_CTL" -j auto "$@" >"$LINES" 2>"$AERR" &
	AUTOPID=$!
}

# wait_upto SECONDS CMD...: poll CMD until it succeeds (a hang guard).
wait_upto() {
	local end=$((SECONDS + $1))
	shift
	while ((SECONDS < end)); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

gone() { ! kill -0 "$AUTOPID" 2>/dev/null; }

# end_auto [SIGNAL]: signal auto (none: it ends itself), its status in $ARC.
end_auto() {
	[ -n "${1:-}" ] && kill "-$1" "$AUTOPID" 2>/dev/null
	wait_upto 60 gone || kill -9 "$AUTOPID" 2>/dev/null
	ARC=0
	wait "$AUTOPID" || ARC=$?
	AUTOPID=""
}
stop_auto() {
	[ -n "$AUTOPID" ] && kill -9 "$AUTOPID" 2>/dev/null && wait "$AUTOPID" 2>/dev/null
	AUTOPID=""
}

# decided ACTION POLICY: auto printed that decision (whole lines only).
decided() {
	grep '^{"event":"decision"' "$LINES" | grep '}$' |
		grep -q "\"action\":\"$1\",\"policy\":\"$2\""
}
policy_is() { [ "$(cat "$T/policy")" = "$1" ]; }
diag() { printf '%s\n' "lines: $(tail -c 1500 "$LINES")" "stderr: $(head -c 500 "$AERR")" "policy: $(cat "$T/policy" 2>/dev/null)"; }
# the JSON lines: every line one object with an event
lines_ok() { jq -e -s 'length > 0 and all(type == "object" and (.event | type == "string"))' "$LINES" >/dev/null; }

# ---- refusals: exit code, one message, nothing written ---------------------
SUM=$(tree_sum "$T")
refuse() { # refuse RC GREP DESC ARGS...
	local rc=$1 re=$2 d=$3
	shift 3
	run "$@"
	check "$d: exit $rc" eval '[ $RC = '"$rc"' ] && grep -q -- "'"$re"'" "$ERR"'
}
refuse 2 "invalid epoch" "auto --epoch 0" auto --epoch 0
refuse 2 "invalid epoch" "auto --epoch abc" auto --epoch abc
refuse 2 "invalid margin" "auto --margin -1" auto --margin -1
refuse 2 "invalid explore" "auto --explore 1.5 (not an integer)" auto --explore 1.5
refuse 2 "needs a value" "auto --epoch without a value" auto --epoch
refuse 2 "unknown objective" "auto --objective frob" auto --objective frob
refuse 2 "unknown policy 'nope'" "auto --candidates with an unknown policy" auto --candidates noscan,nope
refuse 2 "needs a candidate besides stock" "auto --candidates stock alone" auto --candidates stock
refuse 2 "unknown policy 'nope'" "auto --fallback unknown" auto --fallback nope
refuse 2 "unknown auto argument" "auto with a stray argument" auto frob
run -p auto
check "auto with --pretty (JSON lines only): exit 2, the error document" \
	eval '[ $RC = 2 ] && jq -e ".error | test(\"pretty\")" "$OUT" >/dev/null'
run --sysfs "$TMPD/none" auto
check "auto without the module: exit 3" eval '[ $RC = 3 ] && grep -q "not loaded" "$ERR"'
echo 0 >"$T/latency_sample"
refuse 1 "latency tracking is off" "auto with latency_sample 0" auto
echo 1 >"$T/latency_sample"
mkdir -p "$TMPD/run"
printf 'pid %d\npolicy noscan\nphase exploit\nreason test\n' $$ >"$WAKEPLACE_AUTO_STATE"
refuse 1 "already in charge (pid $$" "auto while another auto (a live pid) is in charge" auto
run status
check "status: a live pid in the state file: auto in charge, its policy and reason" \
	eval 'grep -q "^auto: *in charge (pid $$): noscan, exploit" "$OUT" && grep -q ": test$" "$OUT"'
run -j status
check "status -j: auto of the whole machine: cgroup null" \
	eval 'jq -e ".auto.running and .auto.policy == \"noscan\" and .auto.cgroup == null" "$OUT" >/dev/null'
printf 'pid %d\npolicy noscan\nphase exploit\nreason test\ncgroup /web/db\n' $$ >"$WAKEPLACE_AUTO_STATE"
run status
check "status: auto --cgroup in charge: the cgroup named" \
	eval 'grep -q "^auto: *in charge of cgroup /web/db (pid $$): noscan, exploit" "$OUT"'
run -j status
check "status -j: auto --cgroup: its cgroup" eval 'jq -e ".auto.cgroup == \"/web/db\"" "$OUT" >/dev/null'
printf 'pid 999999999\npolicy noscan\n' >"$WAKEPLACE_AUTO_STATE"
run -j status
check "status -j: a dead pid: auto not running" eval 'jq -e ".auto.running == false and .auto.pid == 999999999" "$OUT" >/dev/null'
rm -f "$WAKEPLACE_AUTO_STATE"
run -j status
check "status -j: no state file: auto null" eval 'jq -e ".auto == null" "$OUT" >/dev/null'
run status
check "status: no state file: no auto line" eval '! grep -q "^auto:" "$OUT"'
check "refusals wrote nothing to the tree" eval '[ "$(tree_sum "$T")" = "$SUM" ]'
run auto help
check "auto help: usage, exit 0" eval '[ $RC = 0 ] && grep -q "^Usage: wakeplacectl auto" "$OUT"'

# ---- --epochs, --fallback, --daemon ----------------------------------------
profile stock=$B32 noscan=$B11 prevsmt=$B99
start_fake
RC=0
timeout 120 "$WP_CTL" auto "${EP[@]}" --epochs 3 --fallback mirror --daemon >"$OUT" 2>"$ERR" || RC=$?
check "auto --epochs 3 --daemon: exit 0, journal lines on stderr, nothing on stdout" \
	eval '[ $RC = 0 ] && [ ! -s "$OUT" ] && grep -q "^<6>wakeplacectl auto: explore stock: start" "$ERR" && grep -q "^<6>wakeplacectl auto: exit: --epochs reached; policy mirror" "$ERR"'
check "auto --fallback mirror: left on mirror, state file removed" \
	eval 'policy_is mirror && [ ! -e "$WAKEPLACE_AUTO_STATE" ]'
echo stock >"$T/policy"

# ---- converges on the clearly best candidate; SIGTERM leaves stock ------------
start_auto "${EP[@]}"
wait_upto 120 decided choose noscan
# The tunable-free policies of module/policies (the fake tree's), but mirror.
want=stock
for p in $FAKE_POLICIES; do
	[ "$p" = stock ] || [ "$p" = mirror ] || [ -n "$(fake_tunables "$p")" ] ||
		want="$want $p"
done
check "default candidates: stock and the tunable-free policies but mirror ($want)" \
	eval '[ "$(head -1 "$LINES" | jq -r ".candidates | join(\" \")")" = "$want" ]'
check "converges: chooses noscan (11us) over stock (32us) and prevsmt (99us)" eval 'decided choose noscan || { diag; false; }'
check "converges: every candidate was explored before the choice" \
	eval '[ "$(sed "/\"action\":\"choose\"/q" "$LINES" | jq -r "select(.event == \"epoch\") | .policy" | sort -u | xargs)" = "$(tr " " "\n" <<<"$want" | sort | xargs)" ]'
check "converges: prevsmt was halved out after the first round" \
	eval '[ "$(grep "\"action\":\"choose\"" "$LINES" | jq -r ".scores[] | select(.policy == \"prevsmt\") | .in")" = false ]'
wait_upto 60 policy_is noscan
check "converges: the policy file says noscan" policy_is noscan
run -j status
check "status -j: auto running, its pid, policy noscan, exploit" \
	eval 'jq -e ".auto.running == true and .auto.pid == $AUTOPID and .auto.policy == \"noscan\" and .auto.phase == \"exploit\" and (.auto.reason | test(\"noscan\"))" "$OUT" >/dev/null'
run status
check "status: auto in charge, noscan, why" eval 'grep -q "^auto: *in charge (pid $AUTOPID): noscan, exploit, p99: best p99: noscan" "$OUT"'
end_auto TERM
check "SIGTERM: exit 0, back on stock, state file removed" \
	eval '[ "$ARC" = 0 ] && policy_is stock && [ ! -e "$WAKEPLACE_AUTO_STATE" ]'
check "SIGTERM: the last line is the exit event (reason signal, policy stock)" \
	eval 'tail -1 "$LINES" | jq -e ".event == \"exit\" and .reason == \"signal\" and .policy == \"stock\" and .rc == 0" >/dev/null'
check "JSON lines: every line is one object with an event" lines_ok
check "JSON lines: start, epoch, decision and exit events with their keys" \
	eval 'jq -e -s "(.[0].event == \"start\") and ([.[] | select(.event == \"epoch\") | has(\"time\") and has(\"epoch\") and has(\"phase\") and has(\"policy\") and has(\"objective\") and has(\"value\") and has(\"wakeups\") and has(\"counted\")] | length > 0 and all) and ([.[] | select(.event == \"decision\") | has(\"action\") and has(\"policy\") and has(\"reason\") and (.scores | type == \"array\")] | length > 0 and all)" "$LINES" >/dev/null'
check "JSON lines: the epochs' values are the profile's p99 (bucket midpoints)" \
	eval '[ "$(jq -r "select(.event == \"epoch\" and .policy == \"noscan\" and .counted) | .value" "$LINES" | sort -u)" = 11391.5 ]'

# ---- a reader that goes away (SIGPIPE): auto still leaves the fallback ------------
RC=0
timeout 120 "$WP_CTL" -j auto "${EP[@]}" --fallback mirror 2>"$ERR" | head -3 >"$OUT"
RC=${PIPESTATUS[0]}
check "closed pipe: exit 1 (not killed by SIGPIPE), left on the fallback" \
	eval '[ $RC = 1 ] && policy_is mirror && [ "$(wc -l <"$OUT")" = 3 ] && grep -q "cannot write the output" "$ERR"'
echo stock >"$T/policy"

# ---- every candidate worse than stock: stays on stock; SIGINT -------------------
profile stock=$B11 noscan=$B32 prevsmt=$B99
start_auto "${EP[@]}"
wait_upto 120 decided choose stock
check "all worse: chooses stock" eval 'decided choose stock || { diag; false; }'
sleep 1
check "all worse: the policy stays stock while exploiting" policy_is stock
end_auto INT
check "SIGINT: exit 0, stock" eval '[ "$ARC" = 0 ] && policy_is stock'

# ---- drift: the choice's latency moves: re-explore, then stock -------------------
profile stock=$B21 noscan=$B11
start_auto "${EP[@]}" --candidates noscan --drift 20 --margin 100
wait_upto 120 decided choose noscan
check "drift: noscan chosen first" eval 'decided choose noscan || { diag; false; }'
profile stock=$B21 noscan=$B32
wait_upto 120 eval 'grep -q "\"action\":\"explore\",\"policy\":\"noscan\",\"phase\":\"explore\",\"reason\":\"drift: noscan p99" "$LINES"'
# The window's mean: 32.0us once all 5 epochs are past the change, 25.9us
# with 4 (a test at 95% on a constant base needs 4 of 5 at 20%).
check "drift: its last 5 epochs beyond 20% of the values it was chosen on: re-explore" \
	eval 'grep -Eq "\"reason\":\"drift: noscan p99 (2[0-9]|3[0-2])\.[0-9]us over its last 5 epochs, was 11.4us when chosen\"" "$LINES" || { diag; false; }'
wait_upto 120 decided choose stock
check "drift: the new exploration chooses stock" eval 'decided choose stock || { diag; false; }'
end_auto HUP
check "SIGHUP: exit 0, stock" eval '[ "$ARC" = 0 ] && policy_is stock'

# ---- guardrail: the choice becomes worse than stock beyond the margin --------------
profile stock=$B21 noscan=$B11
start_auto "${EP[@]}" --candidates noscan --drift 1000 --margin 5 --recheck 2
wait_upto 120 decided choose noscan
check "guardrail: noscan chosen first" eval 'decided choose noscan || { diag; false; }'
profile stock=$B21 noscan=$B32
wait_upto 120 decided guardrail stock
check "guardrail: noscan 49% worse than stock's re-checks: back to stock" \
	eval 'decided guardrail stock && grep -q "noscan [0-9.]*us worse than stock.s 21.8us by more than 5%" "$LINES" || { diag; false; }'
check "guardrail: stock was re-checked during the exploitation" \
	eval 'jq -e -s "any(.[]; .event == \"epoch\" and .phase == \"recheck\" and .policy == \"stock\")" "$LINES" >/dev/null'
end_auto TERM
check "guardrail: SIGTERM after it: exit 0, stock" eval '[ "$ARC" = 0 ] && policy_is stock'

# ---- the module reverts a candidate: it is out; a policy set behind auto's back ------
# No stock re-checks here: the module reverts only the policy that runs,
# and a revert written during a re-check would be overwritten by auto's
# return to noscan (the fake has no module to refuse it).
profile stock=$B32 noscan=$B11
start_auto "${EP[@]}" --candidates noscan --recheck 0
wait_upto 120 decided choose noscan
echo "reverted: noscan: picks too slow" >"$T/state"
echo stock >"$T/policy"
wait_upto 60 decided reverted stock
check "revert: the module's revert puts noscan out, auto chooses stock" \
	eval 'decided reverted stock && { wait_upto 60 decided choose stock; } || { diag; false; }'
echo ok >"$T/state"
echo mirror >"$T/policy"
end_auto
check "a policy set behind auto's back: exit 1, says so, back on stock" \
	eval '[ "$ARC" = 1 ] && grep -q "behind auto.s back" "$LINES" && policy_is stock'
check "the failure's last line is the error document" eval 'tail -1 "$LINES" | jq -e "has(\"error\")" >/dev/null'

# ---- the module unloads (the tree vanishes): exit 3, nothing recreated -------------------
profile stock=$B32 noscan=$B11
start_auto "${EP[@]}"
wait_upto 120 eval 'grep -q "\"event\":\"epoch\"" "$LINES"'
mv "$T" "$T.gone"
end_auto
check "unload: auto exits 3 and says the module is not loaded" \
	eval '[ "$ARC" = 3 ] && grep -q "\"reason\":\"wakeplace module not loaded" "$LINES" || { diag; false; }'
check "unload: nothing recreated, state file removed" eval '[ ! -e "$T" ] && [ ! -e "$WAKEPLACE_AUTO_STATE" ]'
mv "$T.gone" "$T"
stop_fake

# ---- man page and completion know every option of auto ------------------------
run auto help
OPTS=$(grep -o -- "--[a-z-]*" "$OUT" | sort -u)
missing=""
for o in $OPTS; do
	grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$CTL_TOP/ctl/wakeplacectl.8" || missing="$missing $o"
done
check "man page: every option of auto help is documented" eval '[ -n "$OPTS" ] && [ -z "$missing" ] || { echo "missing:$missing"; false; }'
check "man page: AUTO section with candidates, objectives, rule, JSON lines" \
	eval 'for s in "AUTO" "SS Candidates" "SS Objectives" "SS Rule" "SS JSON lines"; do grep -q "^\.S[HS] *${s#SS }\$" "$CTL_TOP/ctl/wakeplacectl.8" || exit 1; done'
. "$CTL_TOP/ctl/bash-completion/wakeplacectl"
comp() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _wakeplacectl; echo "${COMPREPLY[*]}"; }
check "completion: auto's options" eval '[ "$(comp wakeplacectl auto --ob)" = "--objective" ] && [ "$(comp wakeplacectl auto --da)" = "--daemon" ]'
check "completion: every option of auto help" eval '[ "$(for o in $OPTS; do comp wakeplacectl auto "$o"; done | tr " " "\n" | sort -u | tr "\n" " ")" = "$(echo $OPTS) " ]'
check "completion: auto --objective values" eval '[ "$(comp wakeplacectl auto --objective "")" = "p99 mean wakeups" ]'
check "completion: auto --candidates completes the last name of the list" \
	eval '[ "$(comp wakeplacectl auto --candidates stock,nos)" = "stock,noscan" ]'
check "completion: auto --fallback policy names" eval '[ "$(comp wakeplacectl auto --fallback mi)" = "mirror" ]'

done_testing
