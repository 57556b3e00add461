#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# wakeplacectl and issue 12's latency ABI against a fake sysfs tree:
# percentiles of a known histogram (hand-computed in ctl/test-lib.sh),
# quality counters, --outcomes, interval deltas of the histograms, JSON
# schema, 80 columns with long names and huge numbers, stats
# latency-sample, and a module older than latency tracking.  TAP output.
set -u
. "$(dirname "$0")/../../ctl/test-lib.sh"

T=$TMPD/sys
make_tree "$T"
export WAKEPLACE_SYSFS=$T
SOCK=wpctl-lat-$$
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMPD"' EXIT

row() { # row NAME N: policy NAME's row of table N of $OUT
	table_rows "$2" <"$OUT" | grep -E "^$1\*? "
}

# outcome ROW [POLICY]: the --outcomes line of ROW under POLICY (mirror).
outcome() {
	awk -v p="${2:-mirror}" -v r="$1" '/^[^ ]/ { f = ($1 == p || $1 == p "*") } f && $1 == r' "$OUT"
}

jqe() { # jqe FILTER: the document in $OUT satisfies FILTER
	jq -e "$1" "$OUT" >/dev/null
}

# fits80 FILE: every line of FILE is at most 80 characters.
fits80() {
	awk 'length > 80 { print "line " NR " has " length " columns: " $0; bad = 1 } END { exit bad }' "$1"
}

# ---- cumulative ------------------------------------------------------------------------
run stats
read -ra F <<<"$(row mirror 3)"
check "stats: mirror latency 1000 tracked, 250 unplaced (20.0% of both), p50 10ns p90 145ns p99 11.4us p99.9 7.4ms" \
	eval '[ $RC = 0 ] && [ "${F[*]}" = "mirror 1000 250 20.0% 10ns 145ns 11.4us 7.4ms" ]'
read -ra F <<<"$(row mirror 4)"
check "stats: quality in % of tracked: stacked 25.0 missed 10.0 double 3.0 moved 12.5 migrated 60.0 migrated_llc 4.5" \
	eval '[ "${F[*]}" = "mirror 25.0% 10.0% 3.0% 12.5% 60.0% 4.5%" ]'
check "stats: the quality header has MISSED right after STACKED" \
	eval 'grep -Eq "^POLICY +STACKED +MISSED +DOUBLE +MOVED +MIGRATED +MIG-LLC$" "$OUT"'
read -ra F <<<"$(row noscan 3)"
check "stats: a policy without latency samples: 0 and dashes, its unplaced still shown" eval '[ "${F[*]}" = "noscan 0 125 20.0% - - - -" ]'
check "stats: header shows latency_sample and lat_dropped" \
	eval 'grep -q "latency_sample: 1" "$OUT" && grep -q "lat_dropped: 12" "$OUT"'
check "stats: no per-outcome rows without --outcomes" eval '! grep -q "^OUTCOME" "$OUT"'
check "stats: every line fits in 80 columns" fits80 "$OUT"

run stats --outcomes
check "stats --outcomes: exit 0, ten rows per policy in the ABI order (unplaced last)" \
	eval '[ $RC = 0 ] && [ "$(awk "/^mirror\$/ {f = 1; next} /^[^ ]/ {f = 0} f {printf \"%s \", \$1}" "$OUT")" = "$LAT_ROWS " ]'
read -ra F <<<"$(outcome all)"
check "stats --outcomes: all = the cumulative row, stacked 25.0% missed 10.0% double 3.0% of tracked" \
	eval '[ "${F[*]}" = "all 1000 25.0% 10.0% 3.0% 10ns 145ns 11.4us 7.4ms" ]'
check "stats --outcomes: header OUTCOME COUNT STACKED MISSED DOUBLE LAT50 ..." \
	eval 'grep -Eq "^OUTCOME +COUNT +STACKED +MISSED +DOUBLE +LAT50 +LAT90 +LAT99 +LAT99.9$" "$OUT"'
check "stats --outcomes: every line fits in 80 columns" fits80 "$OUT"
read -ra F <<<"$(outcome target)"
check "stats --outcomes: target 600 samples, stacked 150 (25.0%) missed 60 (10.0%) double 20 (3.3%): p50 10ns, p90 145ns (rank 540 is past bucket 10's 500)" \
	eval '[ "${F[*]}" = "target 600 25.0% 10.0% 3.3% 10ns 145ns 145ns 145ns" ]'
read -ra F <<<"$(outcome prev)"
check "stats --outcomes: prev 300 samples, stacked 60 (20.0%), missed 15 (5.0%), no double" \
	eval '[ "${F[*]}" = "prev 300 20.0% 5.0% 0.0% 145ns 145ns 145ns 145ns" ]'
