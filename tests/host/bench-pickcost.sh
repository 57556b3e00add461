#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-scripts/pickcost's host side with a fake vng: -a with -r runs the
# counts in ABBA order in one guest, and each size ends with the summary
# lines (means over the rounds, percent against the first count); -S on
# fixed lines (exact values); -C's CSV, and with -r the passes paired by
# rep in wpstats' table; the refusals of -r.  TAP.
# shellcheck disable=SC2034 # rc: read by the eval'd checks
set -u
. "$(dirname "$(readlink -f "$0")")/../../bench-scripts/test-lib.sh"

P=$BENCH/pickcost
ROOT=$(cd "$BENCH/.." && pwd)

# ---- -S on fixed lines -------------------------------------------------------
# cpus policy picks cost_mean p50 p99 remote scanned search% probe_picks
# probe_p50 probe_p99 probe_remote probe_scanned idle_hit% assignments
cat >"$TMPD/lines" <<'EOF'
16 idlemask 900 400 512 1024 2.00 3.00 50 800 300 900 1.50 2.50 90 0
16 idlemask 900 420 512 1024 2.00 3.00 50 800 330 900 1.50 2.50 90 64
16 idlemask 900 440 512 1024 2.00 3.00 50 800 350 900 1.50 2.50 90 64
16 idlemask 900 420 512 1024 2.00 3.00 50 800 310 900 1.70 2.50 90 0
16 mirror 900 1000 1024 2048 4.00 8.00 50 800 0 900 3.00 7.00 90 0
16 mirror 900 1100 1024 2048 4.00 8.00 50 800 0 900 3.00 7.00 90 64
EOF
"$P" -S <"$TMPD/lines" >"$TMPD/sum" 2>&1
rc=$?
check "-S: exit 0, one line per size, policy and count, in the order first seen" \
	eval '[ $rc = 0 ] && [ "$(awk "{ print \$3, \$4 }" "$TMPD/sum" | paste -sd,)" = "idlemask 0,idlemask 64,mirror 0,mirror 64" ]'
check "-S: means over the rounds, percent against the first count" \
	grep -qx "summary 16 idlemask 64 2 430 340 1.50 2.50 +4.9 +11.5" "$TMPD/sum"
check "-S: the first count is its own base (+0.0)" \
	grep -qx "summary 16 idlemask 0 2 410 305 1.60 2.50 +0.0 +0.0" "$TMPD/sum"
check "-S: a zero base is '-', not a division by zero" \
	grep -qx "summary 16 mirror 64 1 1100 0 3.00 7.00 +10.0 -" "$TMPD/sum"
"$P" -C <"$TMPD/lines" >"$TMPD/csv" 2>&1
rc=$?
check "-C: exit 0, ab's header, four metrics per pass" \
	eval '[ $rc = 0 ] && [ "$(head -1 "$TMPD/csv")" = timestamp,rep,block,policy,workload,level,metric,value ] && [ "$(wc -l <"$TMPD/csv")" = 25 ]'
# The second pass of idlemask with 0 (line 4) is in rep 1 with the first:
# an ABBA sequence holds two passes of each count.
check "-C: the J-th pass of a count is in rep (J + 1) / 2; level POLICY@CPUS, policy aCOUNT" \
	eval 'grep -qx "4,1,4,a0,pickcost,idlemask@16,probe_p50_ns,310" "$TMPD/csv" && grep -qx "6,1,6,a64,pickcost,mirror@16,cost_mean_ns,1100" "$TMPD/csv" && grep -qx "2,1,2,a64,pickcost,idlemask@16,probe_remote,1.50" "$TMPD/csv"'
printf '4 idlemask 10 1 1 1 0.00 0.00 0\n' | "$P" -S >"$TMPD/sum2" 2>&1
check "-S: lines without the probe and assignments columns are not summed" \
	eval '[ ! -s "$TMPD/sum2" ]'

# ---- refusals ------------------------------------------------------------------
"$P" -k 6.1.0-99-test -a "0 64" -r 0 >"$TMPD/out" 2>&1
rc=$?
check "-r 0: exit 2, says so" eval '[ $rc = 2 ] && grep -q "positive count of rounds" "$TMPD/out"'
"$P" -k 6.1.0-99-test -r x -a 0 >"$TMPD/out" 2>&1
rc=$?
check "-r x: exit 2" eval '[ $rc = 2 ]'
"$P" -k 6.1.0-99-test -r 3 >"$TMPD/out" 2>&1
rc=$?
check "-r without -a: exit 2, says -a" eval '[ $rc = 2 ] && grep -q "give -a" "$TMPD/out"'
"$P" -k 6.1.0-99-test -a "0 1" -m all >"$TMPD/out" 2>&1
rc=$?
check "-m all: exit 2, says wide or stock" eval '[ $rc = 2 ] && grep -q "wide or stock" "$TMPD/out"'

