#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-scripts/bin/wpstats on known and synthetic inputs: geometric means,
# Hmean/Amean, A/A control, bootstrap coverage, the * rule, determinism,
# --fail-if-regress, histogram merging, input errors, JSON schema.  TAP.
set -u
. "$(dirname "$(readlink -f "$0")")/../../bench-scripts/test-lib.sh"

S=$BENCH/bin/wpstats
M=$TMPD/metrics
cat >"$M" <<'EOF'
syn  ops   higher throughput ops/s
syn  lat   lower  time       usec
syn  info1 lower  info       usec
EOF
HDR="timestamp,rep,block,policy,workload,level,metric,value"

# gen_pairs RATIOS BASEA [METRIC]: ABBA rounds, one sample per block;
# round i: stock blocks BASEA_i (first) and 100 (second), new blocks
# 100 * RATIO_i.  Exact per-round ratio = RATIO_i (vs the Hmean of stock).
gen_pairs() {
	awk -v rs="$1" -v as="$2" -v m="${3:-ops}" -v h="$HDR" 'BEGIN {
		print h
		n = split(rs, r, " "); split(as, a, " "); b = 0
		for (i = 1; i <= n; i++) {
			printf "1.0,%d,%d,stock,syn,1,%s,%.10g\n", i, ++b, m, 100 * a[i]
			printf "1.0,%d,%d,new,syn,1,%s,%.10g\n", i, ++b, m, 100 * r[i]
			printf "1.0,%d,%d,new,syn,1,%s,%.10g\n", i, ++b, m, 100 * r[i]
			printf "1.0,%d,%d,stock,syn,1,%s,100\n", i, ++b, m
		}
	}'
}

# gen_syn SEED REPS RATIO NOISE [METRIC]: ABBA rounds of 5 samples per
# block, log-normal noise, a per-round drift common to both policies.
gen_syn() {
	awk -v seed="$1" -v reps="$2" -v ratio="$3" -v sd="$4" \
	    -v m="${5:-ops}" -v h="$HDR" '
	function gauss() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }
	BEGIN {
		srand(seed); print h; b = 0
		split("stock new new stock", ord, " ")
		for (r = 1; r <= reps; r++) {
			drift = exp(0.05 * gauss())
			for (k = 1; k <= 4; k++) {
				b++
				f = (ord[k] == "new") ? ratio : 1
				for (s = 0; s < 5; s++)
					printf "%d.%d,%d,%d,%s,syn,1,%s,%.6f\n", 1000 + b, s, r, b,
						ord[k], m, 100 * f * drift * exp(sd * gauss())
			}
		}
	}'
}

jrow() { # FILE POLICY FIELD [METRIC]
	jq -r --arg p "$2" --arg m "${4:-ops}" \
		".rows[] | select(.policy == \$p and .metric == \$m) | .$3" "$1"
}

# ---- exact geometric mean of paired ratios -----------------------------
R="1.1 1.2 0.9 1.0 1.05"
gen_pairs "$R" "1 1 1 1 1" >"$TMPD/p.csv"
"$S" -m "$M" -b stock -j "$TMPD/p.json" -q "$TMPD/p.csv"
want=$(awk -v rs="$R" 'BEGIN { n = split(rs, r, " ");
	for (i = 1; i <= n; i++) s += log(r[i]); printf "%.9f", exp(s / n) }')
check "gmean of paired ratios = exp(mean(log r)) = $want" \
	t_cmp "$(jrow "$TMPD/p.json" new gmean)" eq "$want" 1e-6
check "pairs = 5 rounds" t_cmp "$(jrow "$TMPD/p.json" new pairs)" eq 5
check "n = 10 blocks per policy, samples = 10" \
	eval '[ "$(jrow "$TMPD/p.json" new n)" = 10 ] && [ "$(jrow "$TMPD/p.json" new samples)" = 10 ]'
hm_new=$(awk -v rs="$R" 'BEGIN { n = split(rs, r, " ");
	for (i = 1; i <= n; i++) s += 2 / (100 * r[i]); printf "%.9f", 2 * n / s }')
check "throughput mean is the Hmean of the blocks ($hm_new)" \
	t_cmp "$(jrow "$TMPD/p.json" new mean)" eq "$hm_new" 1e-5
check "ratio = mean / baseline mean" \
	t_cmp "$(jrow "$TMPD/p.json" new ratio)" eq "$(awk -v a="$hm_new" 'BEGIN { printf "%.9f", a / 100 }')" 1e-6
