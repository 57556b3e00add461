#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-scripts/bin/wpstats --format mmtests|lkp on fixed inputs: exact
# lines of both table styles, the significance marks, the A/A row, the
# module's figures (wp_lat histogram rows, wp_*_pct percentages).  TAP.
set -u
. "$(dirname "$(readlink -f "$0")")/../../bench-scripts/test-lib.sh"

S=$BENCH/bin/wpstats
M=$BENCH/metrics

# three.csv: 5 ABBA rounds of stock, noscan, idlemask on wakelat level 1:
# rps (noscan -20%, idlemask within noise), the module's stacked % and
# latency histogram per block (noscan: 20% of wakeups in the 1 ms bucket).
cat >"$TMPD/three.csv" <<'CSV'
timestamp,rep,block,policy,workload,level,metric,value
1010.0,1,1,stock,wakelat,1,rps,1000.00
1010.9,1,1,stock,wakelat,1,wp_stacked_pct,2.10
1010.9,1,1,stock,wakelat,1,wp_lat,L6ns;288:99;512:1
1020.0,1,2,noscan,wakelat,1,rps,816.00
1020.9,1,2,noscan,wakelat,1,wp_stacked_pct,32.00
1020.9,1,2,noscan,wakelat,1,wp_lat,L6ns;288:80;512:20
1030.0,1,3,idlemask,wakelat,1,rps,1010.00
1030.9,1,3,idlemask,wakelat,1,wp_stacked_pct,1.60
1030.9,1,3,idlemask,wakelat,1,wp_lat,L6ns;288:99;512:1
1040.0,1,4,idlemask,wakelat,1,rps,1010.00
1040.9,1,4,idlemask,wakelat,1,wp_stacked_pct,1.50
1040.9,1,4,idlemask,wakelat,1,wp_lat,L6ns;288:99;512:1
1050.0,1,5,noscan,wakelat,1,rps,784.00
1050.9,1,5,noscan,wakelat,1,wp_stacked_pct,31.00
1050.9,1,5,noscan,wakelat,1,wp_lat,L6ns;288:80;512:20
1060.0,1,6,stock,wakelat,1,rps,1000.00
1060.9,1,6,stock,wakelat,1,wp_stacked_pct,2.00
1060.9,1,6,stock,wakelat,1,wp_lat,L6ns;288:99;512:1
1070.0,2,7,idlemask,wakelat,1,rps,1010.00
1070.9,2,7,idlemask,wakelat,1,wp_stacked_pct,1.60
1070.9,2,7,idlemask,wakelat,1,wp_lat,L6ns;288:99;512:1
1080.0,2,8,stock,wakelat,1,rps,990.00
1080.9,2,8,stock,wakelat,1,wp_stacked_pct,2.20
1080.9,2,8,stock,wakelat,1,wp_lat,L6ns;288:99;512:1
1090.0,2,9,noscan,wakelat,1,rps,808.00
1090.9,2,9,noscan,wakelat,1,wp_stacked_pct,31.00
1090.9,2,9,noscan,wakelat,1,wp_lat,L6ns;288:80;512:20
1100.0,2,10,noscan,wakelat,1,rps,784.00
1100.9,2,10,noscan,wakelat,1,wp_stacked_pct,32.00
1100.9,2,10,noscan,wakelat,1,wp_lat,L6ns;288:80;512:20
1110.0,2,11,stock,wakelat,1,rps,1000.00
1110.9,2,11,stock,wakelat,1,wp_stacked_pct,2.20
1110.9,2,11,stock,wakelat,1,wp_lat,L6ns;288:99;512:1
1120.0,2,12,idlemask,wakelat,1,rps,1010.00
1120.9,2,12,idlemask,wakelat,1,wp_stacked_pct,1.50
1120.9,2,12,idlemask,wakelat,1,wp_lat,L6ns;288:99;512:1
1130.0,3,13,stock,wakelat,1,rps,990.00
1130.9,3,13,stock,wakelat,1,wp_stacked_pct,2.10
1130.9,3,13,stock,wakelat,1,wp_lat,L6ns;288:99;512:1
1140.0,3,14,noscan,wakelat,1,rps,808.00
1140.9,3,14,noscan,wakelat,1,wp_stacked_pct,32.00
1140.9,3,14,noscan,wakelat,1,wp_lat,L6ns;288:80;512:20
1150.0,3,15,idlemask,wakelat,1,rps,960.00
1150.9,3,15,idlemask,wakelat,1,wp_stacked_pct,1.60
1150.9,3,15,idlemask,wakelat,1,wp_lat,L6ns;288:99;512:1
1160.0,3,16,idlemask,wakelat,1,rps,1010.00
1160.9,3,16,idlemask,wakelat,1,wp_stacked_pct,1.50
1160.9,3,16,idlemask,wakelat,1,wp_lat,L6ns;288:99;512:1
1170.0,3,17,noscan,wakelat,1,rps,816.00
1170.9,3,17,noscan,wakelat,1,wp_stacked_pct,31.00
1170.9,3,17,noscan,wakelat,1,wp_lat,L6ns;288:80;512:20
1180.0,3,18,stock,wakelat,1,rps,990.00
1180.9,3,18,stock,wakelat,1,wp_stacked_pct,2.00
1180.9,3,18,stock,wakelat,1,wp_lat,L6ns;288:99;512:1
1190.0,4,19,idlemask,wakelat,1,rps,1010.00
1190.9,4,19,idlemask,wakelat,1,wp_stacked_pct,1.60
1190.9,4,19,idlemask,wakelat,1,wp_lat,L6ns;288:99;512:1
1200.0,4,20,stock,wakelat,1,rps,980.00
1200.9,4,20,stock,wakelat,1,wp_stacked_pct,2.20
1200.9,4,20,stock,wakelat,1,wp_lat,L6ns;288:99;512:1
1210.0,4,21,noscan,wakelat,1,rps,800.00
1210.9,4,21,noscan,wakelat,1,wp_stacked_pct,31.00
1210.9,4,21,noscan,wakelat,1,wp_lat,L6ns;288:80;512:20
1220.0,4,22,noscan,wakelat,1,rps,816.00
1220.9,4,22,noscan,wakelat,1,wp_stacked_pct,32.00
1220.9,4,22,noscan,wakelat,1,wp_lat,L6ns;288:80;512:20
1230.0,4,23,stock,wakelat,1,rps,990.00
1230.9,4,23,stock,wakelat,1,wp_stacked_pct,2.20
1230.9,4,23,stock,wakelat,1,wp_lat,L6ns;288:99;512:1
1240.0,4,24,idlemask,wakelat,1,rps,1010.00
1240.9,4,24,idlemask,wakelat,1,wp_stacked_pct,1.50
1240.9,4,24,idlemask,wakelat,1,wp_lat,L6ns;288:99;512:1
1250.0,5,25,stock,wakelat,1,rps,980.00
1250.9,5,25,stock,wakelat,1,wp_stacked_pct,2.10
1250.9,5,25,stock,wakelat,1,wp_lat,L6ns;288:99;512:1
1260.0,5,26,noscan,wakelat,1,rps,800.00
1260.9,5,26,noscan,wakelat,1,wp_stacked_pct,32.00
1260.9,5,26,noscan,wakelat,1,wp_lat,L6ns;288:80;512:20
1270.0,5,27,idlemask,wakelat,1,rps,1010.00
1270.9,5,27,idlemask,wakelat,1,wp_stacked_pct,1.60
1270.9,5,27,idlemask,wakelat,1,wp_lat,L6ns;288:99;512:1
1280.0,5,28,idlemask,wakelat,1,rps,1010.00
1280.9,5,28,idlemask,wakelat,1,wp_stacked_pct,1.50
1280.9,5,28,idlemask,wakelat,1,wp_lat,L6ns;288:99;512:1
1290.0,5,29,noscan,wakelat,1,rps,808.00
1290.9,5,29,noscan,wakelat,1,wp_stacked_pct,31.00
1290.9,5,29,noscan,wakelat,1,wp_lat,L6ns;288:80;512:20
1300.0,5,30,stock,wakelat,1,rps,980.00
1300.9,5,30,stock,wakelat,1,wp_stacked_pct,2.00
1300.9,5,30,stock,wakelat,1,wp_lat,L6ns;288:99;512:1
CSV
# drift.csv: rr:-p1 level 2, the first stock block of every round 10%
# above the second (so the A/A row itself is significant), "new" -4.6%.
cat >"$TMPD/drift.csv" <<'CSV'
timestamp,rep,block,policy,workload,level,metric,value
1.0,1,1,stock,rr:-p1,2,tps,111.1
1.0,1,2,new,rr:-p1,2,tps,102.0
1.0,1,3,new,rr:-p1,2,tps,100.0
1.0,1,4,stock,rr:-p1,2,tps,101.0
1.0,2,5,stock,rr:-p1,2,tps,112.2
1.0,2,6,new,rr:-p1,2,tps,103.0
1.0,2,7,new,rr:-p1,2,tps,101.0
1.0,2,8,stock,rr:-p1,2,tps,102.0
1.0,3,9,stock,rr:-p1,2,tps,113.3
1.0,3,10,new,rr:-p1,2,tps,104.0
1.0,3,11,new,rr:-p1,2,tps,102.0
1.0,3,12,stock,rr:-p1,2,tps,103.0
1.0,4,13,stock,rr:-p1,2,tps,114.4
1.0,4,14,new,rr:-p1,2,tps,105.0
1.0,4,15,new,rr:-p1,2,tps,103.0
1.0,4,16,stock,rr:-p1,2,tps,104.0
1.0,5,17,stock,rr:-p1,2,tps,115.5
1.0,5,18,new,rr:-p1,2,tps,106.0
1.0,5,19,new,rr:-p1,2,tps,104.0
1.0,5,20,stock,rr:-p1,2,tps,105.0
CSV