read -ra F <<<"$(outcome scan)"
check "stats --outcomes: scan 100 samples, stacked 40.0% missed 25.0% double 10.0%: p99 7.4ms, p99.9 4.3s (the 2^32 ns bucket 895)" \
	eval '[ "${F[*]}" = "scan 100 40.0% 25.0% 10.0% 11.4us 11.4us 7.4ms 4.3s" ]'
read -ra F <<<"$(outcome recent)"
check "stats --outcomes: an empty row shows 0 and dashes" eval '[ "${F[*]}" = "recent 0 - - - - - - -" ]'
read -ra F <<<"$(outcome unplaced)"
check "stats --outcomes: the unplaced row: 250 at 20ns, nothing stacked there (dashes)" \
	eval '[ "${F[*]}" = "unplaced 250 - - - 20ns 20ns 20ns 20ns" ]'
check "stats --outcomes: the active stock has its rows too" eval '[ -n "$(outcome handback stock)" ]'
check "stats --outcomes: every line fits in 80 columns" fits80 "$OUT"
run stats -o --policy noscan
check "stats -o --policy: only that policy's rows" \
	eval '[ $RC = 0 ] && grep -q "^noscan$" "$OUT" && ! grep -q "^mirror" "$OUT" && [ $(grep -c "^  " "$OUT") = 10 ]'

# ---- JSON --------------------------------------------------------------------------------
run -j stats
check "stats -j: valid JSON (python3 -m json.tool) and one document" \
	eval '[ $RC = 0 ] && python3 -m json.tool "$OUT" >/dev/null && json_ok'
check "stats -j: exact cumulative percentiles and count of mirror" \
	eval 'jqe ".policies[] | select(.name == \"mirror\") | .latency.all | .count == 1000 and .p50_ns == 10 and .p90_ns == 145 and .p99_ns == 11391 and .p999_ns == 7405567"'
check "stats -j: the raw histogram of every row, as the module wrote it" \
	eval 'jqe ".policies[] | select(.name == \"mirror\") | .latency | .all.hist == \"L6ns;10:500;100:400;300:90;600:9;895:1\" and .target.hist == \"L6ns;10:500;100:100\" and .scan.hist == \"L6ns;300:90;600:9;895:1\" and .recent.hist == \"L6ns\""'
check "stats -j: outcome rows: counts, percentiles, null without samples" \
	eval 'jqe ".policies[] | select(.name == \"mirror\") | .latency | .target.count == 600 and .target.p90_ns == 145 and .scan.p999_ns == 4261412863 and .recent.count == 0 and .recent.p50_ns == null"'
check "stats -j: schema: latency has the ten rows in order, each {count, p50_ns, p90_ns, p99_ns, p999_ns, hist}" \
	eval 'jqe "[.policies[].latency | keys_unsorted == [$(printf "\"%s\"," $LAT_ROWS | sed "s/,\$//")] and ([.[] | keys_unsorted == [\"count\", \"p50_ns\", \"p90_ns\", \"p99_ns\", \"p999_ns\", \"hist\"] and (.hist | test(\"^L6ns(;[0-9]+:[0-9]+)*\$\"))] | all)] | all"'
check "stats -j: quality counters are integers, their % in derived" \
	eval 'jqe ".policies[] | select(.name == \"mirror\") | .tracked == 1000 and .stacked == 250 and .double_picks == 30 and .moved == 125 and .migrated == 600 and .migrated_llc == 45 and .derived.stacked_pct == 25 and .derived.double_picks_pct == 3 and .derived.moved_pct == 12.5 and .derived.migrated_pct == 60 and .derived.migrated_llc_pct == 4.5"'
check "stats -j: latency_sample and counters.lat_dropped" \
	eval 'jqe ".latency_sample == 1 and .counters.lat_dropped == 12"'
check "stats -j: the existing keys are still there" \
	eval 'jqe "(.policies[1] | has(\"picks\") and has(\"cost_hist\") and has(\"scan_hist\") and (.derived | has(\"cost_p99_ns\") and has(\"shadow_agreement_pct\"))) and has(\"sample_period\") and has(\"counters\") and has(\"shadow\") and has(\"state\")"'

# ---- the oracle (missed_idle), unplaced, the idle mask's staleness ----------------------
run -j stats
check "stats -j: missed_idle, unplaced and the per-outcome keys are integers" \
	eval 'jqe ".policies[] | select(.name == \"mirror\") | .missed_idle == 100 and .unplaced == 250 and .stacked_target == 150 and .stacked_scan == 40 and .stacked_recent == 0 and .missed_prev == 15 and .missed_local == 0"'
check "stats -j: derived missed_idle_pct 10, unplaced_pct 20 (of tracked + unplaced)" \
	eval 'jqe ".policies[] | select(.name == \"mirror\") | .derived | .missed_idle_pct == 10 and .unplaced_pct == 20 and .stacked_pct == 25"'
