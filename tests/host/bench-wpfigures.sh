#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module's own figures in ab and switchback, against a fake sysfs tree
# in the spec's format (latency_hist/<policy>, stats/<policy>,
# stats/reset): reset before each block, wp_lat and wp_*_pct rows per
# block with the block's policy, silently absent with an older module;
# --format; demo's plan and its fresh directory per run.  TAP.
set -u
. "$(dirname "$(readlink -f "$0")")/../../bench-scripts/test-lib.sh"
. "$(dirname "$(readlink -f "$0")")/../names.sh"
OUTCOMES=$(src_outcomes) || { echo "Bail out! no outcomes in module/outcomes.h"; exit 1; }

W=$TMPD/workloads F=$TMPD/sysfs
mkdir -p "$W" "$F/latency_hist" "$F/stats"
export FAKE_STATE=$TMPD/state RESETS=$TMPD/resets WP_SYSFS=$F

# A fake module: stock stacks 5% of 200 tracked wakeups and misses an
# idle CPU for 2%, 50 unplaced; fast stacks 25% of 400, misses 15%, 30
# unplaced; the rows follow the spec (all, the outcomes, unplaced; stats
# keys in order), every sample in handback.  Without MISSED and UNPLACED:
# a module older than the oracle.
fake_policy() { # NAME ALL_HIST TRACKED STACKED DOUBLE MOVED MIGR MIGR_LLC [MISSED UNPLACED]
	{
		echo "all $2"
		for r in $OUTCOMES; do
			if [ "$r" = handback ]; then echo "$r $2"; else echo "$r L6ns"; fi
		done
		[ -z "${10:-}" ] || echo "unplaced L6ns;20:${10}"
	} >"$F/latency_hist/$1"
	{
		printf 'picks 9\nshadow_agreed 0\ntracked %s\nstacked %s\ndouble_picks %s\nmoved %s\nmigrated %s\nmigrated_llc %s\n' \
			"$3" "$4" "$5" "$6" "$7" "$8"
		[ -z "${10:-}" ] || printf 'missed_idle %s\nunplaced %s\nstacked_handback %s\nmissed_handback %s\n' "$9" "${10}" "$4" "$9"
		echo "scan_hist 0 1 2 3"
	} >"$F/stats/$1"
}
fake_policy stock "L6ns;288:99;512:1" 200 10 2 4 50 5 4 50
fake_policy fast "L6ns;288:80;512:20" 400 100 40 20 100 40 60 30
: >"$F/stats/reset"

# fake: records which policy's statistics were reset when it started.
cat >"$W/fake" <<'X'
#!/bin/bash
echo "$(cat "$FAKE_STATE") $(cat "$WP_SYSFS/stats/reset" 2>/dev/null)" >>"$RESETS"
now=${EPOCHREALTIME/,/.}
for i in 0 1 2; do echo "$now fake ops $([ "$(cat "$FAKE_STATE")" = fast ] && echo 120 || echo 100)"; done
X
cat >"$W/tick" <<'X'
#!/bin/bash
t=5
while getopts "t:l:c:" o; do case $o in t) t=$OPTARG ;; *) ;; esac; done
end=$(awk -v n="${EPOCHREALTIME/,/.}" -v t="$t" 'BEGIN { printf "%.6f", n + t }')
while :; do
	sleep 0.1
	now=${EPOCHREALTIME/,/.}
	[[ ${now/./} < ${end/./} ]] || break
	echo "$now tick ops 100"
done
X
cat >"$TMPD/sw" <<'X'
#!/bin/bash
echo "$1" >"$FAKE_STATE"
X
chmod +x "$W/fake" "$W/tick" "$TMPD/sw"
M=$TMPD/metrics
{ grep '^\*' "$BENCH/metrics"; printf 'fake ops higher throughput ops/s\ntick ops higher throughput ops/s\n'; } >"$M"
echo stock >"$FAKE_STATE"
AB=("$BENCH/ab" --workload-dir "$W" --metrics "$M" --switcher "$TMPD/sw"
    --settle 0 --warmup 0 -d 1)

