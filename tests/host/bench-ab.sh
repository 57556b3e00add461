#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Dry runs of bench-scripts/ab and bench-scripts/switchback with a fake
# workload (synthetic lines whose value depends on the policy) and a fake
# switcher (records its calls): ABBA order, seeded reproducibility,
# warm-up discard, CSV/JSON outputs, exit codes, plots.  TAP.
set -u
. "$(dirname "$(readlink -f "$0")")/../../bench-scripts/test-lib.sh"

W=$TMPD/workloads
mkdir -p "$W"
export FAKE_STATE=$TMPD/state FAKE_LOG=$TMPD/switch.calls

# fake: 5 samples one (virtual) second apart; policy "fast" is x1.2 on ops
# and x1/1.2 on lat; "slow" is x0.8 on ops.  Deterministic values.
cat >"$W/fake" <<'EOF'
#!/bin/bash
t=10 l=1 fail=0
while getopts "t:l:c:F" o; do
	case $o in t) t=$OPTARG ;; l) l=$OPTARG ;; F) fail=1 ;; *) exit 2 ;; esac
done
[ "$fail" = 1 ] && { echo "fake: asked to fail" >&2; exit 1; }
pol=$(cat "$FAKE_STATE")
awk -v now="${EPOCHREALTIME/,/.}" -v p="$pol" -v l="$l" 'BEGIN {
	f = (p == "fast") ? 1.2 : (p == "slow") ? 0.8 : 1
	for (i = 0; i < 5; i++) {
		j = (i * 7) % 5
		printf "%.3f fake ops %.3f\n", now + i, 100 * l * f * (1 + 0.002 * j)
		printf "%.3f fake lat %.3f\n", now + i, 10 / f * (1 + 0.002 * j)
	}
	print "a malformed line"
}'
EOF
# tick: one sample every 0.1 s for -t seconds, value by the current policy.
cat >"$W/tick" <<'EOF'
#!/bin/bash
t=5
while getopts "t:l:c:" o; do case $o in t) t=$OPTARG ;; *) ;; esac; done
end=$(awk -v n="${EPOCHREALTIME/,/.}" -v t="$t" 'BEGIN { printf "%.6f", n + t }')
i=0
while :; do
	sleep 0.1
	now=${EPOCHREALTIME/,/.}
	[[ ${now/./} < ${end/./} ]] || break
	pol=$(<"$FAKE_STATE")
	i=$((i + 1))
	case $pol in fast) v=$((120 + i % 3)) ;; *) v=$((100 + i % 3)) ;; esac
	echo "$now tick ops $v"
done
EOF
chmod +x "$W/fake" "$W/tick"
cat >"$TMPD/sw" <<'EOF'
#!/bin/bash
[ "$1" = broken ] && { echo "no such policy" >&2; exit 1; }
echo "$1" >>"$FAKE_LOG"
echo "$1" >"$FAKE_STATE"
EOF
chmod +x "$TMPD/sw"
M=$TMPD/metrics
printf 'fake ops higher throughput ops/s\nfake lat lower time usec\ntick ops higher throughput ops/s\n' >"$M"
echo stock >"$FAKE_STATE"

AB=("$BENCH/ab" --workload-dir "$W" --metrics "$M" --switcher "$TMPD/sw"
    --settle 0 --warmup 1 -d 1)

# abba_ok FILE NPOL: the policy sequence in FILE is, per round of 2*NPOL
# blocks, a permutation followed by its mirror image.
abba_ok() {
	awk -v k="$2" '{ s[NR] = $1 } END {
		if (NR == 0 || NR % (2 * k)) { print "length", NR; exit 1 }
		for (b = 0; b < NR; b += 2 * k) {
			delete u
			for (i = 1; i <= k; i++) {
				if (s[b + i] != s[b + 2 * k + 1 - i]) { print "not mirrored at", b + i; exit 1 }
				if (s[b + i] in u) { print "repeated", s[b + i]; exit 1 }
				u[s[b + i]] = 1
			}
		}
	}' "$1"
}

# ---- ab dry run -----------------------------------------------------------------
: >"$FAKE_LOG"
"${AB[@]}" -p "stock fast" -w "fake fake:-x" -l "1 2" -r 2 -s 42 -o "$TMPD/ab1" \
	>"$TMPD/ab1.out" 2>"$TMPD/ab1.err"
