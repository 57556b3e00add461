#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-scripts/cgroup without a kernel: usage errors (exit 2), the plan,
# the refusals (no cgroup v2, no module, a module without per-cgroup
# policies, no wakeplacectl: one line, exit 2, nothing created), a whole
# run against a fake module, a fake wakeplacectl and a fake cgroup tree
# (every process started inside its cgroup, the switch calls of S, P and
# C, the machine-wide policy restored, the cgroups removed, exact values
# and ratios in cgroup.tsv and the tables), the table code on a canned
# wpstats table, bin/spin briefly, and vm's acceptance of cgroup.  TAP.
# shellcheck disable=SC2034 # rc ...: read by the eval'd checks
set -u
. "$(dirname "$(readlink -f "$0")")/../../bench-scripts/test-lib.sh"

CG=$BENCH/cgroup
F=$TMPD/sysfs W=$TMPD/workloads R=$TMPD/cg
mkdir -p "$F" "$W" "$R"
echo "[idlemask]" >"$F/policy"
echo "stock idlecore idlemask" >"$F/available_policies"
: >"$F/cgroups"
export WP_SYSFS=$F WP_CGROOT=$R FAKE_LOG=$TMPD/ctl.log FAKE_STATE=$TMPD/state
export FAKE_IN=$TMPD/inside FAKE_SPUN=$TMPD/spun FAKE_WLN=$TMPD/wln

# The fake wakeplacectl records its calls and keeps the configuration in
# FAKE_STATE: the machine-wide policy, or lat-P while P is assigned.
cat >"$TMPD/ctl" <<'X'
#!/bin/bash
echo "$*" >>"$FAKE_LOG"
case "$*" in
"policy set "*" --cgroup "*) echo "lat-$3" >"$FAKE_STATE" ;;
"policy unset --cgroup "*) grep -q '^lat-' "$FAKE_STATE" 2>/dev/null || exit 1
	tr -d '[]' <"$WP_SYSFS/policy" >"$FAKE_STATE" ;;
"policy set "*) echo "$3" >"$FAKE_STATE"; echo "[$3]" >"$WP_SYSFS/policy" ;;
esac
exit 0
X
# The fake workload (named wakelat: the metrics table has its rows): checks
# that it runs in the latency cgroup (its pid the last written there) and
# that no earlier block's batch is still running,
# stamps its start for the batch of its block and waits for it, then 3
# samples at start + 0, 1, 2: rps 1000 x f, one histogram of 100 wakeups
# in bucket b (f, b: stock 1, 288; idlecore 1.1, 256; lat-idlecore 1.2,
# 224).
cat >"$W/wakelat" <<'X'
#!/bin/bash
[ "$(tail -n 1 "$WP_CG_LAT/cgroup.procs")" = $$ ] && echo "wl $$ $*" >>"$FAKE_IN"
n=$(( $(wc -l <"$FAKE_WLN" 2>/dev/null || echo 0) + 1 )); echo "$n" >>"$FAKE_WLN"
# an earlier block's batch still alive: it was not stopped at its end
for p in $(awk '$1 == "spin" { print $2 }' "$FAKE_IN" | head -n -1); do
	kill -0 "$p" 2>/dev/null && echo "$n $p" >>"$FAKE_IN.overlap"
done
now=${EPOCHREALTIME/,/.}
echo "$now" >"$FAKE_WLN.$n"
for i in $(seq 50); do [ "$(wc -l <"$FAKE_SPUN")" -ge "$n" ] && break; sleep 0.1; done
c=$(cat "$FAKE_STATE")
case $c in stock) f=1 b=288 ;; idlecore) f=1.1 b=256 ;; *) f=1.2 b=224 ;; esac
for i in 0 1 2; do
	awk -v t="$now" -v i="$i" -v f="$f" 'BEGIN { printf "%.3f wakelat rps %.1f\n", t + i, 1000 * f }'
	echo "$now wakelat hist L6ns;$b:100"