# ---- ab -------------------------------------------------------------------------
: >"$RESETS"
"${AB[@]}" -p "stock fast" -w fake -l 1 -r 5 -s 4 -o "$TMPD/ab1" >"$TMPD/ab1.out" 2>"$TMPD/ab1.err"
rc=$?
C=$TMPD/ab1/results.csv
check "ab: runs with the module's files (exit 0)" eval '[ $rc = 0 ] || { cat "$TMPD/ab1.err"; exit 1; }'
check "ab: before every block the block's policy's statistics were reset" \
	eval '[ "$(wc -l <"$RESETS")" = 20 ] && awk "\$1 != \$2 { bad = 1 } END { exit bad }" "$RESETS"'
check "ab: per block one wp_lat, wp_tracked, wp_unplaced and six wp_*_pct rows" \
	awk -F, 'NR > 1 && $7 ~ /^wp_/ { n[$3]++; m[$7]++ } END {
		for (b = 1; b <= 20; b++) if (n[b] != 9) { print "block", b, n[b]; exit 1 }
		if (m["wp_lat"] != 20 || m["wp_migr_llc_pct"] != 20 || m["wp_missed_pct"] != 20 || m["wp_unplaced"] != 20) exit 1 }' "$C"
check "ab: wp_missed_pct = missed_idle / tracked (stock 2, fast 15), wp_unplaced the count (50, 30)" \
	awk -F, '($7 == "wp_missed_pct" && !(($4 == "stock" && $8 == 2) || ($4 == "fast" && $8 == 15))) ||
		($7 == "wp_unplaced" && !(($4 == "stock" && $8 == 50) || ($4 == "fast" && $8 == 30))) { print; bad = 1 } END { exit bad }' "$C"
check "ab: table rows wp_missed_pct 2 -> 15 (7.5x, *) and wp_unplaced 50 -> 30 (0.6x, *), each with its A/A row" \
	eval 'grep -qE "^fake +1 +wp_missed_pct +lower +Amean +fast +10 +15 .* 7\.500 .*\*$" "$TMPD/ab1/table.txt" &&
	      grep -qE "^fake +1 +wp_unplaced +lower +Amean +fast +10 +30 .* 0\.600 .*\*$" "$TMPD/ab1/table.txt" &&
	      grep -qE "^fake +1 +wp_missed_pct +lower +- +A/A " "$TMPD/ab1/table.txt" &&
	      grep -qE "^fake +1 +wp_unplaced +lower +- +A/A " "$TMPD/ab1/table.txt"'
check "ab: stats.json has wp_missed_pct and wp_unplaced rows (compare and aa)" \
	jq -e '[.rows[] | select(.metric == "wp_missed_pct" or .metric == "wp_unplaced") | .role] | (index("compare") != null and index("aa") != null and length == 6)' "$TMPD/ab1/stats.json"
check "ab: the rows carry the block's policy, rep and the policy's figures" \
	eval 'diff <(awk -F, "NR > 1 && \$7 == \"ops\" { print \$2, \$3, \$4 }" "$C" | sort -u) <(awk -F, "NR > 1 && \$7 == \"wp_lat\" { print \$2, \$3, \$4 }" "$C" | sort -u) &&
	      awk -F, "\$7 == \"wp_stacked_pct\" && !((\$4 == \"stock\" && \$8 == 5) || (\$4 == \"fast\" && \$8 == 25)) { print; bad = 1 } END { exit bad }" "$C" &&
	      grep -q ",fast,fake,1,wp_lat,L6ns;288:80;512:20$" "$C" && grep -q ",stock,fake,1,wp_migr_pct,25.0000$" "$C" && grep -q ",fast,fake,1,wp_double_pct,10.0000$" "$C"'
check "ab: table rows per policy: stacked % 5 -> 25 (*), latency p99 8.3 -> 1065 us (*), A/A" \
	eval 'grep -qE "^fake +1 +wp_stacked_pct +lower +Amean +fast +10 +25 .* 5\.000 .*\*$" "$TMPD/ab1/table.txt" &&
	      grep -qE "^fake +1 +wp_lat_p99_us +lower +Merged +fast +10 +1064\.96 .*\*$" "$TMPD/ab1/table.txt" &&
	      grep -qE "^fake +1 +wp_migr_llc_pct +lower +- +A/A " "$TMPD/ab1/table.txt" && ! grep -q warning "$TMPD/ab1/wpstats.err"'
check "ab: summary.json counts the blocks with module figures" \
	jq -e '.module_figures_blocks == 20' "$TMPD/ab1/summary.json"

