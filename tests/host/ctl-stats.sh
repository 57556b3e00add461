#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# wakeplacectl stats (table, JSON, selection, reset, period, interval
# deltas) and watch (live screen in a detached tmux session) against a fake
# sysfs tree.  TAP output.
set -u
. "$(dirname "$0")/../../ctl/test-lib.sh"

T=$TMPD/sys
make_tree "$T"
export WAKEPLACE_SYSFS=$T
SOCK=wpctl-test-$$
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMPD"' EXIT

row() { # row NAME [N]: policy NAME's row of table N (1) of $OUT ('*': active)
	table_rows "${2:-1}" <"$OUT" | grep -E "^$1\*? "
}

nrows() { # nrows N: how many rows table N of $OUT has
	table_rows "$1" <"$OUT" | wc -l
}

# ---- cumulative table -------------------------------------------------------------
run stats
check "stats: exit 0, header line with active/shadow/state/period" \
	eval '[ $RC = 0 ] && grep -q "^active: stock  shadow: off  state: ok  sample_period: 64" "$OUT"'
check "stats: default rows are the active policy and those with picks" \
	eval 'row "stock" >/dev/null && row mirror >/dev/null && row noscan >/dev/null && ! row bounded >/dev/null &&
	      [ $(nrows 1) = 3 ] && [ $(nrows 2) = 3 ] && [ $(nrows 3) = 3 ] && [ $(nrows 4) = 3 ]'
check "stats: the active policy is marked" eval 'grep -q "^stock\* " "$OUT"'
read -ra F <<<"$(row mirror)"
read -ra G <<<"$(row mirror 2)"
check "stats: mirror picks 1000, outcomes in % of picks" \
	eval '[ "${F[1]}" = 1000 ] && [ "${F[2]}" = 40.0% ] && [ "${F[3]}" = 30.0% ] && [ "${F[4]}" = 10.0% ] && [ "${F[5]}" = 15.0% ] && [ "${F[6]}" = 0.0% ] && [ "${F[7]}" = 4.0% ] && [ "${F[8]}" = 1.0% ] && [ "${F[9]}" = 2.0% ]'
check "stats: scan length 2.50, remote lines 3.00/pick, cross-LLC 5%, not-prev 60%" \
	eval '[ "${G[1]}" = 2.50 ] && [ "${G[2]}" = 3.00 ] && [ "${G[3]}" = 5.0% ] && [ "${G[4]}" = 60.0% ]'
check "stats: cost p50 362ns, p99 5.8us (geometric bucket midpoints), no shadow" \
	eval '[ "${G[5]}" = 362ns ] && [ "${G[6]}" = 5.8us ] && [ "${G[7]}" = - ]'
read -ra G <<<"$(row noscan 2)"
check "stats: shadow agreement 75.0% (150 of 200)" eval '[ "${G[7]}" = 75.0% ]'
read -ra F <<<"$(row stock)"
read -ra G <<<"$(row stock 2)"
check "stats: policy without picks shows dashes" eval '[ "${F[1]}" = 0 ] && [ "${F[2]}" = - ] && [ "${G[5]}" = - ]'

run stats --policy mirror
check "stats --policy mirror: only mirror" eval '[ $RC = 0 ] && row mirror >/dev/null && [ $(nrows 1) = 1 ] && [ $(nrows 4) = 1 ]'
run stats --policy bounded --policy=noscan
check "stats --policy twice (also --policy=NAME)" \
	eval '[ $RC = 0 ] && row bounded >/dev/null && row noscan >/dev/null && ! row mirror >/dev/null'
run st -a
check "ambiguous 'st' refused" eval '[ $RC = 2 ]'
run stats -a
NPOL=$(wc -w <<<"$FAKE_POLICIES")
check "stats -a: all $NPOL policies" eval '[ $RC = 0 ] && [ $(nrows 1) = $NPOL ] && [ $(nrows 3) = $NPOL ]'
run stats sh --all
check "'stats sh --all' works" eval '[ $RC = 0 ] && [ $(nrows 1) = $NPOL ]'

run -j stats
check "stats -j: one document, default selection" \
	eval '[ $RC = 0 ] && json_ok && [ "$(jq -c "[.policies[].name]" "$OUT")" = "[\"stock\",\"mirror\",\"noscan\"]" ]'