done
X
# The fake batch: in the batch cgroup, one sample of 0 long before the
# workload's start (outside its span: dropped, else S's Hmean would be
# 0), then, once its block's workload stamped its start, 3 samples at
# start + 0, 1, 2 of -n THREADS x 100 x g mops (g: stock 1, idlecore
# 0.8, lat-idlecore 0.95); then it waits to be killed.
cat >"$TMPD/fakespin" <<'X'
#!/bin/bash
while getopts "n:t:L:" o; do case $o in n) n=$OPTARG ;; *) ;; esac; done
[ "$(tail -n 1 "$WP_CG_BATCH/cgroup.procs")" = $$ ] && echo "spin $$ -n $n" >>"$FAKE_IN"
k=$(( $(wc -l <"$FAKE_SPUN") + 1 ))
c=$(cat "$FAKE_STATE")
case $c in stock) g=1 ;; idlecore) g=0.8 ;; *) g=0.95 ;; esac
awk -v t="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.3f spin mops 0\n", t - 100 }'
for i in $(seq 50); do [ -s "$FAKE_WLN.$k" ] && break; sleep 0.1; done
now=$(cat "$FAKE_WLN.$k")
for i in 0 1 2; do
	awk -v t="$now" -v i="$i" -v g="$g" -v n="$n" 'BEGIN { printf "%.3f spin mops %.3f\n", t + i, 100 * g * n }'
done
echo x >>"$FAKE_SPUN"
exec sleep 60
X
chmod +x "$TMPD/ctl" "$W/wakelat" "$TMPD/fakespin"
: >"$FAKE_SPUN"
echo idlemask >"$FAKE_STATE"
C=("$CG" --ctl "$TMPD/ctl" --workload-dir "$W" --batch-prog "$TMPD/fakespin"
   -w wakelat -b 1.5 --settle 0 --warmup 0 -d 3 -s 11)

# ---- usage ----------------------------------------------------------------------
for a in "-r x" "-r 0" "-p stock" "-p" "--bogus" "-l abc" "-b -1" "--lat-cgroup ../x" \
	 "--lat-cgroup a --batch-cgroup a" "-w nosuch" "-d 1s"; do
	# shellcheck disable=SC2086 # the words of $a are the arguments
	"${C[@]}" $a -o "$TMPD/u" >"$TMPD/u.out" 2>&1
	rc=$?
	check "usage: cgroup $a exits 2 and runs nothing" \
		eval '[ $rc = 2 ] && [ ! -e "$TMPD/u" ] && [ ! -s "$FAKE_LOG" ]'
done
"$CG" -h >"$TMPD/h.out" 2>&1
rc=$?
check "usage: -h exits 2 and names the three configurations" \
	eval '[ $rc = 2 ] && grep -q "S = stock, P = P machine-wide, C = lat-P" "$TMPD/h.out"'