# same OUT EXPECTED: identical text, else the diff.
same() { diff -u "$2" "$1"; }

# ---- mmtests compare style -------------------------------------------------
"$S" -m "$M" -b stock -F mmtests "$TMPD/three.csv" >"$TMPD/mm3" 2>"$TMPD/mm3.err"
rc=$?
check "mmtests: exit 0, nothing on stderr" eval '[ $rc = 0 ] && [ ! -s "$TMPD/mm3.err" ]'
# has LINE...: every line is in the output, exactly.
has() {
	local f=$1 l
	shift
	for l in "$@"; do
		grep -qxF -- "$l" "$f" || { echo "missing: '$l'"; cat "$f"; return 1; }
	done
}
check "mmtests: section and header: policy names over their columns, baseline first" \
	has "$TMPD/mm3" "wakelat" \
	"                                           stock                noscan              idlemask"
check "mmtests: Hmean row: baseline (0.00%), noscan *-18.80%* significant, idlemask (1.50%) not" \
	has "$TMPD/mm3" \
	"Hmean     rps-1                989.94 (   0.00%)     803.84 * -18.80%*    1004.77 (   1.50%)"
check "mmtests: A/A row: the control's gain in the baseline column, unmarked" \
	has "$TMPD/mm3" "A/A       rps-1                     - (  -0.40%)"