check "stats -j: derived per outcome, % of the outcome's tracked (latency count); null without samples" \
	eval 'jqe ".policies[] | select(.name == \"mirror\") | .derived | .stacked_target_pct == 25 and .missed_target_pct == 10 and .stacked_prev_pct == 20 and .missed_prev_pct == 5 and .stacked_scan_pct == 40 and .missed_scan_pct == 25 and .stacked_recent_pct == null and .missed_local_pct == null and .double_target_pct == 3.333 and .double_prev_pct == 0 and .double_scan_pct == 10 and .double_recent_pct == null"'
check "stats -j: double_<outcome> are integers and sum to double_picks" \
	eval 'jqe ".policies[] | select(.name == \"mirror\") | .double_target == 20 and .double_scan == 10 and .double_prev == 0 and ([to_entries[] | select(.key | startswith(\"double_\")) | select(.key != \"double_picks\") | .value] | add) == .double_picks"'
# shellcheck disable=SC2016 # jq's own variables
check "stats -j: a derived triple for every outcome" \
	eval 'jq -e "[.policies[0].derived as \$d | \$ARGS.positional[] as \$o | \$d | has(\"stacked_\" + \$o + \"_pct\") and has(\"missed_\" + \$o + \"_pct\") and has(\"double_\" + \$o + \"_pct\")] | length == $(wc -w <<<"$FAKE_OUTCOMES") and all" --args $FAKE_OUTCOMES <"$OUT" >/dev/null'
check "stats -j: latency.unplaced is the last row, 250 at 20ns" \
	eval 'jqe "[.policies[] | select(.name == \"mirror\") | .latency | (keys_unsorted | last) == \"unplaced\" and .unplaced.count == 250 and .unplaced.p50_ns == 20] | all"'
check "stats -j: the oracle's order holds in the fake: missed_idle <= stacked <= tracked" \
	eval 'jqe "[.policies[] | .missed_idle <= .stacked and .stacked <= .tracked] | all"'
check "stats -j: without the stale split and test keys they are null" \
	eval 'jqe ".policies[0] | .stale_pending == null and .stale_running == null and .stale_preempted == null and .audited == null and .false_busy == null" && jqe ".counters | .idle_pending == null and .remark_held == null and .audited == null and .false_busy == null"'

# The idle mask's line: only for a policy that used it.
{ stats_file 1000; } | sed 's/^mask 0$/mask 300/; s/^claim_lost 0$/claim_lost 12/; s/^stale_hint 0$/stale_hint 7/' >"$T/stats/idlemask"
lat_hist_file >"$T/latency_hist/idlemask"
run stats
mask_line() { awk '/^IDLE MASK/ { f = 1; next } f && /^$/ { f = 0 } f' "$OUT"; }
check "stats: idle-mask line for idlemask only: claim_lost 12 (1.2%), stale_hint 7 (0.7%)" \
	eval '[ $RC = 0 ] && [ "$(mask_line)" = "idlemask:  claim_lost 12 (1.2%)  stale_hint 7 (0.7%)" ]'
check "stats: without the split keys no stale_pending/running/preempted nor false_busy" \
	eval '! grep -Eq "stale_(pending|running|preempted)|false_busy|audited|idle_pending|remark_held" "$OUT"'
check "stats: every line fits in 80 columns (with the idle-mask line)" fits80 "$OUT"
rm "$T/stats/idlemask" "$T/latency_hist/idlemask"
run stats
check "stats: no policy used the idle mask: no IDLE MASK section" eval '[ $RC = 0 ] && ! grep -q "^IDLE MASK" "$OUT"'

# With the stale split (and a test build's audit): shown, by name.
FAKE_STALE=1 stats_file 1000 | sed 's/^mask 0$/mask 300/; s/^claim_lost 0$/claim_lost 12/; s/^stale_hint 0$/stale_hint 7/;
	s/^stale_pending 0$/stale_pending 4/; s/^stale_running 0$/stale_running 2/; s/^stale_preempted 0$/stale_preempted 1/;
	s/^audited 0$/audited 400/; s/^false_busy 0$/false_busy 3/' >"$T/stats/idlemask"
FAKE_STALE=1 counters_file >"$T/counters"
lat_hist_file >"$T/latency_hist/idlemask"
run stats
check "stats: with the split: stale_pending 4, stale_running 2, stale_preempted 1, false_busy 3 of 400 audited (0.75%)" \
	eval '[ $RC = 0 ] && mask_line | tr "\n" " " | grep -Eq "^idlemask:  claim_lost 12 \(1.2%\)  stale_hint 7 \(0.7%\)  stale_pending 4 +stale_running 2 +stale_preempted 1 +false_busy 3 of 400 audited \(0.75%\)"'
check "stats: the header shows the counters idle_pending, remark_held, audited, false_busy" \
	eval 'grep -q "idle_pending: 5" "$OUT" && grep -q "remark_held: 6" "$OUT" && grep -q "audited: 700" "$OUT" && grep -q "false_busy: 8" "$OUT"'