rc=$?
# fake:-x passes -x: getopts rejects it? No: "-x" is unknown to fake -> exit 2.
check "ab: a workload that fails is reported, exit 1" \
	eval '[ $rc = 1 ] && [ -s "$TMPD/ab1/failures.txt" ] && grep -q "fake:-x" "$TMPD/ab1/failures.txt" && grep -q FAILED "$TMPD/ab1.err"'

: >"$FAKE_LOG"
"${AB[@]}" -p "stock fast" -w "fake" -l "1 2" -r 3 -s 42 -o "$TMPD/ab2" \
	>"$TMPD/ab2.out" 2>"$TMPD/ab2.err"
rc=$?
check "ab: dry run exits 0" eval '[ $rc = 0 ] || { cat "$TMPD/ab2.err"; exit 1; }'
check "ab: switcher called once per block (24 = 2 levels x 3 rounds x ABBA)" \
	eval '[ "$(wc -l <"$FAKE_LOG")" = 24 ]'
check "ab: every round is ABBA (a permutation, then its mirror)" abba_ok "$FAKE_LOG" 2
check "ab: the switcher calls follow order.txt" \
	eval 'diff <(awk "NR > 1 { print \$5 }" "$TMPD/ab2/order.txt") "$FAKE_LOG"'
cp "$FAKE_LOG" "$TMPD/calls42"
: >"$FAKE_LOG"
"${AB[@]}" -p "stock fast" -w "fake" -l "1 2" -r 3 -s 42 -o "$TMPD/ab3" >/dev/null 2>&1
check "ab: same seed, same order and same statistics" \
	eval 'cmp "$TMPD/calls42" "$FAKE_LOG" && cmp "$TMPD/ab2/order.txt" "$TMPD/ab3/order.txt" && cmp "$TMPD/ab2/table.txt" "$TMPD/ab3/table.txt"'
"${AB[@]}" -p "stock fast" -w "fake" -l "1 2" -r 3 -s 43 -n >"$TMPD/plan43"
"${AB[@]}" -p "stock fast" -w "fake" -l "1 2" -r 3 -s 42 -n >"$TMPD/plan42"
check "ab: -n prints the plan; another seed gives another order" \
	eval 'diff <(tail -n +2 "$TMPD/plan42") <(tail -n +2 "$TMPD/ab2/order.txt") && ! cmp -s "$TMPD/plan42" "$TMPD/plan43" && [ "$(wc -l <"$TMPD/plan43")" = 25 ]'
"${AB[@]}" -p "a b c" -w "fake" -l 1 -r 4 -s 7 -n | awk 'NR > 1 { print $5 }' >"$TMPD/plan3"
check "ab: three policies: rounds of A B C C B A in random permutations" \
	eval 'abba_ok "$TMPD/plan3" 3 && [ "$(sort -u "$TMPD/plan3" | wc -l)" = 3 ] && [ "$(head -n 3 "$TMPD/plan3" | sort -u | wc -l)" = 3 ]'
check "ab: plan differs between rounds (randomised, not fixed ABBA)" \
	eval '[ "$(awk "NR % 6 == 1" "$TMPD/plan3" | sort -u | wc -l)" -gt 1 ] || [ "$(awk "NR % 6 == 2" "$TMPD/plan3" | sort -u | wc -l)" -gt 1 ]'

C=$TMPD/ab2/results.csv
check "ab: CSV header" \
	eval '[ "$(head -n 1 "$C")" = "timestamp,rep,block,policy,workload,level,metric,value" ]'
check "ab: every CSV row has 8 fields, numeric time/rep/block/value, known policy" \
	awk -F, 'NR > 1 { if (NF != 8 || $1 !~ /^[0-9.]+$/ || $2 !~ /^[1-3]$/ ||
		$3 !~ /^[0-9]+$/ || ($4 != "stock" && $4 != "fast") ||
		$5 != "fake" || ($6 != "1" && $6 != "2") || $8 !~ /^[0-9.]+$/) { print; bad = 1 } }
		END { exit bad }' "$C"
check "ab: warm-up discarded: 4 of 5 samples per metric and block kept" \
	eval '[ "$(awk -F, "NR > 1 && \$7 == \"ops\"" "$C" | wc -l)" = 96 ] &&
	      awk -F, "NR > 1 { n[\$3 \" \" \$7]++ } END { for (k in n) if (n[k] != 4) exit 1 }" "$C"'
check "ab: malformed output lines are ignored with a note" \
	grep -q "malformed output lines ignored" "$TMPD/ab2.err"