check "baseline row: ratio 1, no interval" \
	eval '[ "$(jrow "$TMPD/p.json" stock ratio)" = 1 ] && [ "$(jrow "$TMPD/p.json" stock ci_lo)" = null ] && [ "$(jrow "$TMPD/p.json" stock role)" = baseline ]'

# ---- Hmean for throughput, Amean for times -------------------------------
{
	echo "$HDR"
	echo "1,1,1,stock,syn,1,ops,1"
	echo "2,1,1,stock,syn,1,ops,3"
	echo "1,1,1,stock,syn,1,lat,1"
	echo "2,1,1,stock,syn,1,lat,3"
	echo "2,1,1,stock,syn,1,info1,3"
} >"$TMPD/m.csv"
"$S" -m "$M" -j "$TMPD/m.json" -q "$TMPD/m.csv"
check "Hmean(1,3) = 1.5 for a throughput metric" \
	t_cmp "$(jrow "$TMPD/m.json" stock mean ops)" eq 1.5 1e-9
check "Amean(1,3) = 2 for a time metric" \
	t_cmp "$(jrow "$TMPD/m.json" stock mean lat)" eq 2 1e-9
check "info metrics are not compared (no row)" \
	eval '[ -z "$(jrow "$TMPD/m.json" stock mean info1)" ]'
check "mean_kind Hmean/Amean recorded" \
	eval '[ "$(jrow "$TMPD/m.json" stock mean_kind ops)" = Hmean ] && [ "$(jrow "$TMPD/m.json" stock mean_kind lat)" = Amean ]'

# ---- A/A control ----------------------------------------------------------
A="1.02 0.98 1.01 1.03 0.99"
gen_pairs "1 1 1 1 1" "$A" >"$TMPD/aa.csv"
"$S" -m "$M" -b stock -j "$TMPD/aa.json" -q "$TMPD/aa.csv"
want=$(awk -v rs="$A" 'BEGIN { n = split(rs, r, " ");
	for (i = 1; i <= n; i++) s += log(r[i]); printf "%.9f", exp(s / n) }')
check "A/A row: first / second baseline block per round, gmean $want" \
	t_cmp "$(jrow "$TMPD/aa.json" A/A gmean)" eq "$want" 1e-6
check "A/A row: role aa, 5 pairs, never a regression" \
	eval '[ "$(jrow "$TMPD/aa.json" A/A role)" = aa ] && [ "$(jrow "$TMPD/aa.json" A/A pairs)" = 5 ] && [ "$(jrow "$TMPD/aa.json" A/A regression)" = false ]'

# ---- bootstrap interval covers the true ratio ------------------------------
cover=0 narrow=0
for seed in $(seq 100 119); do
	gen_syn "$seed" 8 1.10 0.03 >"$TMPD/c.csv"
	"$S" -m "$M" -b stock -s "$seed" -j "$TMPD/c.json" -q "$TMPD/c.csv"
	lo=$(jrow "$TMPD/c.json" new ci_lo) hi=$(jrow "$TMPD/c.json" new ci_hi)
	t_cmp "$lo" le 1.10 >/dev/null && t_cmp "$hi" ge 1.10 >/dev/null &&
		cover=$((cover + 1))
	awk -v l="$lo" -v h="$hi" 'BEGIN { exit !(h / l < 1.10) }' &&
		narrow=$((narrow + 1))
done
check "95% interval covers the true ratio 1.10 in >= 17 of 20 data sets ($cover)" \
	t_cmp "$cover" ge 17
check "and is informative: narrower than 10% in all 20 ($narrow)" \
	t_cmp "$narrow" eq 20

# ---- the * rule --------------------------------------------------------------
gen_syn 5 6 1.20 0.01 >"$TMPD/s1.csv"
"$S" -m "$M" -b stock -j "$TMPD/s1.json" "$TMPD/s1.csv" >"$TMPD/s1.txt"
check "clear effect (x1.2, 6 pairs): significant, * in the table" \
	eval '[ "$(jrow "$TMPD/s1.json" new significant)" = true ] && grep -E "^syn +1 +ops .* new .*\] \*" "$TMPD/s1.txt"'
gen_syn 6 8 1.00 0.02 >"$TMPD/s0.csv"
"$S" -m "$M" -b stock -j "$TMPD/s0.json" "$TMPD/s0.csv" >"$TMPD/s0.txt"
check "no effect (x1.0): interval contains 1, no *" \
	eval '[ "$(jrow "$TMPD/s0.json" new significant)" = false ] && ! grep -E " new .*\*" "$TMPD/s0.txt"'