check "stats: every line fits in 80 columns (with the split)" fits80 "$OUT"
run -j stats --policy idlemask
check "stats -j: the split and the test keys by name, claim_lost_pct and stale_hint_pct" \
	eval 'jqe ".policies[0] | .stale_pending == 4 and .stale_running == 2 and .stale_preempted == 1 and .audited == 400 and .false_busy == 3 and .derived.claim_lost_pct == 1.2 and .derived.stale_hint_pct == 0.7" && jqe ".counters | .idle_pending == 5 and .remark_held == 6 and .audited == 700 and .false_busy == 8"'
: >"$OUT"; : >"$ERR"
"$WP_CTL" -v stats --policy idlemask --interval 2 --count 1 >"$OUT" 2>"$ERR" &
pid=$!
wait_for grep -q "sampled 0" "$ERR"
FAKE_STALE=1 stats_file 1000 | sed 's/^mask 0$/mask 300/; s/^claim_lost 0$/claim_lost 32/; s/^stale_hint 0$/stale_hint 7/;
	s/^stale_pending 0$/stale_pending 4/; s/^stale_running 0$/stale_running 2/; s/^stale_preempted 0$/stale_preempted 1/;
	s/^audited 0$/audited 400/; s/^false_busy 0$/false_busy 3/' | put "$T/stats/idlemask"
wait "$pid"; RC=$?
check "stats --interval: the mask line of the interval: 20 more claims lost, no picks: no %" \
	eval '[ $RC = 0 ] && grep -q "^IDLE MASK (per second" "$OUT" && grep -Eq "^idlemask:  claim_lost [0-9.]+ \(-\)  stale_hint 0 \(-\)  stale_pending 0" "$OUT"'
# Its first line fills exactly 80 columns: the next field starts a new one.
check "stats --interval: a line filled to 80 columns wraps the next field (stale_preempted)" \
	eval 'fits80 "$OUT" && grep -q "^    stale_preempted 0" "$OUT"'
make_tree "$T"

# A module with tracked... but older than the oracle: dashes and nulls.
FAKE_PRE_ORACLE=1 make_tree "$T"
run stats --outcomes
read -ra F <<<"$(row mirror 3)"
read -ra G <<<"$(row mirror 4)"
check "pre-oracle module: unplaced and missed are dashes, the rest is there" \
	eval '[ $RC = 0 ] && [ "${F[*]}" = "mirror 1000 - - 10ns 145ns 11.4us 7.4ms" ] && [ "${G[*]}" = "mirror 25.0% - 3.0% 12.5% 60.0% 4.5%" ]'
read -ra F <<<"$(outcome target)"
check "pre-oracle module: --outcomes rows without stacked/missed/double shares" \
	eval '[ "${F[*]}" = "target 600 - - - 10ns 145ns 145ns 145ns" ]'
run -j stats
check "pre-oracle module -j: missed_idle, unplaced, per-outcome keys and their % are null" \
	eval '[ $RC = 0 ] && jqe ".policies[] | select(.name == \"mirror\") | .missed_idle == null and .unplaced == null and .stacked_target == null and .missed_scan == null and .double_target == null and .derived.missed_idle_pct == null and .derived.unplaced_pct == null and .derived.stacked_target_pct == null and .derived.double_target_pct == null and .derived.stacked_pct == 25"'
make_tree "$T"

# A module with the oracle but without double_<outcome>: only those are null.
FAKE_PRE_DOUBLE=1 make_tree "$T"
run stats --outcomes
read -ra F <<<"$(outcome all)"
read -ra G <<<"$(outcome target)"
check "module without double_<outcome>: the all row keeps double_picks, the outcome rows a dash" \
	eval '[ $RC = 0 ] && [ "${F[*]}" = "all 1000 25.0% 10.0% 3.0% 10ns 145ns 11.4us 7.4ms" ] && [ "${G[*]}" = "target 600 25.0% 10.0% - 10ns 145ns 145ns 145ns" ]'
run -j stats
check "module without double_<outcome> -j: double_<outcome> and their % null, the rest there" \
	eval '[ $RC = 0 ] && jqe ".policies[] | select(.name == \"mirror\") | .double_target == null and .double_scan == null and .derived.double_target_pct == null and .missed_target == 60 and .derived.missed_target_pct == 10 and .double_picks == 30"'
make_tree "$T"

# latency/ alone (no latency_hist/): the module's own percentiles.
rm -r "$T/latency_hist"
run -j stats --policy mirror
check "latency/ without latency_hist/: percentiles read from latency/<p>, hist null" \
	eval '[ $RC = 0 ] && jqe ".policies[0].latency | .all.p99_ns == 11391 and .all.p999_ns == 7405567 and .target.p90_ns == 145 and .all.hist == null"'