check "ab: the block's rows carry the policy that was switched in" \
	awk -F, 'NR > 1 && $7 == "ops" { f = ($4 == "fast") ? 1.2 : 1; e = 100 * $6 * f
		if ($8 < e * 0.99 || $8 > e * 1.01) { print; bad = 1 } } END { exit bad }' "$C"
J=$TMPD/ab2/summary.json
check "ab: summary.json is valid JSON with the documented keys" \
	jq -e '(.tool == "wakeplace-ab") and (.seed == 42) and (.kernel | type == "string") and
		(.cpu_model | type == "string") and (.topology.cpus | type == "array") and
		(.topology.cpus | length > 0) and (.topology.cpus[0] | has("llc_cpus")) and
		(has("module_version")) and (.tunables | type == "object") and
		(.command | test("--switcher")) and (.baseline == "stock") and
		(.policies == ["stock", "fast"]) and (.levels == ["1", "2"]) and
		(.order | length == 24) and (.blocks == 24) and (.failed_blocks == 0) and
		(.stats.rows | type == "array")' "$J"
check "ab: summary order matches order.txt" \
	eval 'diff <(jq -r ".order[] | \"\(.block) \(.rep) \(.workload) \(.level) \(.policy)\"" "$J") <(tail -n +2 "$TMPD/ab2/order.txt")'
check "ab: table.txt: fast ops x1.2 and lat x0.833, no * with 3 pairs (min 5)" \
	eval 'grep -E "^fake +1 +ops .* fast .* 1\.200 " "$TMPD/ab2/table.txt" && grep -E "^fake +1 +lat .* fast .* 0\.833 " "$TMPD/ab2/table.txt" && ! grep -qE "\] \*" "$TMPD/ab2/table.txt"'
check "ab: stats.json equals summary.stats" \
	eval 'diff <(jq -S . "$TMPD/ab2/stats.json") <(jq -S .stats "$J")'

: >"$FAKE_LOG"
"${AB[@]}" -p "stock slow" -w fake -l 1 -r 5 -s 1 --fail-if-regress 10 \
	-o "$TMPD/ab4" >/dev/null 2>&1
rc=$?
check "ab: --fail-if-regress 10 with a policy 20% worse: exit 3" \
	eval '[ $rc = 3 ] && grep -q REGRESSION "$TMPD/ab4/table.txt"'
"${AB[@]}" -p "stock fast" -w fake -l 1 -r 5 -s 1 --fail-if-regress 10 \
	-o "$TMPD/ab5" >/dev/null 2>&1
rc=$?
check "ab: --fail-if-regress 10 with a policy 20% better: exit 0, with *" \
	eval '[ $rc = 0 ] && grep -qE " fast .*\*" "$TMPD/ab5/table.txt"'
"${AB[@]}" -p "stock broken" -w fake -l 1 -r 1 -s 3 -o "$TMPD/ab6" >/dev/null 2>&1
check "ab: a failing switcher aborts with exit 2" eval "[ $? = 2 ]"
"${AB[@]}" -p "stock fast" -w nosuch -l 1 -o "$TMPD/ab7" >/dev/null 2>&1
rc=$?
check "ab: unknown workload: exit 2 before running" \
	eval '[ $rc = 2 ] && [ ! -e "$TMPD/ab7/results.csv" ]'
"${AB[@]}" -p "stock fast" -w fake -l 1 -r 1 -o "$TMPD/ab2" >/dev/null 2>&1
check "ab: refuses to overwrite results (exit 2)" eval "[ $? = 2 ]"
WP_SWITCH="$TMPD/sw" "$BENCH/ab" --workload-dir "$W" --metrics "$M" --settle 0 \
	--warmup 0 -d 1 -p "stock fast" -w fake -l 1 -r 1 -s 9 -o "$TMPD/ab8" >/dev/null 2>&1
rc=$?
check "ab: WP_SWITCH selects the switcher; warm-up 0 keeps all 5 samples" \
	eval '[ $rc = 0 ] && [ "$(jq -r .switcher "$TMPD/ab8/summary.json")" = "$TMPD/sw" ] &&
	      [ "$(awk -F, "NR > 1 && \$3 == 1 && \$7 == \"ops\"" "$TMPD/ab8/results.csv" | wc -l)" = 5 ]'