# A module older than the oracle: no missed_idle nor unplaced, the rest.
fake_policy stock "L6ns;288:99;512:1" 200 10 2 4 50 5
fake_policy fast "L6ns;288:80;512:20" 400 100 40 20 100 40
"${AB[@]}" -p "stock fast" -w fake -l 1 -r 1 -s 4 -o "$TMPD/ab0" >/dev/null 2>"$TMPD/ab0.err"
rc=$?
check "ab: a module without missed_idle/unplaced: no wp_missed_pct nor wp_unplaced rows, the others there" \
	eval '[ $rc = 0 ] && ! grep -qE ",wp_(missed_pct|unplaced)," "$TMPD/ab0/results.csv" && grep -q ",wp_stacked_pct,25.0000$" "$TMPD/ab0/results.csv"'
fake_policy stock "L6ns;288:99;512:1" 200 10 2 4 50 5 4 50
fake_policy fast "L6ns;288:80;512:20" 400 100 40 20 100 40 60 30

# An older module: stats/<policy> but no latency_hist/.  Nothing extra.
mv "$F/latency_hist" "$F/latency_hist.off"
: >"$RESETS"
: >"$F/stats/reset"
"${AB[@]}" -p "stock fast" -w fake -l 1 -r 1 -s 4 -o "$TMPD/ab2" >/dev/null 2>"$TMPD/ab2.err"
rc=$?
check "ab: without latency_hist/: exit 0, no wp_ rows, no reset, no message" \
	eval '[ $rc = 0 ] && ! grep -q ",wp_" "$TMPD/ab2/results.csv" && awk "NF != 1 { bad = 1 } END { exit bad }" "$RESETS" && ! grep -qi "wp_\|latency" "$TMPD/ab2.err" && jq -e ".module_figures_blocks == 0" "$TMPD/ab2/summary.json"'
mv "$F/latency_hist.off" "$F/latency_hist"
WP_SYSFS=$TMPD/nonexistent "${AB[@]}" -p "stock fast" -w fake -l 1 -r 1 -s 4 -o "$TMPD/ab3" >/dev/null 2>"$TMPD/ab3.err"
rc=$?
check "ab: no module at all: exit 0, no wp_ rows" \
	eval '[ $rc = 0 ] && ! grep -q ",wp_" "$TMPD/ab3/results.csv"'

"${AB[@]}" -p "stock fast" -w fake -l 1 -r 5 -s 4 -F lkp -o "$TMPD/ab4" >"$TMPD/ab4.out" 2>/dev/null
rc=$?
check "ab -F lkp: prints the LKP table, keeps table.txt ours, writes table-lkp.txt" \
	eval '[ $rc = 0 ] && cmp "$TMPD/ab4.out" "$TMPD/ab4/table-lkp.txt" && grep -F fake.ops "$TMPD/ab4.out" && grep -qxF "    100.00          +20.0%*     120.00        fake.ops" "$TMPD/ab4.out" && head -n 1 "$TMPD/ab4/table.txt" | grep -q "^# baseline stock"'
"${AB[@]}" -p "stock fast" -w fake -l 1 -F mmtests -o "$TMPD/ab5" -n >/dev/null
rc1=$?
"${AB[@]}" -p "stock fast" -w fake -F xml -n >/dev/null 2>&1
rc2=$?
check "ab -F mmtests is accepted; -F xml is a usage error (exit 2)" \
	eval '[ $rc1 = 0 ] && [ $rc2 = 2 ]'

# ---- switchback -------------------------------------------------------------------
SB=("$BENCH/switchback" --workload-dir "$W" --metrics "$M" --switcher "$TMPD/sw")
"${SB[@]}" -w tick -p "stock fast" -b 0.8 -S 0.2 -i 0.1 -n 3 --min-pairs 3 \
	-s 5 -F mmtests -o "$TMPD/sb" >"$TMPD/sb.out" 2>"$TMPD/sb.err"
rc=$?
SC=$TMPD/sb/results.csv
check "switchback: exit 0, the mmtests table printed" \
	eval '[ $rc = 0 ] && cmp "$TMPD/sb.out" "$TMPD/sb/table-mmtests.txt" && grep -q "^Amean     wp_stacked_pct-1 " "$TMPD/sb.out" || { cat "$TMPD/sb.err"; exit 1; }'