run stats --policy mirror
read -ra F <<<"$(row mirror 3)"
check "latency/ without latency_hist/: the same text row" eval '[ "${F[*]}" = "mirror 1000 250 20.0% 10ns 145ns 11.4us 7.4ms" ]'
make_tree "$T"
printf 'all L6ns;10:x\n' >"$T/latency_hist/mirror"
run -j stats --policy mirror
check "malformed latency_hist: ignored, latency/ used instead" \
	eval '[ $RC = 0 ] && jqe ".policies[0].latency.all.p50_ns == 10 and .policies[0].latency.all.hist == null"'
make_tree "$T"

# ---- interval deltas --------------------------------------------------------------------
# 100 samples land in bucket 700 (midpoint 63438847 ns) during interval 1:
# every percentile of the interval is 63.4ms, while the cumulative p50
# stays 145 ns (rank 550 of 1100).
: >"$OUT"; : >"$ERR"
"$WP_CTL" -v stats --outcomes --policy mirror --interval 2 --count 2 >"$OUT" 2>"$ERR" &
pid=$!
wait_for grep -q "sampled 0" "$ERR"
lat_hist_file 100 | put "$T/latency_hist/mirror"
stats_file 3000 | put "$T/stats/mirror"
wait "$pid"; RC=$?
interval() { awk -v k="$1:" '/^# interval / { f = ($3 == k) } f' "$OUT"; }
el=$(sed -n 's/^# interval 1: \([0-9.]*\) s.*/\1/p' "$OUT")
read -ra F <<<"$(interval 1 | table_rows 3 | grep "^mirror")"
check "stats --interval: latency of the interval's delta histogram (all 63.4ms)" \
	eval '[ $RC = 0 ] && [ "${F[*]:4}" = "63.4ms 63.4ms 63.4ms 63.4ms" ]'
check "stats --interval: unplaced/s = 500 / elapsed, 20.0% of the interval's wakeups" \
	eval 'awk -v r="${F[2]}" -v e="$el" "BEGIN { x = 500 / e; exit !(r >= x - 1 && r <= x + 1) }" && [ "${F[3]}" = 20.0% ]'
check "stats --interval: tracked/s = 100 / elapsed (${el:-?} s)" \
	eval 'awk -v r="${F[1]}" -v e="$el" "BEGIN { x = 100 / e; exit !(r >= x - 1 && r <= x + 1) }"'
read -ra F <<<"$(interval 1 | table_rows 4 | grep "^mirror")"
check "stats --interval: quality % of the interval's tracked (2000)" \
	eval '[ "${F[*]}" = "mirror 25.0% 10.0% 3.0% 12.5% 60.0% 4.5%" ]'
check "stats --interval --outcomes: local got the 100, target none" \
	eval 'interval 1 | awk "\$1 == \"local\" && \$6 == \"63.4ms\" {l = 1} \$1 == \"target\" && \$2 == 0 && \$3 == \"-\" && \$6 == \"-\" {t = 1} END {exit !(l && t)}"'
read -ra F <<<"$(interval 2 | table_rows 3 | grep "^mirror")"
check "stats --interval: no new samples in interval 2: 0 and dashes" eval '[ "${F[*]}" = "mirror 0 0 - - - - -" ]'
check "stats --interval: every line fits in 80 columns" fits80 "$OUT"

make_tree "$T"
: >"$OUT"; : >"$ERR"
"$WP_CTL" -v -j stats --interval 2 --count 2 >"$OUT" 2>"$ERR" &
pid=$!
wait_for grep -q "sampled 0" "$ERR"
lat_hist_file 100 | put "$T/latency_hist/mirror"
wait_for grep -q "sampled 1" "$ERR"
printf 'all L6ns;100:7\ntarget L6ns\n' | put "$T/latency_hist/mirror"	# reset
wait "$pid"; RC=$?
check "stats -j --interval: valid, one document" eval '[ $RC = 0 ] && python3 -m json.tool "$OUT" >/dev/null && json_ok'
check "stats -j --interval: delta count, percentiles and histogram string" \
	eval 'jqe ".samples[0].policies[] | select(.name == \"mirror\") | .latency | .all.count == 100 and .all.p50_ns == 63438847 and .all.p999_ns == 63438847 and .all.hist == \"L6ns;700:100\" and .local.hist == \"L6ns;700:100\" and .target.count == 0 and .target.hist == \"L6ns\""'
check "stats -j --interval: a reset row counts from zero" \
	eval 'jqe ".samples[1].policies[] | select(.name == \"mirror\") | .latency.all | .count == 7 and .p50_ns == 145 and .hist == \"L6ns;100:7\""'
check "stats -j --interval: latency_sample and the lat_dropped delta" \
	eval 'jqe ".samples[0].latency_sample == 1 and .samples[0].counters.lat_dropped == 0"'