# ---- switchback dry run -----------------------------------------------------------
: >"$FAKE_LOG"
SB=("$BENCH/switchback" --workload-dir "$W" --metrics "$M" --switcher "$TMPD/sw")
"${SB[@]}" -w tick -p "stock fast" -b 0.8 -S 0.2 -i 0.1 -n 3 --min-pairs 3 \
	-s 5 -o "$TMPD/sb" >"$TMPD/sb.out" 2>"$TMPD/sb.err"
# shellcheck disable=SC2034 # read by the eval'd check below
rc=$?
check "switchback: dry run exits 0" eval '[ $rc = 0 ] || { cat "$TMPD/sb.err"; exit 1; }'
check "switchback: 12 switches in ABBA rounds" \
	eval '[ "$(wc -l <"$FAKE_LOG")" = 12 ] && abba_ok "$FAKE_LOG" 2'
"${SB[@]}" -w tick -p "stock fast" -n 3 -s 5 -N >"$TMPD/sbplan"
check "switchback: the order is the seeded plan (-N), as recorded in switches.txt" \
	eval 'diff <(awk "NR > 1 { print \$3 }" "$TMPD/sbplan") "$FAKE_LOG" && diff <(awk "{ print \$2 }" "$TMPD/sb/switches.txt") "$FAKE_LOG"'
check "switchback: every block lasts >= 0.8 s after its switch completed" \
	awk 'NR > 1 && $3 - e < 0.8 - 0.01 { print "block", NR, $3 - e; bad = 1 } { e = $4 } END { exit bad }' "$TMPD/sb/switches.txt"
check "switchback: settle samples dropped, the rest kept" \
	eval 'grep -Eq "samples kept [1-9][0-9]*, dropped in settle windows [1-9]" "$TMPD/sb.err"'
check "switchback: no kept sample starts within the settle window" \
	awk -F, -v sw="$TMPD/sb/switches.txt" 'BEGIN { while ((getline l < sw) > 0) { split(l, f, " "); e[f[1]] = f[4] } }
		NR > 1 { if ($1 - 0.1 < e[$3] + 0.2 - 1e-6) { print; bad = 1 } } END { exit bad }' "$TMPD/sb/results.csv"
check "switchback: samples carry the block's policy (fast = 120..122)" \
	awk -F, 'NR > 1 { if (($4 == "fast") != ($8 >= 120)) { print; bad = 1 } } END { exit bad }' "$TMPD/sb/results.csv"
check "switchback: gmean 1.2 with *, A/A row present" \
	eval 'jq -e "[.stats.rows[] | select(.policy == \"fast\")][0] | (.gmean > 1.18 and .gmean < 1.22 and .significant)" "$TMPD/sb/summary.json" && jq -e "[.stats.rows[] | select(.role == \"aa\")] | length == 1" "$TMPD/sb/summary.json"'
# Every switch is listed; a block appears in the statistics when it kept
# samples (on a loaded machine a 0.8 s block can lose all to its settle
# window), so compare with the blocks present in results.csv.
sb_blocks=$(awk -F, 'NR > 1 { print $3 }' "$TMPD/sb/results.csv" | sort -u | wc -l)
check "switchback: summary.json lists 12 switches and the per-block values" \
	jq -e --argjson nb "$sb_blocks" '(.switches | length == 12) and (.stats.blocks | length == $nb) and ($nb >= 1) and (.block_s == 0.8) and (.samples_kept > 0)' "$TMPD/sb/summary.json"
if command -v gnuplot >/dev/null; then
	check "switchback: SVG plot written" \
		eval 'grep -q "<svg" "$TMPD/sb/switchback.svg" && grep -q "stock" "$TMPD/sb/switchback.svg"'
	check "switchback: PNG plot written" \
		eval '[ "$(head -c 4 "$TMPD/sb/switchback.png" | od -An -c | tr -d " ")" = "211PNG" ]'
else
	t_skip "switchback: SVG plot" "gnuplot not installed"
	t_skip "switchback: PNG plot" "gnuplot not installed"
fi
"${SB[@]}" -w tick -p "stock" -o "$TMPD/sb2" >/dev/null 2>&1
check "switchback: one policy is a usage error (exit 2)" eval "[ $? = 2 ]"
"${SB[@]}" -w tick -p "stock fast" -b 1 -S 2 -o "$TMPD/sb3" >/dev/null 2>&1
check "switchback: settle longer than the block is refused (exit 2)" eval "[ $? = 2 ]"

t_done
