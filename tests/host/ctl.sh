#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# wakeplacectl against a fake sysfs tree: objects and commands, prefix
# matching, help, policy/tune/shadow writes, JSON, bad input (exit code and
# the tree unchanged), module not loaded (3), permission denied (4).
# TAP output.
set -u
. "$(dirname "$0")/../../ctl/test-lib.sh"

T=$TMPD/sys
make_tree "$T"
export WAKEPLACE_SYSFS=$T

# ---- help, version, prefixes ------------------------------------------------
run -h
check "-h prints the global help, exit 0" \
	eval '[ $RC = 0 ] && grep -q "Usage: wakeplacectl" "$OUT" && grep -q "policy" "$OUT"'
run policy help
check "policy help: object help" \
	eval '[ $RC = 0 ] && grep -q "wakeplacectl policy set NAME" "$OUT"'
run policy -h
check "policy -h: object help" \
	eval '[ $RC = 0 ] && grep -q "wakeplacectl policy set NAME" "$OUT"'
run help stats
check "help stats: object help" \
	eval '[ $RC = 0 ] && grep -q "stats reset" "$OUT"'
run -V
check "-V prints the tool's and the module's version" \
	eval '[ $RC = 0 ] && [ "$(sed -n 1p "$OUT")" = "wakeplacectl 0.1.0" ] && [ "$(sed -n 2p "$OUT")" = "module 0.1.0" ]'
RC=0; WAKEPLACE_SYSFS=$TMPD/none "$WP_CTL" -V >"$OUT" 2>"$ERR" || RC=$?
check "-V without the module: says so, exit 0" \
	eval '[ $RC = 0 ] && [ "$(sed -n 2p "$OUT")" = "module not loaded" ]'
run -j --version
check "-j -V: version JSON with the module's version" \
	eval '[ $RC = 0 ] && json_ok && [ "$(jq -r .version "$OUT")" = 0.1.0 ] && [ "$(jq -r .module_version "$OUT")" = 0.1.0 ]'
run
check "no object: usage error 2" eval '[ $RC = 2 ] && grep -q "missing OBJECT" "$ERR"'

NPOL=$(wc -w <<<"$FAKE_POLICIES")
run pol l
check "'pol l' is policy list" eval '[ $RC = 0 ] && grep -q "^\* stock" "$OUT" && [ $(grep -c "the .* policy" "$OUT") = $NPOL ]'
run s
check "'s' is ambiguous (status, stats, shadow): exit 2" \
	eval '[ $RC = 2 ] && grep -q "ambiguous object .s.: status, stats, shadow" "$ERR"'
run po s mirror
check "'po s' is ambiguous (show, set): exit 2" \
	eval '[ $RC = 2 ] && grep -q "ambiguous command" "$ERR"'
run frob
check "unknown object: exit 2, one line naming the fix" \
	eval '[ $RC = 2 ] && [ $(wc -l <"$ERR") = 1 ] && grep -q "unknown object .frob." "$ERR" && grep -q "wakeplacectl help" "$ERR"'
run policy frob
check "unknown command: exit 2" eval '[ $RC = 2 ] && grep -q "unknown command .frob." "$ERR"'
run policy
check "policy without command lists" eval '[ $RC = 0 ] && grep -q "^  mirror" "$OUT"'

# ---- policy list / show ------------------------------------------------------
echo mirror >"$T/shadow"
run policy list
check "policy list marks active (*) and shadow (+)" \
	eval 'grep -q "^\* stock  *the stock policy" "$OUT" && grep -q "^+ mirror  *the mirror policy" "$OUT"'
run -j policy list
check "policy list -j: valid, $NPOL policies, active/shadow flags" \
	eval 'json_ok && [ "$(jq -r ".policies|length" "$OUT")" = $NPOL ] &&
	      [ "$(jq -r ".active" "$OUT")" = stock ] &&
	      [ "$(jq -r ".policies[]|select(.active)|.name" "$OUT")" = stock ] &&
	      [ "$(jq -r ".policies[]|select(.shadow)|.name" "$OUT")" = mirror ] &&
	      [ "$(jq -r ".timestamp|type" "$OUT")" = number ]'
echo off >"$T/shadow"
run policy show
check "policy show defaults to the active policy" \
	eval '[ $RC = 0 ] && grep -q "^policy: *stock (active)" "$OUT" && grep -q "tunables: *none" "$OUT"'
run policy show cachehot
check "policy show NAME: tunables with value and range" \
	eval '[ $RC = 0 ] && grep -Eq "^  hot_us +2000 +1 +1000000$" "$OUT" && grep -Eq "^  short_us +500 +1 +1000000$" "$OUT"'