# ---- latency-sample --------------------------------------------------------------------
make_tree "$T"
run stats latency-sample
check "stats latency-sample: shows it" eval '[ $RC = 0 ] && grep -q "^latency_sample: 1 " "$OUT"'
run stats latency-sample 16
check "stats latency-sample N: writes it, silent" eval '[ $RC = 0 ] && [ "$(cat "$T/latency_sample")" = 16 ] && [ ! -s "$OUT" ]'
run -j stats latency-sample 0
check "stats latency-sample 0 -j: off, {latency_sample: 0}" eval '[ $RC = 0 ] && json_ok && jqe ".latency_sample == 0" && [ "$(cat "$T/latency_sample")" = 0 ]'
run stats latency-sample
check "stats latency-sample 0 reads as off" eval '[ $RC = 0 ] && grep -q "latency tracking off" "$OUT"'
for bad in 65537 -1 abc 1x; do
	# shellcheck disable=SC2034 # read by the eval'd check below
	before=$(tree_sum "$T")
	run stats latency-sample "$bad"
	check "stats latency-sample $bad: exit 2, nothing written" eval '[ $RC = 2 ] && [ "$before" = "$(tree_sum "$T")" ]'
done
run stats latency-sample 1 2
check "stats latency-sample with two values: exit 2" eval '[ $RC = 2 ]'
RC=0; "$WP_CTL" --sysfs "$TMPD/none" stats latency-sample >"$OUT" 2>"$ERR" || RC=$?
check "stats latency-sample, module not loaded: exit 3" eval '[ $RC = 3 ]'

# ---- stats latency on|off|sample N: the measurement switch -------------------------------
make_tree "$T"
echo 0 >"$T/latency_sample"
run stats latency
check "stats latency: shows off" eval '[ $RC = 0 ] && grep -q "^latency_sample: 0 (latency tracking off)" "$OUT"'
run stats latency on
check "stats latency on: writes 1, silent" eval '[ $RC = 0 ] && [ "$(cat "$T/latency_sample")" = 1 ] && [ ! -s "$OUT" ]'
echo 8 >"$T/latency_sample"
run -j stats latency on
check "stats latency on -j: a sample already set is kept, {latency_sample: 8}" \
	eval '[ $RC = 0 ] && json_ok && jqe ".latency_sample == 8" && [ "$(cat "$T/latency_sample")" = 8 ]'
run -j stats latency off
check "stats latency off -j: 0, {latency_sample: 0}" \
	eval '[ $RC = 0 ] && json_ok && jqe ".latency_sample == 0" && [ "$(cat "$T/latency_sample")" = 0 ]'
run -v stats latency sample 16
check "stats latency sample 16 -v: writes and shows it" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/latency_sample")" = 16 ] && grep -q "^latency_sample: 16 " "$OUT"'
run stats latency sample 0
check "stats latency sample 0: off" eval '[ $RC = 0 ] && [ "$(cat "$T/latency_sample")" = 0 ]'
for bad in "sample 65537" "sample -1" "sample" "sample 1 2" "on 1" "off x" "maybe"; do
	# shellcheck disable=SC2034 # read by the eval'd check below
	before=$(tree_sum "$T")
	# shellcheck disable=SC2086 # the words are the arguments
	run stats latency $bad
	check "stats latency $bad: exit 2, nothing written" eval '[ $RC = 2 ] && [ "$before" = "$(tree_sum "$T")" ]'
done
RC=0; "$WP_CTL" --sysfs "$TMPD/none" stats latency on >"$OUT" 2>"$ERR" || RC=$?
check "stats latency on, module not loaded: exit 3" eval '[ $RC = 3 ]'
chmod 0444 "$T/latency_sample"
if [ "$(id -u)" != 0 ]; then
	run stats latency off
	check "stats latency off, file not writable: exit 1" eval '[ $RC = 1 ] && [ "$(cat "$T/latency_sample")" = 0 ]'
fi
chmod 0644 "$T/latency_sample"

# ---- older module: no latency files, no new keys ----------------------------------------
make_tree "$T" old
run stats --outcomes
read -ra F <<<"$(row mirror 3)"
# shellcheck disable=SC2034 # read by the eval'd check below
read -ra G <<<"$(row mirror 4)"
check "old module: stats exits 0, latency and quality are dashes" \
	eval '[ $RC = 0 ] && [ "${F[*]}" = "mirror - - - - - - -" ] && [ "${G[*]}" = "mirror - - - - - -" ] && grep -q "latency_sample: -" "$OUT" && [ "$(outcome all)" = "$(printf "  %-9s %8s %7s %7s %7s %8s %8s %8s %8s" all - - - - - - - -)" ]'
# shellcheck disable=SC2034 # read by the eval'd check below
read -ra F <<<"$(row mirror 1)"
check "old module: the outcome mix is still there" eval '[ "${F[1]}" = 1000 ] && [ "${F[2]}" = 40.0% ]'
run -j stats
check "old module -j: latency, latency_sample, new keys and lat_dropped are null" \
	eval '[ $RC = 0 ] && json_ok && jqe ".latency_sample == null and .counters.lat_dropped == null and .counters.calls == 5000 and ([.policies[] | .latency == null and .tracked == null and .migrated_llc == null and .derived.stacked_pct == null] | all) and .policies[1].picks == 1000"'