# ---- a run with a fake vng ---------------------------------------------------------
# The fake plays the guest: it records its arguments and prints, per policy
# and count it is given, a result line whose pick costs 400 ns + 1 ns per
# assignment plus 10 ns per earlier line (a host that slows down).
rel=
while read -r k; do
	[ -f "$ROOT/build/$k/wakeplace.ko" ] && { rel=$k; break; }
done < <(sed -e 's/#.*//' /var/lib/wakeplace/kernels 2>/dev/null)
if [ -z "$rel" ] || ! make -s -C "$ROOT/tests/tools" wakeprobe >/dev/null 2>&1; then
	t_skip "pickcost -a -r with a fake vng" "no built module (run after make)"
	t_done
fi
mkdir -p "$TMPD/bin"
cat >"$TMPD/bin/vng" <<'EOF'
#!/bin/bash
printf '%s\n' "$@" >"$FAKE_ARGS"
while [ "$1" != --guest ]; do shift; done
IFS=, read -ra pols <<<"$6"
IFS=, read -ra as <<<"$7"
i=0
for p in "${pols[@]}"; do
	for a in "${as[@]}"; do
		c=$((400 + a + 10 * i))
		echo "16 $p 1000 $c 512 1024 2.00 3.00 50 800 $c 900 1.50 2.50 90 $a"
		i=$((i + 1))
	done
done
echo "guest noise that is no result"
EOF
chmod +x "$TMPD/bin/vng"
FAKE_ARGS=$TMPD/args PATH=$TMPD/bin:$PATH "$P" -k "$rel" -c 16 -p idlemask \
	-a "0 1 64" -r 4 -o "$TMPD/o" >"$TMPD/out" 2>&1
rc=$?
check "fake run: exit 0" eval '[ $rc = 0 ]'
check "fake run: the counts in ABBA order, 4 rounds, one guest" \
	eval '[ "$(tail -2 "$TMPD/args" | head -1)" = "0,1,64,64,1,0,0,1,64,64,1,0" ]'
check "fake run: the policy stays machine-wide with a table by default (-m wide)" \
	eval '[ "$(tail -1 "$TMPD/args")" = wide ] && grep -q "machine-wide with a table: wide" "$TMPD/o/results.txt"'
check "fake run: 12 result lines and 3 summary lines in results.txt" \
	eval '[ "$(grep -c "^16 idlemask" "$TMPD/o/results.txt")" = 12 ] && [ "$(grep -c "^summary 16 idlemask" "$TMPD/o/results.txt")" = 3 ]'
# 0 at lines 0,5,6,11: cost 400 + 10 * (0+5+6+11)/4 = 455; 64 at 2,3,8,9:
# 464 + 55 = 519; 1 at 1,4,7,10: 401 + 55 = 456.  ABBA evens the drift
# out: 64 against 0 is its own +64 ns, not the drift's.
check "fake run: ABBA puts the drift on every count alike (1: +0.2%, 64: +14.1%)" \
	eval 'grep -qx "summary 16 idlemask 1 4 456 456 1.50 2.50 +0.2 +0.2" "$TMPD/o/results.txt" && grep -qx "summary 16 idlemask 64 4 519 519 1.50 2.50 +14.1 +14.1" "$TMPD/o/results.txt"'
# Paired by rep: rep 1 (lines 0-5) a64/a0 = (484 + 494) / (400 + 450),
# rep 2 (lines 6-11) (544 + 554) / (460 + 510); their geometric mean
# 1.141; 2 pairs are too few for a '*'.
check "fake run: results.csv and wpstats' table.txt, a64 paired to a0 by rep (gmean 1.141)" \
	eval '[ "$(wc -l <"$TMPD/o/results.csv")" = 49 ] && grep -Eq "^pickcost +idlemask@16 +probe_p50_ns .* a64 .* 1\.141 +\[[0-9.]+, [0-9.]+\]$" "$TMPD/o/table.txt" && grep -Eq "^pickcost +idlemask@16 +probe_p50_ns .* A/A " "$TMPD/o/table.txt"'
check "fake run: the table is printed too" \
	grep -q "gmean = geometric mean" "$TMPD/out"
check "fake run: the header line names the columns, assignments last" \
	eval 'grep -q "^cpus policy .* idle_hit_pct assignments$" "$TMPD/o/results.txt"'
t_done
