#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-scripts/scale's plumbing against a fake module (a sysfs tree in the
# spec's format whose counters a fake workload writes per policy and
# level): the plan, one reset and one snapshot per block, the sums and
# ratios of the table and of scale.tsv/scale.json (exact values), the
# baseline's A/A halves, latency percentiles equal to wpstats' merged
# ones, the plot, exit codes (a failed block, no module, usage),
# and bench-scripts/vm with a fake vng: the big topologies, a checkout
# under /tmp shared into the guest.  TAP.
# shellcheck disable=SC2034 # rc, rc1 ...: read by the eval'd checks
set -u
. "$(dirname "$(readlink -f "$0")")/../../bench-scripts/test-lib.sh"
. "$(dirname "$(readlink -f "$0")")/../names.sh"
OUTCOMES=$(src_outcomes) || { echo "Bail out! no outcomes in module/outcomes.h"; exit 1; }
export OUTCOMES

W=$TMPD/workloads F=$TMPD/sysfs
mkdir -p "$W" "$F/latency_hist" "$F/stats"
export FAKE_STATE=$TMPD/state RESETS=$TMPD/resets WP_SYSFS=$F FAKE_N=$TMPD/n
: >"$F/stats/reset"
for p in stock mirror fast; do
	printf 'picks 0\ntracked 0\n' >"$F/stats/$p"
	echo "all L6ns" >"$F/latency_hist/$p"
done

# The fake workload plays the module: after checking that its policy was
# reset, it writes the counters the block ends with.  Per block: 1000
# tracked; stacked 100 (stock, mirror) or 20 (fast); missed idle 50
# (mirror), 5 (fast), and for stock 40 in its first block of a round and
# 60 in its second (the A/A halves), all doubled at level 1.5; picks 0
# (stock), 500 (others); scanned 8 and remote lines 16 per pick (mirror),
# 1 and 0 (fast).  Latency: stock and mirror 98 wakeups in bucket 288
# (8192-8447 ns) and 2 in 512 (1048576-1081343 ns), fast 100 in bucket 100.
# FAKE_FAIL=policy@level makes that policy's blocks at that level fail.
cat >"$W/fakewl" <<'X'
#!/bin/bash
l=1
while getopts "t:l:c:" o; do case $o in l) l=$OPTARG ;; *) ;; esac; done
p=$(cat "$FAKE_STATE")
echo "$p $(cat "$WP_SYSFS/stats/reset")" >>"$RESETS"
m=1; [ "$l" = 1.5 ] && m=2
case $p in
stock)	n=$(( $(cat "$FAKE_N" 2>/dev/null || echo 0) + 1 )); echo "$n" >"$FAKE_N"
	st=100 mi=$(( (n % 2 ? 40 : 60) * m )) pk=0 sc=0 rl=0 h="L6ns;288:98;512:2" ;;
mirror)	st=100 mi=$((50 * m)) pk=500 sc=4000 rl=8000 h="L6ns;288:98;512:2" ;;
fast)	st=20 mi=$((5 * m)) pk=500 sc=500 rl=0 h="L6ns;100:100" ;;
esac
printf 'picks %s\nscanned %s\nremote_lines %s\ntracked 1000\nstacked %s\ndouble_picks %s\nmoved 0\nmigrated 0\nmigrated_llc 0\nmissed_idle %s\nunplaced 7\nscan_hist 0 1\n' \
	"$pk" "$sc" "$rl" "$st" "$((st / 10))" "$mi" >"$WP_SYSFS/stats/$p"
{ echo "all $h"; for r in $OUTCOMES; do echo "$r L6ns"; done; echo "unplaced L6ns"; } >"$WP_SYSFS/latency_hist/$p"
[ "${FAKE_FAIL:-}" = "$p@$l" ] && exit 1
now=${EPOCHREALTIME/,/.}
for i in 0 1; do echo "$now fakewl ops 100"; done
X
cat >"$TMPD/sw" <<'X'
#!/bin/bash
echo "$1" >"$FAKE_STATE"
X
chmod +x "$W/fakewl" "$TMPD/sw"
M=$TMPD/metrics
{ grep '^\*' "$BENCH/metrics"; echo 'fakewl ops higher throughput ops/s'; } >"$M"
echo stock >"$FAKE_STATE"
SC=("$BENCH/scale" --workload-dir "$W" --metrics "$M" --switcher "$TMPD/sw"
    --settle 0 --warmup 0 -d 1 -w fakewl -p "stock mirror fast" -l "0.5 1.5" -s 3)