echo 7 >"$T/policies/idlemask/max_tries"
run -p policy show idlemask
check "policy show -p: value read from the tunable's file, ranges as integers" \
	eval 'json_ok && [ "$(jq -c "[.tunables[0].name,.tunables[0].value,.tunables[0].min,.tunables[0].max]" "$OUT")" = "[\"max_tries\",7,1,64]" ] && grep -q "^  \"name\"" "$OUT"'
echo 4 >"$T/policies/idlemask/max_tries"
printf 'inbound 12\nspread 3\n' >"$T/policies/idlemask/counters"
run policy show idlemask
check "policy show NAME: the policy's own counters under its tunables" \
	eval '[ $RC = 0 ] && grep -q "^counters: " "$OUT" && grep -Eq "^  inbound +12$" "$OUT" && grep -Eq "^  spread +3$" "$OUT"'
run -j policy show idlemask
check "policy show -j: counters as an object of numbers" \
	eval 'json_ok && [ "$(jq -c .counters "$OUT")" = "{\"inbound\":12,\"spread\":3}" ]'
rm "$T/policies/idlemask/counters"
run -j policy show idlemask
check "policy show -j without a counters file: counters null" \
	eval 'json_ok && [ "$(jq -c .counters "$OUT")" = null ]'
run policy show idlemask
check "policy show without a counters file: no counters line" \
	eval '[ $RC = 0 ] && ! grep -q "^counters" "$OUT"'

# ---- policy set / tune ---------------------------------------------------------
run policy set mirror
check "policy set NAME writes policy, prints nothing" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/policy")" = mirror ] && [ ! -s "$OUT" ]'
run -v policy set cachehot hot_us=3000 short_us=700
check "policy set with tunables writes them and the policy; -v says so" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/policy")" = cachehot ] &&
	      [ "$(cat "$T/policies/cachehot/hot_us")" = 3000 ] &&
	      [ "$(cat "$T/policies/cachehot/short_us")" = 700 ] &&
	      grep -q "cachehot/hot_us: 2000 -> 3000" "$OUT" && grep -q "cachehot/short_us: 500 -> 700" "$OUT" &&
	      grep -q "policy: mirror -> cachehot" "$OUT"'
run -j policy set util scale_pct=55
check "policy set -j: result document" \
	eval '[ $RC = 0 ] && json_ok && [ "$(jq -r .policy "$OUT")" = util ] &&
	      [ "$(jq -r .previous "$OUT")" = cachehot ] && [ "$(jq -r .tunables.scale_pct "$OUT")" = 55 ] &&
	      [ "$(cat "$T/policies/util/scale_pct")" = 55 ]'
run tune bounded scan_max=0
check "tune writes the tunable without switching" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/policies/bounded/scan_max")" = 0 ] && [ "$(cat "$T/policy")" = util ] && [ ! -s "$OUT" ]'
run tune bounded scan_max=1024
check "tune accepts the maximum" eval '[ $RC = 0 ] && [ "$(cat "$T/policies/bounded/scan_max")" = 1024 ]'
run tune bounded
check "tune NAME without KEY=VALUE shows the tunables" eval '[ $RC = 0 ] && grep -Eq "^  scan_max +1024 +0 +1024$" "$OUT"'
run -j tune idlemask max_tries=8
check "tune -j: result document" \
	eval '[ $RC = 0 ] && json_ok && [ "$(jq -r .tunables.max_tries "$OUT")" = 8 ] && [ "$(cat "$T/policies/idlemask/max_tries")" = 8 ]'
run t idlemask max_tries=3
check "'t' is tune" eval '[ $RC = 0 ] && [ "$(cat "$T/policies/idlemask/max_tries")" = 3 ]'

# ---- shadow -------------------------------------------------------------------------
run shadow set noscan
check "shadow set NAME writes shadow" eval '[ $RC = 0 ] && [ "$(cat "$T/shadow")" = noscan ]'
run shadow show
check "shadow show: compared/agreed of the shadow's stats" \
	eval '[ $RC = 0 ] && grep -q "shadow: *noscan" "$OUT" && grep -q "compared: *200" "$OUT" && grep -q "agreed: *150 (75.0%)" "$OUT"'
run -j shadow
check "shadow -j: integers and agreement" \
	eval 'json_ok && [ "$(jq -c "[.shadow,.compared,.agreed,.agreement_pct]" "$OUT")" = "[\"noscan\",200,150,75]" ]'
run shadow set off
check "shadow set off" eval '[ $RC = 0 ] && [ "$(cat "$T/shadow")" = off ]'
run -j shadow show
check "shadow show -j when off: nulls" eval 'json_ok && [ "$(jq -c "[.shadow,.compared]" "$OUT")" = "[\"off\",null]" ]'