check "mmtests: percentages: Amean, gain negative when worse (lower is better)" \
	has "$TMPD/mm3" \
	"Amean     wp_stacked_pct-1     2.1100 (   0.00%)      31.50 *-1392.89%*     1.5500 *  26.54%*" \
	"A/A       wp_stacked_pct-1          - (  -2.97%)"
check "mmtests: wp_lat histogram merged per policy: p50 equal, p99 128x worse for noscan" \
	has "$TMPD/mm3" \
	"Merged    wp_lat_p50_us-1      8.3195 (   0.00%)     8.3195 (   0.00%)     8.3195 (   0.00%)" \
	"Merged    wp_lat_p99_us-1      8.3195 (   0.00%)    1064.96 *-12700.76%*     8.3195 (   0.00%)" \
	"Merged    wp_lat_p999_us-1    1064.96 (   0.00%)    1064.96 (   0.00%)    1064.96 (   0.00%)"
check "mmtests: one line per row plus an A/A line each (12) and 2 header lines" \
	eval '[ "$(wc -l <"$TMPD/mm3")" = 14 ]'
check "mmtests: no trailing blanks" eval '! grep -q " $" "$TMPD/mm3"'

"$S" -m "$M" --format mmtests "$TMPD/drift.csv" >"$TMPD/mmd"
cat >"$TMPD/mmd.want" <<'T'
rr:-p1
                                stock                   new