# ---- a clean run --------------------------------------------------------------
: >"$RESETS"
"${SC[@]}" -r 5 -o "$TMPD/s1" >"$TMPD/s1.out" 2>"$TMPD/s1.err"
rc=$?
O=$TMPD/s1
check "scale: exit 0, prints table.txt" \
	eval '[ $rc = 0 ] && cmp "$TMPD/s1.out" "$O/table.txt" || { cat "$TMPD/s1.err"; exit 1; }'
check "scale: 60 blocks (3 policies x 2 levels x 5 rounds x 2), each one reset of its own policy" \
	eval '[ "$(wc -l <"$RESETS")" = 60 ] && awk "\$1 != \$2 { bad = 1 } END { exit bad }" "$RESETS"'
check "scale: every block's snapshot is in ab/raw and in blocks.tsv (pos 1 and 2 per round, level, policy)" \
	eval '[ "$(ls -d "$O"/ab/raw/block-*.wp | wc -l)" = 60 ] &&
	      awk -F"\t" "NR > 1 { n[\$2 \" \" \$3 \" \" \$4 \" \" \$5]++; if (\$6 != 1000) bad = 1 } END {
		if (length(n) != 60) bad = 1; exit bad }" "$O/blocks.tsv"'
# row ROW: the table's line of level $1, policy $2.
row() { awk -v l="$1" -v p="$2" '$1 == l && $2 == p' "$O/table.txt"; }
check "scale: stock at 0.5: 10 blocks, 10000 tracked, stacked 10%, missed 5% (4..6), double 1%, no picks" \
	eval '[ "$(row 0.5 stock | tr -s " ")" = "0.5 stock 10 10000 10.00 5.00 4.00..6.00 1.00 - - 8.3 1065.0" ]'
check "scale: mirror at 1.5: missed 10%, 8 CPUs scanned and 16 lines per pick" \
	eval '[ "$(row 1.5 mirror | tr -s " ")" = "1.5 mirror 10 10000 10.00 10.00 10.00..10.00 1.00 8.00 16.00 8.3 1065.0" ]'
check "scale: fast at 0.5: stacked 2%, missed 0.5%, 1 CPU and 0 lines per pick, p50 = p99 = 0.1 us" \
	eval '[ "$(row 0.5 fast | tr -s " ")" = "0.5 fast 10 10000 2.00 0.50 0.50..0.50 0.20 1.00 0.00 0.1 0.1" ]'