check "stats -j: raw counters are integers, histograms have 32 buckets" \
	eval 'jq -e ".policies[1] | (.picks == 1000 and .scanned == 2500 and .remote_lines == 3000 and (.cost_hist|length) == 32 and (.scan_hist|length) == 32 and .cost_hist[8] == 60)" "$OUT" >/dev/null &&
	      jq -e "[.counters | del(.idle_pending, .remark_held, .audited, .false_busy)[]] | all(type == \"number\" and . == floor)" "$OUT" >/dev/null &&
	      [ "$(jq -r .counters.calls "$OUT")" = 5000 ]'
check "stats -j: derived values" \
	eval 'jq -e ".policies[1].derived | (.target_pct == 40 and .handback_pct == 1 and .local_pct == 2 and .scan_length == 2.5 and .remote_lines_per_pick == 3 and .cross_llc_pct == 5 and .not_prev_pct == 60 and .cost_p50_ns == 362 and .cost_p99_ns == 5793 and .cost_mean_ns == 500 and .shadow_agreement_pct == null)" "$OUT" >/dev/null &&
	      jq -e ".policies[2].derived.shadow_agreement_pct == 75" "$OUT" >/dev/null &&
	      jq -e ".policies[0].derived.target_pct == null" "$OUT" >/dev/null'
check "stats -j: timestamp is a CLOCK_MONOTONIC number" \
	eval 'jq -e ".timestamp|type == \"number\"" "$OUT" >/dev/null && awk -v t="$(jq .timestamp "$OUT")" -v u="$(cut -d" " -f1 /proc/uptime)" "BEGIN { exit !(t > 0 && t <= u + 1) }"'
run -p stats --policy mirror
check "stats -p: pretty, one policy" eval '[ $RC = 0 ] && json_ok && [ "$(jq ".policies|length" "$OUT")" = 1 ] && [ $(wc -l <"$OUT") -gt 20 ]'

# ---- reset, period -------------------------------------------------------------------
run stats reset
check "stats reset writes all" eval '[ $RC = 0 ] && [ "$(cat "$T/stats/reset")" = all ] && [ ! -s "$OUT" ]'
run stats reset mirror
check "stats reset NAME writes the name" eval '[ $RC = 0 ] && [ "$(cat "$T/stats/reset")" = mirror ]'
run -j stats res all
check "stats res all -j" eval '[ $RC = 0 ] && json_ok && [ "$(jq -r .reset "$OUT")" = all ] && [ "$(cat "$T/stats/reset")" = all ]'
run stats period
check "stats period shows sample_period" eval '[ $RC = 0 ] && grep -q "sample_period: 64" "$OUT"'
run stats period 128
check "stats period N writes it" eval '[ $RC = 0 ] && [ "$(cat "$T/sample_period")" = 128 ]'
run -j stats period 1
check "stats period -j" eval '[ $RC = 0 ] && json_ok && [ "$(jq .sample_period "$OUT")" = 1 ] && [ "$(cat "$T/sample_period")" = 1 ]'
echo 64 >"$T/sample_period"

# ---- interval deltas ------------------------------------------------------------------------
# The tool says "sampled 0" (with -v) once it has read the first sample; the
# files are changed after that, within the 2 s interval.
make_tree "$T"
: >"$OUT"; : >"$ERR"
"$WP_CTL" -v stats --interval 2 --count 2 >"$OUT" 2>"$ERR" &
pid=$!
wait_for grep -q "sampled 0" "$ERR"
stats_file 3000 | put "$T/stats/mirror"
counters_file 9000 3000 | put "$T/counters"
wait "$pid"; RC=$?
el=$(sed -n 's/^# interval 1: \([0-9.]*\) s.*/\1/p' "$OUT")
interval() { # interval K: the report of interval K in $OUT
	awk -v k="$1:" '/^# interval / { f = ($3 == k) } f' "$OUT"
}
r1=$(interval 1 | table_rows 1 | grep "^mirror ")
r2=$(interval 2 | table_rows 1 | grep "^mirror ")
read -ra F <<<"$r1"
# shellcheck disable=SC2034 # read by the eval'd check below
read -ra G <<<"$(interval 1 | table_rows 2 | grep "^mirror ")"
check "stats --interval: rate = delta/elapsed (2000 picks in ${el:-?} s)" \
	eval '[ $RC = 0 ] && [ -n "$el" ] && awk -v r="${F[1]}" -v e="$el" "BEGIN { x = 2000 / e; exit !(r >= x - 1.5 && r <= x + 1.5) }"'