# ---- bad input: exit code, message, and nothing written -----------------------------
make_tree "$T"
long65=$(printf 'a%.0s' $(seq 65))
long5000=$(printf 'x%.0s' $(seq 5000))
bad() { # bad EXPECTED_RC DESC ARGS...
	local want=$1 desc=$2 before after
	shift 2
	before=$(tree_sum "$T")
	run "$@"
	after=$(tree_sum "$T")
	if [ "$RC" = "$want" ] && [ "$before" = "$after" ] && [ -s "$ERR" ] &&
	   [ "$(wc -l <"$ERR")" = 1 ] && [ ! -s "$OUT" ]; then
		ok "refused ($want), tree unchanged: $desc"
	else
		not_ok "refused ($want), tree unchanged: $desc" "rc=$RC tree $( [ "$before" = "$after" ] && echo same || echo CHANGED)" \
			"stderr: $(cat "$ERR")" "stdout: $(head -c 500 "$OUT")"
	fi
}
bad 2 "unknown policy" policy set nope
bad 2 "unknown policy to show" policy show nope
bad 2 "invalid policy name" policy set 'bad name!'
bad 2 "policy name > 64 chars" policy set "$long65"
bad 2 "argument > 4096 chars" policy set mirror "$long5000"
bad 2 "more than 4096 arguments" tune bounded $(seq 5000)
bad 2 "missing NAME" policy set
bad 2 "KEY without =" policy set bounded scan_max
bad 2 "empty KEY" policy set bounded =5
bad 2 "unknown KEY" policy set bounded foo=1
bad 2 "KEY > 64 chars" policy set bounded "$long65=1"
bad 2 "non-numeric VALUE" policy set bounded scan_max=abc
bad 2 "empty VALUE" policy set bounded scan_max=
bad 2 "VALUE with trailing junk" policy set bounded scan_max=8x
bad 2 "VALUE in exponent form" policy set bounded scan_max=1e1
bad 2 "VALUE above max" policy set bounded scan_max=1025
bad 2 "VALUE below min" policy set idlemask max_tries=0
bad 2 "negative VALUE below min" policy set idlemask max_tries=-1
bad 2 "VALUE overflowing 64 bits" policy set bounded scan_max=99999999999999999999999
bad 2 "second KEY=VALUE bad: first not written" policy set cachehot hot_us=3000 short_us=0
bad 2 "duplicate KEY" policy set cachehot hot_us=3000 hot_us=4000
bad 2 "KEY for a policy without tunables" tune mirror scan_max=1
bad 2 "tune unknown KEY" tune util foo=1
bad 2 "tune out of range" tune util scale_pct=1001
bad 2 "shadow set unknown" shadow set nope
bad 2 "shadow set without NAME" shadow set
bad 2 "stats reset unknown" stats reset nope
bad 2 "stats --policy unknown" stats --policy nope
bad 2 "stats --interval 0" stats --interval 0
bad 2 "stats --interval non-numeric" stats --interval abc
bad 2 "stats --count 0" stats --interval 1 --count 0
bad 2 "stats --count without --interval" stats --count 3
bad 2 "stats unknown option" stats --frob
bad 2 "stats period 0" stats period 0
bad 2 "stats period 65537" stats period 65537
bad 2 "stats period non-numeric" stats period 12a
bad 2 "stats latency-sample 65537" stats latency-sample 65537
bad 2 "stats latency-sample negative" stats latency-sample -1
bad 2 "watch -i 0" watch -i 0
bad 2 "watch unknown option" watch --frob
bad 2 "policy list with argument" policy list extra
bad 2 "status with argument" status extra
bad 2 "load unknown option" load --frob
bad 2 "--sysfs without DIR" policy list --sysfs
bad 2 "option value missing" stats --policy
[ "$(cat "$T/policies/bounded/scan_max")" = 4 ] && [ "$(cat "$T/policies/idlemask/max_tries")" = 4 ] &&
	[ "$(cat "$T/policies/cachehot/hot_us")" = 2000 ] && [ "$(cat "$T/policies/util/scale_pct")" = 100 ] &&
	[ "$(cat "$T/policy")" = stock ] &&
	ok "after all refusals: tunables and policy as before" ||
	not_ok "after all refusals: tunables and policy as before"

# JSON error documents
run -j policy set bounded scan_max=1025
check "-j error: exactly one document {\"error\"}, exit 2, nothing on stderr" \
	eval '[ $RC = 2 ] && json_ok && jq -e ".error|test(\"out of range\")" "$OUT" >/dev/null && [ ! -s "$ERR" ] && [ "$(jq -r "keys|join(\",\")" "$OUT")" = error ]'
run -j watch
check "watch -j: usage error document, exit 2" eval '[ $RC = 2 ] && json_ok && jq -e ".error|test(\"no JSON\")" "$OUT" >/dev/null'
run -p frob
check "-p error: pretty error document" eval '[ $RC = 2 ] && json_ok && grep -q "^  \"error\": " "$OUT"'