run -j stats --interval 0.1 --count 1
check "old module -j --interval: works, latency null" \
	eval '[ $RC = 0 ] && json_ok && jqe ".samples[0].policies[0].latency == null"'
run stats latency-sample
check "old module: stats latency-sample shows it absent, exit 0" \
	eval '[ $RC = 0 ] && grep -q "^latency_sample: -" "$OUT"'
run -j stats latency-sample
check "old module: stats latency-sample -j: null, exit 0" eval '[ $RC = 0 ] && jqe ".latency_sample == null"'
run stats latency-sample 4
check "old module: setting latency-sample exits 1 and says why" \
	eval '[ $RC = 1 ] && grep -q "no latency tracking" "$ERR" && [ ! -e "$T/latency_sample" ]'
run stats latency on
check "old module: stats latency on exits 1 and says why" \
	eval '[ $RC = 1 ] && grep -q "no latency tracking" "$ERR" && [ ! -e "$T/latency_sample" ]'
: >"$OUT"
"$WP_CTL" watch -i 0.2 </dev/null >"$OUT" 2>"$ERR" &
pid=$!
wait_for grep -q "LAT99" "$OUT"
kill -TERM "$pid"
wait "$pid"; RC=$?
check "old module: watch runs (no tty), latency table of dashes" \
	eval '[ $RC = 0 ] && grep -q "^mirror  *- " "$OUT"'

# ---- 80 columns: long names, huge numbers -----------------------------------------------------
# Two 64-character policy names (the longest accepted), the active one
# with a '*', a revert reason naming it, counters near 2^64, percentages
# far above 100 and a histogram at the top bucket.
L1=$(printf 'p%.0s' $(seq 64))
L2=$(printf 'q%.0s' $(seq 63))x
U=18446744073709551615
huge_stats() { # huge_stats: every counter 2^64 - 1 but picks and tracked 1
	local k
	for k in picks $FAKE_OUTCOMES claim_lost stale_hint scanned remote_lines \
		cross_llc not_prev cost_samples cost_ns shadow_compared shadow_agreed \
		tracked stacked double_picks moved migrated migrated_llc missed_idle \
		unplaced $(printf 'stacked_%s ' $FAKE_OUTCOMES) \
		$(printf 'missed_%s ' $FAKE_OUTCOMES) $(printf 'double_%s ' $FAKE_OUTCOMES) \
		stale_pending stale_running stale_preempted audited false_busy; do
		case $k in picks | tracked) echo "$k 1" ;; *) echo "$k $U" ;; esac
	done
	echo "scan_hist$(printf " $U%.0s" $(seq 32))"
	echo "cost_hist$(printf " 0%.0s" $(seq 31)) $U"
}
huge_lat() {
	local r
	for r in $LAT_ROWS; do
		echo "$r L6ns;1951:$U"
	done
}
make_big() { # make_big DIR: the tree; with "grow", the huge files
	make_tree "$1"
	echo "[$L1] $L2 stock mirror" >"$1/available_policies"
	echo "$L1" >"$1/policy"
	echo "$L2" >"$1/shadow"
	echo "reverted: $L1: pick outside the allowed CPUs" >"$1/state"
	echo 65536 >"$1/latency_sample"
	stats_file 10 >"$1/stats/$L1"
	stats_file 10 >"$1/stats/$L2"
	lat_empty >"$1/latency_hist/$L1"
	lat_empty >"$1/latency_hist/$L2"
}
grow() { # grow DIR: the huge numbers, in place
	huge_stats | put "$1/stats/$L1"
	stats_file 0 | sed "s/^picks 0/picks $U/" | put "$1/stats/$L2"
	huge_lat | put "$1/latency_hist/$L1"
	huge_lat | put "$1/latency_hist/$L2"
	FAKE_STALE=1 counters_file | sed "s/ .*/ $U/" | put "$1/counters"
}
make_big "$T"
grow "$T"
for args in "stats" "stats --outcomes" "stats -a --outcomes"; do
	# shellcheck disable=SC2086
	run $args
	check "80 columns: '$args' with long names and huge numbers" \
		eval '[ $RC = 0 ] && grep -q "^$L1\*\$" "$OUT" && grep -q "^$L2\$" "$OUT" && fits80 "$OUT"'
done
run -j stats
check "huge numbers -j: valid JSON" eval '[ $RC = 0 ] && python3 -m json.tool "$OUT" >/dev/null'