gen_syn 7 4 1.50 0.01 >"$TMPD/s4.csv"
"$S" -m "$M" -b stock -j "$TMPD/s4.json" -q "$TMPD/s4.csv"
check "4 pairs (< min-pairs 5): no * however large the effect" \
	eval '[ "$(jrow "$TMPD/s4.json" new significant)" = false ] && t_cmp "$(jrow "$TMPD/s4.json" new ci_lo)" gt 1'
"$S" -m "$M" -b stock -p 3 -j "$TMPD/s4b.json" -q "$TMPD/s4.csv"
check "with --min-pairs 3 the same data gets its *" \
	eval '[ "$(jrow "$TMPD/s4b.json" new significant)" = true ]'
check "* iff the interval excludes 1.0 and pairs >= min_pairs (all rows)" \
	eval 'for f in s1 s0 s4 s4b c; do jq -e ".min_pairs as \$m | [.rows[] | select(.role != \"baseline\") |
		(.significant == ((.pairs >= \$m) and (.ci_lo > 1 or .ci_hi < 1)))] | all" "$TMPD/$f.json" >/dev/null || exit 1; done'

# ---- determinism -------------------------------------------------------------
"$S" -m "$M" -b stock -s 99 -j "$TMPD/d1.json" "$TMPD/c.csv" >"$TMPD/d1.txt"
"$S" -m "$M" -b stock -s 99 -j "$TMPD/d2.json" "$TMPD/c.csv" >"$TMPD/d2.txt"
"$S" -m "$M" -b stock -s 100 -j "$TMPD/d3.json" -q "$TMPD/c.csv"
check "same seed: identical table and JSON" \
	eval 'cmp "$TMPD/d1.txt" "$TMPD/d2.txt" && cmp "$TMPD/d1.json" "$TMPD/d2.json"'
check "other seed: same gmean, different bootstrap interval" \
	eval '[ "$(jrow "$TMPD/d1.json" new gmean)" = "$(jrow "$TMPD/d3.json" new gmean)" ] && [ "$(jrow "$TMPD/d1.json" new ci_lo)" != "$(jrow "$TMPD/d3.json" new ci_lo)" ]'

# ---- --fail-if-regress -------------------------------------------------------
gen_syn 8 6 0.80 0.01 >"$TMPD/r.csv"
"$S" -m "$M" -b stock -f 10 -j "$TMPD/r.json" "$TMPD/r.csv" >"$TMPD/r.txt"
rc=$?
check "throughput 20% worse, -f 10: exit 3, regression flagged" \
	eval '[ $rc = 3 ] && [ "$(jrow "$TMPD/r.json" new regression)" = true ] && grep -q REGRESSION "$TMPD/r.txt" && [ "$(jq .regressions "$TMPD/r.json")" = 1 ]'
"$S" -m "$M" -b stock -f 30 -q "$TMPD/r.csv"
check "same data, -f 30: exit 0" eval "[ $? = 0 ]"
"$S" -m "$M" -b stock -f 10 -q "$TMPD/s1.csv"
check "throughput 20% better, -f 10: exit 0" eval "[ $? = 0 ]"
gen_syn 9 6 1.20 0.01 lat >"$TMPD/rl.csv"
"$S" -m "$M" -b stock -f 10 -q "$TMPD/rl.csv"
check "time metric 20% higher (lower is better), -f 10: exit 3" eval "[ $? = 3 ]"
gen_syn 9 6 0.80 0.01 lat >"$TMPD/rl2.csv"
"$S" -m "$M" -b stock -f 10 -q "$TMPD/rl2.csv"
check "time metric 20% lower, -f 10: exit 0" eval "[ $? = 0 ]"

# ---- histograms are merged before percentiles --------------------------------
# llhist: 1000 ns is bucket 190, 1000000 ns is bucket 510.  Block 1 holds
# 100 samples of 1 us, block 2 100 samples of 1 ms: the merged p50 is 1 us
# (averaging the block p50s would give ~500 us).
{
	echo "$HDR"
	echo "1,1,1,stock,wakelat,1,hist,L6ns;190:100"
	echo "1,1,2,stock,wakelat,1,hist,L6ns;510:100"
	echo "1,1,1,stock,wakelat,1,p50_us,1.0"
	echo "1,1,2,stock,wakelat,1,p50_us,1000.0"
} >"$TMPD/h.csv"
"$S" -b stock -j "$TMPD/h.json" -q "$TMPD/h.csv"
check "merged p50 from the histograms is ~1 us" \
	t_cmp "$(jrow "$TMPD/h.json" stock mean lat_p50_us)" eq 1.0 0.03