# ---- the plan ---------------------------------------------------------------------
"${C[@]}" -p idlecore -r 5 -n >"$TMPD/plan" 2>&1
rc=$?
check "plan: exit 0, 30 blocks, each round a permutation of stock idlecore lat-idlecore and its mirror" \
	eval '[ $rc = 0 ] && [ "$(grep -c "^[0-9]" "$TMPD/plan")" = 30 ] &&
	      awk "NR > 1 { p[\$2] = p[\$2] \" \" \$5 } END {
		for (r = 1; r <= 5; r++) { n = split(p[r], a, \" \"); if (n != 6) exit 1
			for (i = 1; i <= 3; i++) if (a[i] != a[7 - i]) exit 1
			delete k; for (i = 1; i <= 3; i++) k[a[i]] = 1
			if (!(\"stock\" in k) || !(\"idlecore\" in k) || !(\"lat-idlecore\" in k)) exit 1 } }" "$TMPD/plan"'

# ---- refusals -----------------------------------------------------------------------
refuse() {	# refuse NAME PATTERN ENV... -- ARGS...: one line, exit 2, nothing made
	local name=$1 pat=$2 envs=() rc
	shift 2
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	: >"$FAKE_LOG"
	env "${envs[@]}" "${C[@]}" "$@" -r 1 -o "$TMPD/ref-$name" >/dev/null 2>"$TMPD/ref-$name.err"
	rc=$?
	check "refuses $name: exit 2, one line ($pat), no cgroup, no switch" \
		eval '[ $rc = 2 ] && [ "$(wc -l <"$TMPD/ref-$name.err")" = 1 ] && grep -q "$pat" "$TMPD/ref-$name.err" &&
		      [ -z "$(ls "$R")" ] && [ ! -s "$FAKE_LOG" ]'
}
refuse v1 "no cgroup v2 mounted" WP_CGROOT="$TMPD/none" --
refuse no-module "is the module loaded" WP_SYSFS="$TMPD/none" --
mkdir -p "$TMPD/old"
cp "$F/policy" "$F/available_policies" "$TMPD/old/"
refuse old-module "no per-cgroup policies" WP_SYSFS="$TMPD/old" --
refuse no-ctl "wakeplacectl not found" -- --ctl "$TMPD/none/wakeplacectl"
refuse no-policy "not in .*available_policies" -- -p nosuch
mkdir -p "$R/wp-lat" && echo 1 >"$R/wp-lat/cgroup.procs"
: >"$FAKE_LOG"
"${C[@]}" -r 1 -o "$TMPD/busy" >/dev/null 2>"$TMPD/busy.err"
rc=$?
check "refuses a latency cgroup that already has processes (exit 2), and leaves it alone" \
	eval '[ $rc = 2 ] && grep -q "has processes" "$TMPD/busy.err" && [ -d "$R/wp-lat" ] && [ ! -s "$FAKE_LOG" ]'
rm -rf "${R:?}/wp-lat"

# ---- a run -----------------------------------------------------------------------------
: >"$FAKE_LOG"; : >"$FAKE_IN"
O=$TMPD/run
"${C[@]}" -p idlecore -r 5 -o "$O" >"$TMPD/run.out" 2>"$TMPD/run.err"
rc=$?
ncpu=$(getconf _NPROCESSORS_ONLN)
nspin=$(awk -v n="$ncpu" 'BEGIN { v = int(1.5 * n + 0.5); print (v < 1 ? 1 : v) }')
check "run: exit 0, prints table.txt" \
	eval '[ $rc = 0 ] && cmp "$TMPD/run.out" "$O/table.txt" || { cat "$TMPD/run.err"; exit 1; }'
check "run: 30 workloads each started inside $R/wp-lat, 30 batches ($nspin spinners) inside $R/wp-batch" \
	eval '[ "$(grep -c "^wl .* -t 3 -l 1$" "$FAKE_IN")" = 30 ] && [ "$(grep -c "^spin .* -n $nspin$" "$FAKE_IN")" = 30 ]'
lat=$R/wp-lat
check "run: C blocks set stock machine-wide, then idlecore --cgroup $lat; S and P blocks unset it first" \
	eval '[ "$(grep -c -x "policy set idlecore --cgroup $lat" "$FAKE_LOG")" = 10 ] &&
	      awk -v lat="$lat" "
		\$0 == \"policy set idlecore --cgroup \" lat && prev != \"policy set stock\" { bad = 1 }
		\$0 == \"policy set idlecore\" && prev != \"policy unset --cgroup \" lat { bad = 1 }
		{ prev = \$0 } END { exit bad }" "$FAKE_LOG" &&
	      [ "$(grep -c -x "policy unset --cgroup $lat" "$FAKE_LOG")" -ge 20 ]'
check "run: at the end no assignment is left and the machine-wide policy found at the start (idlemask) is back" \
	eval '[ "$(cat "$FAKE_STATE")" = idlemask ] && [ "$(tail -n 1 "$FAKE_LOG")" = "policy set idlemask" ] &&
	      grep -qx "\[idlemask\]" "$F/policy"'
check "run: the cgroups are removed, no batch is left running" \
	eval '[ -z "$(ls "$R")" ] && ! pgrep -f "$TMPD/fakespin" >/dev/null'
check "run: every block's batch was stopped when its workload ended" \
	eval '[ ! -e "$FAKE_IN.overlap" ] || { cat "$FAKE_IN.overlap"; exit 1; }'
row() { awk -F'\t' -v c="$1" -v m="$2" '$1 == c && $3 == m { $1 = $1; print }' OFS=' ' "$O/cgroup.tsv"; }
check "run: cgroup.tsv: S rps 1000 (10 blocks), P 1100 x1.1, C 1200 x1.2 [1.2, 1.2] significant" \
	eval '[ "$(row stock rps)" = "stock S rps higher 10 1000 1.000 - - - 0" ] &&
	      [ "$(row idlecore rps | cut -d" " -f1-8)" = "idlecore P rps higher 10 1100 1.100 1.100" ] &&
	      [ "$(row lat-idlecore rps)" = "lat-idlecore C rps higher 10 1200 1.200 1.200 1.200 1.200 1" ]'
check "run: cgroup.tsv: batch_mops S $((100 * nspin)), P x0.8, C x0.95, the A/A row x1.000" \
	eval 't_cmp "$(row stock batch_mops | cut -d" " -f6)" eq $((100 * nspin)) 0.01 &&
	      [ "$(row idlecore batch_mops | cut -d" " -f7,8)" = "0.800 0.800" ] &&
	      [ "$(row lat-idlecore batch_mops | cut -d" " -f7,8)" = "0.950 0.950" ] &&
	      [ "$(row A/A batch_mops | cut -d" " -f2,8)" = "A/A 1.000" ]'
check "run: latency p50 from the merged histograms: S bucket 288, P 256, C 224 (lower is better: ratios < 1)" \
	eval '[ "$(row stock lat_p50_us | cut -d" " -f6)" = 8.3195 ] && [ "$(row idlecore lat_p50_us | cut -d" " -f6)" = 4.1595 ] &&
	      [ "$(row lat-idlecore lat_p50_us | cut -d" " -f6)" = 2.0795 ]'
check "run: table.txt: a header with the setting, rows S A/A P C, columns rps lat_p50_us lat_p99_us batch_mops (no p90, p99.9)" \
	eval 'head -n 1 "$O/table.txt" | grep -q "^cgroup: wakelat at level 1 in /wp-lat, $nspin spinners in /wp-batch; P = idlecore; 5 rounds" &&
	      grep -q "config  *what  *rps  *lat_p50_us  *lat_p99_us  *batch_mops *$" "$O/table.txt" &&
	      ! grep -q "p90\|p999" "$O/table.txt" &&
	      [ "$(awk "/^(S|A\/A|P|C) / { printf \"%s \", \$1 }" "$O/table.txt")" = "S A/A P C " ] &&
	      grep -q "^C  *lat-idlecore .* 1200 x1.200 \[1.200, 1.200\]\*" "$O/table.txt"'
check "run: table.md: the same rows as a markdown table" \
	eval '[ "$(sed -n 1p "$O/table.md")" = "| | config | what | rps | lat_p50_us | lat_p99_us | batch_mops |" ] &&
	      grep -q "^| P | idlecore | idlecore machine-wide | 1100 x1.100 \[1.100, 1.100\]\* |" "$O/table.md" && [ "$(wc -l <"$O/table.md")" = 6 ]'
check "run: the batch's sample from before the workload's start is not in results.csv (no 0)" \
	eval '! grep -q ",batch_mops,0\$" "$O/ab/results.csv"'
check "run: cgroup.json: configurations, cgroups, spinners, ab's exit; ab's results.csv has batch_mops rows" \
	eval 'jq -e ".tool == \"wakeplace-cgroup\" and .configurations.C == \"lat-idlecore\" and .lat_cgroup == \"/wp-lat\" and
		.spinners == $nspin and .reps == 5 and .ab_exit == 0 and .initial_policy == \"idlemask\"" "$O/cgroup.json" >/dev/null &&
	      [ "$(grep -c ",batch_mops," "$O/ab/results.csv")" = 90 ]'
cp "$O/table.txt" "$TMPD/table.before"
"$CG" --table "$O" >"$TMPD/retable.out" 2>&1
rc=$?
check "--table DIR: remakes the same table from the run's files (exit 0)" \
	eval '[ $rc = 0 ] && cmp "$TMPD/table.before" "$O/table.txt" && cmp "$TMPD/retable.out" "$O/table.txt"'

# ---- a failing workload, an interrupt ----------------------------------------------
: >"$FAKE_SPUN"; : >"$FAKE_WLN"; rm -f "$FAKE_WLN".*
cat >"$W/failwl" <<'X'
#!/bin/bash
exit 1
X
chmod +x "$W/failwl"
"$CG" --ctl "$TMPD/ctl" --workload-dir "$W" --batch-prog "$TMPD/fakespin" -w failwl \
	--settle 0 --warmup 0 -d 1 -r 1 -o "$TMPD/fail" >/dev/null 2>"$TMPD/fail.err"
rc=$?
check "a failing workload: exit 1 (blocks failed), cgroups removed, idlemask restored" \
	eval '[ $rc = 1 ] && [ -z "$(ls "$R")" ] && [ "$(cat "$FAKE_STATE")" = idlemask ]'
cat >"$W/slowwl" <<'X'
#!/bin/bash
exec sleep 30
X
chmod +x "$W/slowwl"
"$CG" --ctl "$TMPD/ctl" --workload-dir "$W" --batch-prog "$TMPD/fakespin" -w slowwl -p idlecore \
	--settle 0 --warmup 0 -d 1 -r 1 -s 1 -o "$TMPD/int" >/dev/null 2>&1 &
pid=$!
for i in $(seq 50); do [ -d "$R/wp-lat" ] && [ -s "$R/wp-lat/cgroup.procs" ] && break; sleep 0.1; done
sleep 0.5
kill -TERM "$pid"
wait "$pid"
rc=$?
check "TERM: exit 143, the cgroups removed, no assignment, idlemask back" \
	eval '[ $rc = 143 ] && [ -z "$(ls "$R")" ] && [ "$(cat "$FAKE_STATE")" = idlemask ] &&
	      [ "$(tail -n 1 "$FAKE_LOG")" = "policy set idlemask" ]'

# ---- the table on a canned wpstats table -------------------------------------------
D=$TMPD/canned
mkdir -p "$D/ab"
printf 'policy=noscan\nworkload=wakelat:-r20\nheader=cgroup: canned\n' >"$D/cgroup.env"
cat >"$D/ab/table.txt" <<'X'
workload     level metric      better mean   policy      n        value     cv%   ratio   gmean  95% CI
wakelat:-r20 1     rps         higher Hmean  stock      10      1000.00    1.00   1.000       -  -
wakelat:-r20 1     rps         higher Hmean  noscan     10       900.00    2.00   0.900   0.901  [0.850, 0.950] *
wakelat:-r20 1     rps         higher Hmean  lat-noscan 10       990.00    2.00   0.990   0.991  [0.950, 1.030]
wakelat:-r20 1     rps         higher -      A/A        10            -       -       -   1.002  [0.980, 1.020]
wakelat:-r20 1     lat_p99_us  lower  Merged stock      10       100.00       -   1.000       -  -
wakelat:-r20 1     lat_p99_us  lower  Merged noscan     10        80.00       -   0.800   0.810  [0.700, 0.900] *
wakelat:-r20 1     lat_p99_us  lower  Merged lat-noscan 10        90.00       -   0.900   0.905  [0.800, 1.010]
wakelat:-r20 1     lat_p99_us  lower  -      A/A        10            -       -       -   0.990  [0.900, 1.100]
wakelat:-r20 1     lat_p999_us lower  Merged stock      10       500.00       -   1.000       -  -
wakelat:-r20 1     batch_mops  higher Hmean  stock      10       400.00    1.00   1.000       -  -
wakelat:-r20 1     batch_mops  higher Hmean  noscan     10       380.00    1.00   0.950   0.949  [0.940, 0.960] *
wakelat:-r20 1     batch_mops  higher Hmean  lat-noscan 10       400.00    1.00   1.000   1.001  [0.990, 1.010]
wakelat:-r20 1     batch_mops  higher -      A/A        10            -       -       -   0.999  [0.990, 1.010]
other        1     rps         higher Hmean  stock      10         1.00    1.00   1.000       -  -
X
"$CG" --table "$D" >/dev/null 2>&1
rc=$?
check "canned: cgroup.tsv: 13 rows of wakelat:-r20 (not other), roles S P C A/A, intervals and marks" \
	eval '[ $rc = 0 ] && [ "$(wc -l <"$D/cgroup.tsv")" = 14 ] &&
	      grep -qxP "noscan\tP\trps\thigher\t10\t900.00\t0.900\t0.901\t0.850\t0.950\t1" "$D/cgroup.tsv" &&
	      grep -qxP "lat-noscan\tC\tlat_p99_us\tlower\t10\t90.00\t0.900\t0.905\t0.800\t1.010\t0" "$D/cgroup.tsv" &&
	      grep -qxP "A/A\tA/A\tbatch_mops\thigher\t10\t-\t-\t0.999\t0.990\t1.010\t0" "$D/cgroup.tsv"'
check "canned: table.md: exact rows; a missing metric is -" \
	eval 'diff - "$D/table.md" <<EOF
| | config | what | rps | lat_p99_us | batch_mops |
| --- | --- | --- | --- | --- | --- |
| S | stock | machine-wide stock | 1000.00 | 100.00 | 400.00 |
| A/A | A/A | S against S | x1.002 [0.980, 1.020] | x0.990 [0.900, 1.100] | x0.999 [0.990, 1.010] |
| P | noscan | noscan machine-wide | 900.00 x0.901 [0.850, 0.950]* | 80.00 x0.810 [0.700, 0.900]* | 380.00 x0.949 [0.940, 0.960]* |
| C | lat-noscan | noscan for the latency cgroup | 990.00 x0.991 [0.950, 1.030] | 90.00 x0.905 [0.800, 1.010] | 400.00 x1.001 [0.990, 1.010] |
EOF'
check "canned: table.txt starts with the run's header line" \
	eval '[ "$(head -n 1 "$D/table.txt")" = "cgroup: canned" ]'
"$CG" --table "$TMPD/none" >/dev/null 2>"$TMPD/nt.err"
rc=$?
check "--table on a directory without a run: exit 2, one line" \
	eval '[ $rc = 2 ] && [ "$(wc -l <"$TMPD/nt.err")" = 1 ]'

# ---- bin/spin ------------------------------------------------------------------------
"$BENCH/bin/spin" -n 1 -t 1.5 -L batch >"$TMPD/spin.out" 2>&1
rc=$?
check "spin -n 1 -t 1.5: exit 0, one line '<time> batch mops <rate>' with a positive rate" \
	eval '[ $rc = 0 ] && [ "$(wc -l <"$TMPD/spin.out")" = 1 ] &&
	      awk "\$1 ~ /^[0-9]+\\.[0-9]+\$/ && \$2 == \"batch\" && \$3 == \"mops\" && \$4 > 0 { ok = 1 } END { exit !ok }" "$TMPD/spin.out"'
for a in "-n 0" "-t 1 extra" "-x"; do
	# shellcheck disable=SC2086
	"$BENCH/bin/spin" $a >/dev/null 2>&1
	rc=$?
	check "spin $a: exit 2" eval '[ $rc = 2 ]'
done
check "spin.c builds with -std=gnu11 -Wall -Wextra -Werror -O2" \
	gcc -std=gnu11 -Wall -Wextra -Werror -O2 -pthread -o "$TMPD/spin" "$BENCH/src/spin.c" -lm

# ---- vm -----------------------------------------------------------------------------
"$BENCH/vm" -- cgroupx >/dev/null 2>"$TMPD/vm.err"
rc=$?
check "vm: an unknown command exits 2 and names cgroup among the commands" \
	eval '[ $rc = 2 ] && grep -q "scale or cgroup" "$TMPD/vm.err"'

t_done