Hmean     tps-2     107.88 (   0.00%)     102.97 *  -4.55%*
A/A       tps-2          - *  10.00%*
T
check "mmtests: a drifting baseline: the A/A row is marked (*  10.00%*), exact table" \
	same "$TMPD/mmd" "$TMPD/mmd.want"
"$S" -m "$M" -F mmtests -p 6 "$TMPD/drift.csv" >"$TMPD/mmd6"
check "mmtests: with fewer pairs than -p, no * anywhere (parentheses)" \
	has "$TMPD/mmd6" "Hmean     tps-2     107.88 (   0.00%)     102.97 (  -4.55%)" \
	"A/A       tps-2          - (  10.00%)"

# ---- LKP (kernel test robot) style ----------------------------------------
"$S" -m "$M" -b stock -F lkp "$TMPD/three.csv" >"$TMPD/lkp3"
check "lkp: header: level, policies, %stddev %change %stddev, the tick marks" \
	has "$TMPD/lkp3" \
	"=========================================================================================" \
	"level:" "  1" \
	"stock            noscan                      idlemask" \
	"---------------- --------------------------- ---------------------------" \
	"         %stddev     %change         %stddev     %change         %stddev" \
	"             \\          |                \\          |                \\"
check "lkp: value ± stddev (shown from 2%), raw %change, * after a significant one" \
	has "$TMPD/lkp3" \
	"    989.94          -18.8%*     803.84 ±  2%     +1.5%        1005 ±  2%  wakelat.rps"
check "lkp: A/A row: the control's change in the first %change column" \
	has "$TMPD/lkp3" "                     -0.4%                    wakelat.rps (A/A)"
check "lkp: percentages change in points, as LKP prints its % metrics" \
	has "$TMPD/lkp3" \
	"      2.11 ±  4%     +29.4*      31.50 ±  2%      -0.6*       1.55 ±  3%  wakelat.wp_stacked_pct"
check "lkp: histogram rows: p99 +12700.8% for noscan, significant" \
	has "$TMPD/lkp3" \
	"      8.32       +12700.8%*       1065           +0.0%        8.32        wakelat.wp_lat_p99_us"
"$S" -m "$M" -F lkp "$TMPD/drift.csv" >"$TMPD/lkpd"
cat >"$TMPD/lkpd.want" <<'T'
=========================================================================================
level:
  2

stock            new
---------------- ---------------------------
         %stddev     %change         %stddev
             \          |                \
    107.88 ±  5%     -4.6%*     102.97 ±  2%  rr:-p1.tps
                    +10.0%*                   rr:-p1.tps (A/A)
T
check "lkp: a drifting baseline: exact table, A/A marked" same "$TMPD/lkpd" "$TMPD/lkpd.want"

# ---- ours unchanged, errors ---------------------------------------------------
"$S" -m "$M" -b stock "$TMPD/three.csv" >"$TMPD/ours3"
"$S" -m "$M" -b stock -F ours "$TMPD/three.csv" >"$TMPD/ours3b"
check "ours is the default; the module's rows are extra rows of the same table" \
	eval 'cmp "$TMPD/ours3" "$TMPD/ours3b" && grep -qE "^wakelat +1 +wp_stacked_pct +lower +Amean +noscan +10 +31\.5 .*\] \*$" "$TMPD/ours3" && grep -qE "^wakelat +1 +wp_lat_p99_us +lower +Merged +noscan +10 +1064\.96 .* 128\.008 .*\*$" "$TMPD/ours3" && grep -qE "^wakelat +1 +wp_stacked_pct +lower +- +A/A " "$TMPD/ours3"'
check "JSON rows are named after the histogram metric (wp_lat_p99_us)" \
	eval '"$S" -m "$M" -b stock -j - "$TMPD/three.csv" | jq -e "[.rows[] | select(.metric == \"wp_lat_p99_us\")] | length == 4"'
"$S" -m "$M" -F csv "$TMPD/drift.csv" >/dev/null 2>"$TMPD/badf"
# shellcheck disable=SC2034 # read by the eval'd check below
rc=$?
check "an unknown format: exit 2 with a message" \
	eval '[ $rc = 2 ] && grep -q "ours, mmtests or lkp" "$TMPD/badf"'

t_done