make_big "$T"
: >"$OUT"; : >"$ERR"
"$WP_CTL" -v stats --outcomes --interval 0.5 --count 2 >"$OUT" 2>"$ERR" &
pid=$!
wait_for grep -q "sampled 0" "$ERR"
grow "$T"
wait "$pid"
# shellcheck disable=SC2034 # read by the eval'd check below
RC=$?
check "80 columns: 'stats --outcomes --interval' with huge rates" \
	eval '[ $RC = 0 ] && grep -q "^# interval 2" "$OUT" && grep -q "^$L1\*\$" "$OUT" && fits80 "$OUT"'

if ! command -v tmux >/dev/null; then
	skip "80 columns: watch" "tmux not installed"
	done_testing
fi
make_big "$T"
# A 200-column terminal: only the tool keeps the lines short.
tmux -L "$SOCK" new-session -d -s w -x 200 -y 60 \
	"WAKEPLACE_SYSFS='$T' '$WP_CTL' watch -a -i 0.5; sleep 120"
cap() { tmux -L "$SOCK" capture-pane -p -t w >"$OUT"; }
screen_has() { cap; grep -q "$1" "$OUT"; }
wait_for screen_has "^POLICY *TRACKED/s"
cp "$OUT" "$TMPD/screen1"
check "watch: header of the latency table, long names on their own line" \
	eval 'grep -q "^POLICY  *TRACKED/s  *LAT50  *LAT99 *LAT99.9" "$TMPD/screen1" && grep -q "^$L1\*\$" "$TMPD/screen1"'
check "watch: 80 columns on a 200-column terminal (first screen)" fits80 "$TMPD/screen1"
grow "$T"
check "watch: huge rates are shown" wait_for screen_has "calls/s [0-9]\{15,\}"
check "watch: 80 columns with huge rates" fits80 "$OUT"
tmux -L "$SOCK" kill-server 2>/dev/null

make_tree "$T"
tmux -L "$SOCK" new-session -d -s w -x 100 -y 40 \
	"WAKEPLACE_SYSFS='$T' '$WP_CTL' watch -i 1; sleep 120"
wait_for screen_has "^POLICY *TRACKED/s"
lat_hist_file 100 | put "$T/latency_hist/mirror"
stats_file 2000 | put "$T/stats/mirror"
# the latency row of mirror: name, tracked/s, p50, p99, p99.9, quality
# (stacked, missed idle, double, moved, migrated, migrated_llc)
lat_row_ok() { cap; awk '$1 == "mirror" && $3 == "63.4ms" && $4 == "63.4ms" && $5 == "63.4ms" && $6 == "25.0%" && $7 == "10.0%" && $8 == "3.0%" {f = 1} END {exit !f}' "$OUT"; }
check "watch: p50/p99/p99.9 of the interval's delta histogram and quality live, missed idle beside stacked" wait_for lat_row_ok
check "watch: the quality header: STACK MISS DBL MOVED MIGR MGLLC" \
	eval 'grep -Eq "^POLICY +TRACKED/s +LAT50 +LAT99 +LAT99.9 +STACK +MISS +DBL +MOVED +MIGR +MGLLC" "$OUT"'
check "watch: back to dashes when nothing happens" \
	eval 'wait_for screen_has "^mirror  *0  *-  *-  *-  *-"'
tmux -L "$SOCK" kill-server 2>/dev/null

# ---- bench-scripts/lat-switch: a policy and the tracking in one switch ----
LS=$(dirname "$WP_CTL")/../bench-scripts/lat-switch
make_tree "$T"
"$LS" idlemask-lat.8 >/dev/null
check "lat-switch idlemask-lat.8: policy idlemask, latency_sample 8" \
	eval '[ "$(cat "$T/policy")" = idlemask ] && [ "$(cat "$T/latency_sample")" = 8 ]'
"$LS" noscan-nolat >/dev/null
check "lat-switch noscan-nolat: policy noscan, latency_sample 0" \
	eval '[ "$(cat "$T/policy")" = noscan ] && [ "$(cat "$T/latency_sample")" = 0 ]'
"$LS" mirror-lat >/dev/null
check "lat-switch mirror-lat: latency_sample 1" \
	eval '[ "$(cat "$T/policy")" = mirror ] && [ "$(cat "$T/latency_sample")" = 1 ]'
"$LS" noscan-nolat >/dev/null
"$LS" idlemask >/dev/null
check "lat-switch idlemask (a bare name, as ab restores): latency_sample back to 1" \
	eval '[ "$(cat "$T/policy")" = idlemask ] && [ "$(cat "$T/latency_sample")" = 1 ]'
"$LS" mirror >/dev/null
for bad in idle/mask idlemask-lat.x -nolat; do
	"$LS" "$bad" >/dev/null 2>&1
	# shellcheck disable=SC2034 # read by the eval'd check below
	rc=$?
	check "lat-switch $bad: refused (exit 2), nothing changed" \
		eval '[ $rc = 2 ] && [ "$(cat "$T/policy")" = mirror ]'
done

done_testing