check "merged p99 is ~1000 us" \
	t_cmp "$(jrow "$TMPD/h.json" stock mean lat_p99_us)" eq 1000 30
check "four percentile rows per histogram, interval p50_us not averaged" \
	eval '[ "$(jq "[.rows[] | select(.policy == \"stock\")] | length" "$TMPD/h.json")" = 4 ] && [ -z "$(jrow "$TMPD/h.json" stock mean p50_us)" ]'

# ---- input errors --------------------------------------------------------------
{ echo "time,rep"; echo "1,1"; } >"$TMPD/e1.csv"
"$S" -m "$M" -q "$TMPD/e1.csv" 2>/dev/null
check "bad header: exit 2" eval "[ $? = 2 ]"
{ echo "$HDR"; echo "1,1,1,stock,syn,1,ops"; } >"$TMPD/e2.csv"
"$S" -m "$M" -q "$TMPD/e2.csv" 2>/dev/null
check "7 fields: exit 2" eval "[ $? = 2 ]"
{ echo "$HDR"; echo "1,1,1,stock,syn,1,ops,abc"; } >"$TMPD/e3.csv"
"$S" -m "$M" -q "$TMPD/e3.csv" 2>/dev/null
check "non-numeric value: exit 2" eval "[ $? = 2 ]"
{ echo "$HDR"; echo "1,1,1,stock,syn,1,ops,1"; echo "1,1,1,new,syn,1,ops,1"; } >"$TMPD/e4.csv"
"$S" -m "$M" -q "$TMPD/e4.csv" 2>/dev/null
check "one block with two policies: exit 2" eval "[ $? = 2 ]"
{ echo "$HDR"; echo "1,1,1,stock,syn,1,bogus,1"; echo "1,1,1,stock,syn,1,ops,1"; } >"$TMPD/e5.csv"
"$S" -m "$M" -j "$TMPD/e5.json" -q "$TMPD/e5.csv" 2>"$TMPD/e5.err"
# shellcheck disable=SC2034 # read by the eval'd check below
rc=$?
check "unknown metric: warned and ignored, exit 0" \
	eval '[ $rc = 0 ] && grep -q "bogus" "$TMPD/e5.err" && [ "$(jq ".rows | length" "$TMPD/e5.json")" = 1 ]'
"$S" -m "$M" -b nosuch -q "$TMPD/p.csv" 2>/dev/null
check "unknown baseline: exit 2" eval "[ $? = 2 ]"

# ---- JSON and text schema ---------------------------------------------------------
check "JSON: top-level keys and types" \
	jq -e '(.tool == "wpstats") and (.format == 1) and (.baseline | type == "string") and
		(.seed | type == "number") and (.resamples | type == "number") and
		(.confidence == 0.95) and (.min_pairs | type == "number") and
		(.regressions | type == "number") and (.rows | type == "array")' "$TMPD/s1.json"
check "JSON: every row has the documented fields and types" \
	jq -e '[.rows[] | (.workload | type == "string") and (.level | type == "string") and
		(.metric | type == "string") and (.better == "higher" or .better == "lower") and
		(.mean_kind | type == "string") and (.unit | type == "string") and
		(.policy | type == "string") and (.role == "baseline" or .role == "compare" or .role == "aa") and
		(.n | type == "number") and (.samples | type == "number") and
		(.mean | type == "number" or . == null) and (.cv_pct | type == "number" or . == null) and
		(.ratio | type == "number" or . == null) and (.pairs | type == "number") and
		(.gmean | type == "number" or . == null) and (.ci_lo | type == "number" or . == null) and
		(.ci_hi | type == "number" or . == null) and (.significant | type == "boolean") and
		(.regression | type == "boolean")] | all' "$TMPD/s1.json"
check "text table: header and one row per policy plus A/A" \
	eval 'grep -qE "^workload +level +metric +better +mean +policy +n +value +cv% +ratio +gmean +95% CI" "$TMPD/s1.txt" &&
	      [ "$(grep -cE "^syn " "$TMPD/s1.txt")" = 3 ] && grep -qE "^syn +1 +ops .* A/A " "$TMPD/s1.txt"'
"$S" -m "$M" -b stock -k -j - "$TMPD/p.csv" >"$TMPD/k.json"
check "--blocks: per-block values in JSON (20 blocks)" \
	jq -e '(.blocks | length == 20) and ([.blocks[] | has("block") and has("rep") and has("policy") and has("value")] | all)' "$TMPD/k.json"

t_done