check "switchback: one set of figures per stretch between switches (12), the stretch's policy" \
	eval '[ "$(grep -c ",wp_lat," "$SC")" = 12 ] && diff <(awk -F, "\$7 == \"wp_lat\" { print \$3, \$4 }" "$SC") <(awk "{ print \$1, \$2 }" "$TMPD/sb/switches.txt")'
check "switchback: figures read after the stretch's settle window, before the next switch" \
	awk -F, -v sw="$TMPD/sb/switches.txt" 'BEGIN { while ((getline l < sw) > 0) { split(l, f, " "); s1[f[1]] = f[3]; s2[f[1]] = f[4]; n = f[1] } }
		$7 == "wp_lat" { b = $3; if ($1 < s2[b] + 0.2 || (b < n && $1 > s1[b + 1])) { print; bad = 1 } } END { exit bad }' "$SC"
check "switchback: wp_stacked_pct per stretch: stock 5, fast 25" \
	awk -F, '$7 == "wp_stacked_pct" && !(($4 == "stock" && $8 == 5) || ($4 == "fast" && $8 == 25)) { print; bad = 1 } END { exit bad }' "$SC"
check "switchback: wp_missed_pct (2, 15) and wp_unplaced (50, 30) per stretch, one each" \
	awk -F, '$7 == "wp_missed_pct" { n++; if (!(($4 == "stock" && $8 == 2) || ($4 == "fast" && $8 == 15))) bad = 1 }
		$7 == "wp_unplaced" { u++; if (!(($4 == "stock" && $8 == 50) || ($4 == "fast" && $8 == 30))) bad = 1 }
		END { exit bad || n != 12 || u != 12 }' "$SC"
check "switchback: the mmtests table has wp_missed_pct and wp_unplaced with their A/A rows" \
	eval 'grep -q "^Amean     wp_missed_pct-1 " "$TMPD/sb.out" && grep -q "^A/A       wp_missed_pct-1 " "$TMPD/sb.out" && grep -q "^Amean     wp_unplaced-1 " "$TMPD/sb.out" && grep -q "^A/A       wp_unplaced-1 " "$TMPD/sb.out"'
WP_SYSFS=$TMPD/nonexistent "${SB[@]}" -w tick -p "stock fast" -b 0.8 -S 0.2 -i 0.1 -n 1 \
	--min-pairs 3 -s 5 --no-plot -o "$TMPD/sb2" >/dev/null 2>&1
rc=$?
check "switchback: no module files: exit 0, no wp_ rows" \
	eval '[ $rc = 0 ] && ! grep -q ",wp_" "$TMPD/sb2/results.csv"'

# ---- measurement: switched on for the run, the old value restored on every exit --
cat >"$TMPD/swlat" <<'X'
#!/bin/bash
echo "$1" >"$FAKE_STATE"
cat "$WP_SYSFS/latency_sample" >>"$SEEN"
X
chmod +x "$TMPD/swlat"
export SEEN=$TMPD/seen
ABL=("$BENCH/ab" --workload-dir "$W" --metrics "$M" --switcher "$TMPD/swlat"
     --settle 0 --warmup 0 -d 1 -p "stock fast" -w fake -l 1 -r 1 -s 4)
echo 0 >"$F/latency_sample"; : >"$SEEN"
"${ABL[@]}" -o "$TMPD/abl1" >/dev/null 2>&1
rc=$?
check "ab: measurement on (1) for every block, off (0) again after" \
	eval '[ $rc = 0 ] && [ "$(sort -u "$SEEN")" = 1 ] && [ "$(cat "$F/latency_sample")" = 0 ]'
echo 8 >"$F/latency_sample"; : >"$SEEN"
"${ABL[@]}" -o "$TMPD/abl2" >/dev/null 2>&1
rc=$?
check "ab: a sample already set (8) is kept during and after" \
	eval '[ $rc = 0 ] && [ "$(sort -u "$SEEN")" = 8 ] && [ "$(cat "$F/latency_sample")" = 8 ]'
echo 0 >"$F/latency_sample"
"$BENCH/ab" --workload-dir "$W" --metrics "$M" --switcher false --settle 0 \
	--warmup 0 -d 1 -p "stock fast" -w fake -l 1 -r 1 -o "$TMPD/abl3" >/dev/null 2>&1
rc=$?
check "ab: the switcher fails (exit 2): latency_sample 0 again" \
	eval '[ $rc = 2 ] && [ "$(cat "$F/latency_sample")" = 0 ]'