check "stats --interval: outcomes are % of the interval's picks" \
	eval '[ "${F[2]}" = 40.0% ] && [ "${G[1]}" = 2.50 ] && [ "${G[5]}" = 362ns ]'
check "stats --interval: hook counters per second" \
	eval 'grep "^# hook/s" "$OUT" | head -1 | awk -v e="$el" "{ x = 4000 / e; exit !(\$4 >= x - 1.5 && \$4 <= x + 1.5) }"'
# shellcheck disable=SC2034 # read by the eval'd check below
read -ra F <<<"$r2"
check "stats --interval: no change in the 2nd interval gives 0/s and dashes" \
	eval '[ "${F[1]}" = 0 ] && [ "${F[2]}" = - ]'
check "stats --interval: the count is honoured" eval '[ $(grep -c "^# interval" "$OUT") = 2 ]'

make_tree "$T"
: >"$OUT"; : >"$ERR"
"$WP_CTL" -v -j stats --interval 2 --count 2 >"$OUT" 2>"$ERR" &
pid=$!
wait_for grep -q "sampled 0" "$ERR"
stats_file 1500 | put "$T/stats/mirror"
wait_for grep -q "sampled 1" "$ERR"
stats_file 300 | put "$T/stats/mirror"	# a reset in between
wait "$pid"; RC=$?
check "stats -j --interval: one document with 2 samples" \
	eval '[ $RC = 0 ] && json_ok && [ "$(jq ".samples|length" "$OUT")" = 2 ] && [ "$(jq .interval "$OUT")" = 2.000 -o "$(jq .interval "$OUT")" = 2 ]'
check "stats -j --interval: exact delta and picks_per_s = delta/elapsed" \
	eval 'jq -e ".samples[0] | (.policies[] | select(.name == \"mirror\")) as \$m | \$m.picks == 500 and \$m.target == 200 and ((\$m.picks_per_s - 500 / .elapsed) | fabs) < 0.01" "$OUT" >/dev/null'
check "stats -j --interval: counter reset in between counts from zero" \
	eval 'jq -e ".samples[1].policies[] | select(.name == \"mirror\") | .picks == 300" "$OUT" >/dev/null'
check "stats -j --interval: counters deltas are integers" \
	eval 'jq -e ".samples[0].counters.calls == 0 and (.samples[0].elapsed > 1.5)" "$OUT" >/dev/null'

# SIGINT ends an endless --interval run cleanly.
: >"$OUT"; : >"$ERR"
"$WP_CTL" -v stats --interval 0.2 >"$OUT" 2>"$ERR" &
pid=$!
wait_for grep -q "sampled 2" "$ERR"
kill -INT "$pid"
wait "$pid"; RC=$?
check "stats --interval without --count stops on SIGINT with exit 0" \
	eval '[ $RC = 0 ] && [ $(grep -c "^# interval" "$OUT") -ge 2 ]'

# ---- watch ------------------------------------------------------------------------------------
if ! command -v tmux >/dev/null; then
	skip "watch under tmux" "tmux not installed"
	done_testing
fi
make_tree "$T"
cap() { tmux -L "$SOCK" capture-pane -p -t "$1" >"$OUT"; }
start_watch() { # start_watch SESSION ARGS...
	local s=$1
	shift
	rm -f "$TMPD/$s.rc" "$TMPD/$s.stty"
	tmux -L "$SOCK" new-session -d -s "$s" -x 110 -y 30 \
		"WAKEPLACE_SYSFS='$T' '$WP_CTL' watch $*; echo \$? >'$TMPD/$s.rc'; stty -a >'$TMPD/$s.stty'; sleep 120"
}
screen_has() { cap "$1"; grep -q "$2" "$OUT"; }
mirror_rate() { # the first table's mirror row only
	cap "$1"
	awk '$1 == "mirror" { if ($2 != "-" && $2 > 0) { print $2; f = 1 }; exit } END { exit !f }' "$OUT"
}