# A write the "kernel" refuses (here: an unwritable target) undoes earlier
# tunable writes and leaves the policy alone.
rm -f "$T/policies/cachehot/short_us"
mkdir "$T/policies/cachehot/short_us"
run policy set cachehot hot_us=3000 short_us=700
check "failed write: exit 1, first tunable restored, policy unchanged" \
	eval '[ $RC = 1 ] && [ "$(cat "$T/policies/cachehot/hot_us")" = 2000 ] && [ "$(cat "$T/policy")" = stock ] && grep -q "short_us" "$ERR"'
rmdir "$T/policies/cachehot/short_us"
echo 500 >"$T/policies/cachehot/short_us"
mv "$T/policy" "$T/policy.real"
ln -s /dev/full "$T/policy"
run policy set bounded scan_max=9
check "failed policy write: exit 1, tunables restored" \
	eval '[ $RC = 1 ] && [ "$(cat "$T/policies/bounded/scan_max")" = 4 ] && grep -q "previous policy stays active" "$ERR"'
rm "$T/policy"
ln -s /dev/null "$T/policy"
run policy set mirror
check "policy that does not read back: exit 1 (verified by re-reading)" \
	eval '[ $RC = 1 ] && grep -q "accepted but" "$ERR"'
rm "$T/policy"
mv "$T/policy.real" "$T/policy"

# ---- module not loaded: exit 3 -------------------------------------------------
for cmd in "policy list" "policy show" "policy set mirror" "tune bounded scan_max=2" \
	   "stats" "stats reset" "shadow show" "shadow set off" "stats period" "watch" \
	   "stats latency-sample" "stats --outcomes"; do
	# shellcheck disable=SC2086
	RC=0; "$WP_CTL" --sysfs "$TMPD/none" $cmd >"$OUT" 2>"$ERR" </dev/null || RC=$?
	check "not loaded: '$cmd' exits 3 and suggests load" \
		eval '[ $RC = 3 ] && grep -q "not loaded" "$ERR" && grep -q "wakeplacectl load" "$ERR"'
done
run --sysfs "$TMPD/none" unload
check "not loaded: unload exits 3" eval '[ $RC = 3 ] && grep -q "not loaded" "$ERR"'
RC=0; WAKEPLACE_SYSFS=$TMPD/none "$WP_CTL" -j policy list >"$OUT" 2>"$ERR" || RC=$?
check "not loaded via WAKEPLACE_SYSFS, -j: error document, exit 3" \
	eval '[ $RC = 3 ] && json_ok && jq -e ".error|test(\"not loaded\")" "$OUT" >/dev/null'

# ---- permission denied: exit 4 ---------------------------------------------------
make_tree "$T"
if [ "$(id -u)" = 0 ]; then
	if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
		asuser() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	elif runuser -u nobody -- true 2>/dev/null; then
		asuser() { runuser -u nobody -- "$@"; }
	else
		asuser() { return 99; }
	fi
	how="as nobody"
else
	asuser() { "$@"; }
	chmod 0444 "$T/policy" "$T/shadow" "$T/stats/reset" "$T/policies/bounded/scan_max" "$T/sample_period" "$T/latency_sample"
	how="read-only files"
fi
for cmd in "policy set mirror" "tune bounded scan_max=2" "shadow set mirror" "stats reset" "stats period 8" \
	   "stats latency-sample 8"; do
	before=$(tree_sum "$T")
	# shellcheck disable=SC2086
	RC=0; asuser "$WP_CTL" --sysfs "$T" $cmd >"$OUT" 2>"$ERR" || RC=$?
	if [ "$RC" = 99 ]; then
		skip "permission denied: '$cmd'" "neither setpriv nor runuser work"
		continue
	fi
	check "permission denied ($how): '$cmd' exits 4, names the fix, tree unchanged" \
		eval '[ $RC = 4 ] && grep -q "Permission denied" "$ERR" && grep -q "run as root" "$ERR" && [ "$before" = "$(tree_sum "$T")" ]'
done
RC=0; asuser "$WP_CTL" --sysfs "$T" -j policy set mirror >"$OUT" 2>"$ERR" || RC=$?
check "permission denied -j: error document, exit 4" \
	eval '[ $RC = 4 ] && json_ok && jq -e ".error|test(\"Permission denied\")" "$OUT" >/dev/null'
RC=0; asuser "$WP_CTL" --sysfs "$T" policy list >"$OUT" 2>"$ERR" || RC=$?
check "reading works without privileges ($how)" eval '[ $RC = 0 ] && grep -q mirror "$OUT"'

done_testing