check "scale: A/A rows: stock#1 missed 4% (8% at 1.5), stock#2 6% (12%), 5 blocks each" \
	eval '[ "$(row 0.5 "stock#1" | awk "{ print \$3, \$6 }")" = "5 4.00" ] && [ "$(row 0.5 "stock#2" | awk "{ print \$3, \$6 }")" = "5 6.00" ] &&
	      [ "$(row 1.5 "stock#1" | awk "{ print \$6 }")" = 8.00 ] && [ "$(row 1.5 "stock#2" | awk "{ print \$6 }")" = 12.00 ]'
check "scale: latency p50/p99 are wpstats' merged wp_lat percentiles of the same blocks" \
	eval 'for l in 0.5 1.5; do for p in stock mirror fast; do
		for q in 50 99; do
			a=$(awk -v l=$l -v p=$p -v q=wp_lat_p${q}_us "\$1 == \"fakewl\" && \$2 == l && \$3 == q && \$6 == p { printf \"%.1f\", \$8 }" "$O/ab/table.txt")
			b=$(awk -F"\t" -v l=$l -v p=$p -v c=$([ $q = 50 ] && echo 21 || echo 22) "\$1 == l && \$2 == p { print \$c }" "$O/scale.tsv")
			[ -n "$a" ] && [ "$a" = "$b" ] || { echo "$l $p p$q: wpstats $a scale $b"; exit 1; }
		done; done; done'
check "scale: scale.tsv sums: mirror 0.5 tracked 10000 stacked 1000 missed 500 picks 5000 scanned 40000 lines 80000 unplaced 70" \
	eval '[ "$(awk -F"\t" "\$1 == 0.5 && \$2 == \"mirror\" { print \$6, \$7, \$8, \$10, \$11, \$12, \$13 }" "$O/scale.tsv")" = "10000 1000 500 5000 40000 80000 70" ]'
check "scale: scale.json: rows for 3 policies + 2 A/A halves per level, numbers and nulls" \
	jq -e '.tool == "wakeplace-scale" and (.rows | length) == 10 and .blocks_without_figures == 0 and .failed_blocks == 0 and
		([.rows[] | select(.level == "1.5" and .policy == "fast")][0] | .missed_pct == 1 and .lines_per_pick == 0) and
		([.rows[] | select(.policy == "stock")][0] | .scanned_per_pick == null and .role == "baseline")' "$O/scale.json"
check "scale: the plot's data (missed %, lines per pick per level and policy) and the SVG" \
	eval 'grep -qx "1.5 mirror 10.00 16.00" "$O/plot.dat" && grep -qx "0.5 stock 5.00 NaN" "$O/plot.dat" &&
	      { ! command -v gnuplot >/dev/null || grep -q "<svg" "$O/scale.svg"; }'

# ---- what goes wrong ----------------------------------------------------------
FAKE_FAIL=fast@1.5 "${SC[@]}" -r 1 -o "$TMPD/s2" >"$TMPD/s2.out" 2>"$TMPD/s2.err"
rc=$?
check "scale: a failed block: exit 1, the table still printed, the block counted as failed" \
	eval '[ $rc = 1 ] && grep -q "^0.5 " "$TMPD/s2.out" && jq -e ".failed_blocks == 2" "$TMPD/s2/scale.json" >/dev/null &&
	      [ "$(awk -v OFS=" " "\$1 == 1.5 && \$2 == \"fast\" { print \$3, \$4 }" "$TMPD/s2/table.txt")" = "0 0" ]'
WP_SYSFS=$TMPD/none "${SC[@]}" -r 1 -o "$TMPD/s3" >"$TMPD/s3.out" 2>"$TMPD/s3.err"
rc=$?
check "scale: no module statistics: exit 2, one line, nothing run" \
	eval '[ $rc = 2 ] && [ "$(wc -l <"$TMPD/s3.err")" = 1 ] && grep -q "is the module loaded" "$TMPD/s3.err" && [ ! -e "$TMPD/s3/ab" ]'
"${SC[@]}" -r x >/dev/null 2>&1
rc1=$?
"${SC[@]}" -w "a b" >/dev/null 2>&1
rc2=$?
"${SC[@]}" --bogus >/dev/null 2>&1
rc3=$?
check "scale: usage errors exit 2 (bad rounds, two workloads, unknown option)" \
	eval '[ $rc1 = 2 ] && [ $rc2 = 2 ] && [ $rc3 = 2 ]'
"${SC[@]}" -r 5 -n >"$TMPD/plan" 2>&1
rc=$?
check "scale -n: the plan, 60 blocks, ABBA per round and level" \
	eval '[ $rc = 0 ] && [ "$(grep -c "^[0-9]" "$TMPD/plan")" = 60 ] &&
	      awk "/^[0-9]/ { k = \$2 \" \" \$4; s[k] = s[k] \" \" \$5 } END { for (k in s) { n = split(s[k], a, \" \"); if (n != 6 || a[1] != a[6] || a[2] != a[5] || a[3] != a[4]) exit 1 } }" "$TMPD/plan"'

# ---- vm: the big topologies, with a fake vng -----------------------------------
rel=$(find /boot -maxdepth 1 -name 'vmlinuz-*' -printf '%f\n' 2>/dev/null | sed 's/^vmlinuz-//' | head -n 1)
if [ -z "$rel" ]; then
	t_skip "vm -t llc16/smt72: CPUs, memory and QEMU options from tests/topos.sh" "no /boot/vmlinuz-*"
else
	mkdir -p "$TMPD/bin"
	cat >"$TMPD/bin/vng" <<'X'
#!/bin/bash
printf '%s\n' "$@" >"$VNG_ARGS"
while [ $# -gt 0 ]; do [ "$1" = --rwdir ] && out=${2#*=}; shift; done
mkdir -p "$out/run" && echo "fake table" >"$out/run/table.txt" && echo 0 >"$out/exit-status"
X
	chmod +x "$TMPD/bin/vng"
	: >"$TMPD/ko"
	for t in llc16:16:2G:"-smp 16,sockets=1,cores=16" smt72:72:4G:"-smp 72,sockets=1,cores=36,threads=2"; do
		IFS=: read -r topo n mem smp <<<"$t"
		PATH=$TMPD/bin:$PATH VNG_ARGS=$TMPD/vng-$topo "$BENCH/vm" -k "$rel" -m "$TMPD/ko" -t "$topo" \
			-o "$TMPD/vm-$topo" -- scale -l 0.9 >"$TMPD/vm-$topo.out" 2>&1
		rc=$?
		check "vm -t $topo: exit 0, $n CPUs, $mem, $smp, the scale command inside, its table printed, host.txt" \
			eval '[ $rc = 0 ] && grep -qx -- "--cpus" "$TMPD/vng-$topo" && grep -qx -- "$n" "$TMPD/vng-$topo" &&
			      grep -qx -- "$mem" "$TMPD/vng-$topo" && grep -q -- "$smp" "$TMPD/vng-$topo" &&
			      grep -q "vm --guest .* scale -l 0.9" "$TMPD/vng-$topo" && grep -qx "fake table" "$TMPD/vm-$topo.out" &&
			      grep -qx "topology: $topo" "$TMPD/vm-$topo/host.txt" && grep -q "^command: bench-scripts/vm .*-t $topo .*-- scale -l 0.9" "$TMPD/vm-$topo/host.txt" &&
			      grep -q "^load: " "$TMPD/vm-$topo/host.txt" && grep -q "^end: " "$TMPD/vm-$topo/host.txt"'
	done
	# vng gives a guest its own /tmp: a checkout there is shared back at
	# its path (read-only), one elsewhere is seen through the guest's root.
	co=$(cd "$TMPD" && pwd -P)/co
	mkdir -p "$co/tests" && cp -r "$BENCH" "$co/bench-scripts" && cp "$BENCH/../tests/topos.sh" "$co/tests/"
	PATH=$TMPD/bin:$PATH VNG_ARGS=$TMPD/vng-co "$co/bench-scripts/vm" -k "$rel" -m "$TMPD/ko" -t llc2 \
		-o "$TMPD/vm-co" -- scale -l 0.9 >/dev/null 2>&1
	rc=$?
	case $(readlink -f "$BENCH")/ in /tmp/*|/var/tmp/*) here=1 ;; *) here=0 ;; esac
	check "vm from a checkout in $TMPD: exit 0, that checkout shared read-only at its path; from $BENCH: shared only if under /tmp" \
		eval '[ $rc = 0 ] && [ "$(grep -c -x -- --rodir "$TMPD/vng-co")" = 1 ] && grep -qx -- "$co=$co" "$TMPD/vng-co" &&
		      [ "$(grep -c -x -- --rodir "$TMPD/vng-llc16")" = $here ]'
	PATH=$TMPD/bin:$PATH VNG_ARGS=$TMPD/vng-x "$BENCH/vm" -k "$rel" -m "$TMPD/ko" -t llc64 -- scale >/dev/null 2>"$TMPD/vmx.err"
	rc=$?
	check "vm -t llc64 (unknown): exit 2, the known topologies named" \
		eval '[ $rc = 2 ] && grep -q "unknown topology .llc64.*llc16" "$TMPD/vmx.err" && [ ! -e "$TMPD/vng-x" ]'
fi

t_done