: >"$SEEN"
"$BENCH/ab" --workload-dir "$W" --metrics "$M" --switcher "$TMPD/swlat" --settle 0 \
	--warmup 0 -d 4 -p "stock fast" -w tick -l 1 -r 1 -o "$TMPD/abl4" >/dev/null 2>&1 &
abpid=$!
for ((i = 0; i < 100; i++)); do [ -s "$SEEN" ] && break; sleep 0.1; done
sleep 0.3
kill -TERM "$abpid"
wait "$abpid"
rc=$?
check "ab: TERM in a block (exit 143): latency_sample 0 again" \
	eval '[ $rc = 143 ] && [ "$(sort -u "$SEEN")" = 1 ] && [ "$(cat "$F/latency_sample")" = 0 ]'
: >"$SEEN"
"$BENCH/switchback" --workload-dir "$W" --metrics "$M" --switcher "$TMPD/swlat" \
	-w tick -p "stock fast" -b 0.8 -S 0.2 -i 0.1 -n 1 --min-pairs 3 -s 5 \
	--no-plot -o "$TMPD/sbl" >/dev/null 2>&1
rc=$?
check "switchback: measurement on for every stretch, off again after" \
	eval '[ $rc = 0 ] && [ "$(sort -u "$SEEN")" = 1 ] && [ "$(cat "$F/latency_sample")" = 0 ]'
rm -f "$F/latency_sample"

# ---- demo -------------------------------------------------------------------------
"$BENCH/demo" -n >"$TMPD/demo.plan" 2>&1
# shellcheck disable=SC2034 # read by the eval'd check below
rc=$?
check "demo -n: the plan: scale on llc16 (levels 0.75 0.9, 4 policies, 1 round: 16 blocks), 2-LLC ab of stock noscan idlemask, 5 ABBA rounds (30 blocks), then a switchback of p99" \
	eval '[ $rc = 0 ] && grep -q "^vm -t llc16 -- scale .*-l 0.75\\\\ 0.9 -p stock\\\\ mirror\\\\ idlemask\\\\ idlecore -r 1 " "$TMPD/demo.plan" &&
	      [ "$(grep -c "^scale [0-9]" "$TMPD/demo.plan")" = 16 ] &&
	      grep -q "^vm -t llc2 -- ab -p stock\\\\ noscan\\\\ idlemask .*-r 5 " "$TMPD/demo.plan" &&
	      grep -q "^vm -t llc2 -- switchback .*-m p99_us" "$TMPD/demo.plan" && [ "$(grep -c "^[0-9]" "$TMPD/demo.plan")" = 30 ]' 
# A fake VM runner writes what the real one leaves behind.
cat >"$TMPD/fakevm" <<'X'
#!/bin/bash
while [ "$1" != -- ]; do [ "$1" = -o ] && out=$2; shift; done
[ ! -e "$out/run/results.csv" ] || { echo "already holds results.csv" >&2; exit 2; }
mkdir -p "$out/run" && echo "timestamp,rep,block,policy,workload,level,metric,value" >"$out/run/results.csv"
echo table >"$out/run/table.txt"
X
chmod +x "$TMPD/fakevm"
WP_DEMO_VM=$TMPD/fakevm "$BENCH/demo" -k fake -o "$TMPD/demo" >/dev/null 2>&1
# shellcheck disable=SC2034 # read by the eval'd check below
rc1=$?
# shellcheck disable=SC2034 # read by the eval'd check below
first=$(readlink "$TMPD/demo/latest")
WP_DEMO_VM=$TMPD/fakevm "$BENCH/demo" -k fake -o "$TMPD/demo" >/dev/null 2>&1
# shellcheck disable=SC2034 # read by the eval'd check below
rc2=$?
# shellcheck disable=SC2034 # read by the eval'd check below
second=$(readlink "$TMPD/demo/latest")
check "demo twice: both succeed, each in a fresh directory, latest -> the second" \
	eval '[ $rc1 = 0 ] && [ $rc2 = 0 ] && [ -n "$first" ] && [ "$first" != "$second" ] && [ -f "$TMPD/demo/$first/scale/run/table.txt" ] && [ -f "$TMPD/demo/$first/ab/run/table.txt" ] && [ -f "$TMPD/demo/latest/switchback/run/table.txt" ]'

t_done