start_watch w1 -i 2
# The whole screen, not only its first lines: tmux may be captured while
# the tool is still drawing (a tty's stdout is line-buffered).
first_screen() {
	screen_has w1 "^POLICY *PICKS/s" && grep -q "^stock\*" "$OUT" && grep -q "^mirror " "$OUT" && grep -q "^noscan " "$OUT" && grep -q "policy: stock  shadow: off  state: ok" "$OUT"
}
check "watch: screen shows header, table and the policies with picks" wait_for first_screen
check "watch: table rows fit 80 columns (sline cuts longer ones there)" \
	eval 'awk "/^(POLICY|stock|mirror|noscan) / && length > 80 {exit 1}" "$OUT"'
check "watch: runs in the alternate screen" \
	eval '[ "$(tmux -L "$SOCK" display -p -t w1 "#{alternate_on}")" = 1 ]'
stats_file 3000 | put "$T/stats/mirror"
counters_file 9000 3000 | put "$T/counters"
if wait_for mirror_rate w1 >/dev/null; then
	rate=$(mirror_rate w1)
	ok "watch: a rate appears for mirror after its picks grow"
	check "watch: mirror rate ~ 2000 picks / 2 s (got $rate)" \
		eval '[ "$rate" -ge 900 ] && [ "$rate" -le 1100 ]'
	check "watch: outcome mix of the interval" eval 'awk "\$1 == \"mirror\" {exit !(\$3 == \"40%\" && \$4 == \"30%\" && \$9 == \"1%\" && \$10 == \"2%\" && \$11 == \"362ns\")}" "$OUT"'
	check "watch: hook rates" eval 'grep -q "calls/s 2000" "$OUT" || grep -Eq "calls/s (19[0-9][0-9]|20[0-9][0-9])" "$OUT"'
else
	not_ok "watch: a rate appears for mirror after its picks grow" "$(cat "$OUT")"
fi
tmux -L "$SOCK" send-keys -t w1 a
check "watch: 'a' shows all policies" eval 'wait_for screen_has w1 "^cachehot "'
tmux -L "$SOCK" send-keys -t w1 q
check "watch: 'q' quits with exit 0" eval 'wait_for test -s "$TMPD/w1.rc" && [ "$(cat "$TMPD/w1.rc")" = 0 ]'
check "watch: terminal restored after q (icanon, echo, main screen)" \
	eval 'wait_for test -s "$TMPD/w1.stty" && grep -Eq "(^| )icanon( |$)" "$TMPD/w1.stty" && grep -Eq "(^| )echo( |$)" "$TMPD/w1.stty" && [ "$(tmux -L "$SOCK" display -p -t w1 "#{alternate_on}")" = 0 ]'

start_watch w2 -i 0.5
wait_for screen_has w2 "^POLICY"
tmux -L "$SOCK" send-keys -t w2 C-c
check "watch: Ctrl-C quits with exit 0" eval 'wait_for test -s "$TMPD/w2.rc" && [ "$(cat "$TMPD/w2.rc")" = 0 ]'
check "watch: terminal restored after Ctrl-C" \
	eval 'wait_for test -s "$TMPD/w2.stty" && grep -Eq "(^| )icanon( |$)" "$TMPD/w2.stty" && grep -Eq "(^| )echo( |$)" "$TMPD/w2.stty"'

# Not on a terminal: SIGTERM ends it and the screen is restored.
: >"$OUT"; : >"$ERR"
"$WP_CTL" watch -i 0.2 </dev/null >"$OUT" 2>"$ERR" &
pid=$!
wait_for grep -q "POLICY" "$OUT"
kill -TERM "$pid"
wait "$pid"
# shellcheck disable=SC2034 # read by the eval'd check below
RC=$?
check "watch without a tty: SIGTERM exits 0 and leaves the alternate screen" \
	eval '[ $RC = 0 ] && grep -q "$(printf "\033\\[?1049l")" "$OUT"'

# Module gone while watching: exit 3, terminal restored.
start_watch w3 -i 0.2
wait_for screen_has w3 "^POLICY"
mv "$T" "$T.gone"
check "watch: module unloaded meanwhile: exit 3" \
	eval 'wait_for test -s "$TMPD/w3.rc" && [ "$(cat "$TMPD/w3.rc")" = 3 ]'
mv "$T.gone" "$T"

done_testing
