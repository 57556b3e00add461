#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lane: tree (tests/check runs it beside no other tree-writing test)
#
# bench-scripts/autophase end to end on a fake sysfs tree: the real
# `wakeplacectl auto` against fixed stock and noscan over two phases of a
# fake workload ("tick") whose level decides which policy is better, both
# in its own samples and in the wakeup latency a background load writes
# into the tree (ctl/test-lib.sh's fake_load).  Auto must follow the
# change; results, regret, shares, decisions and plots are checked, and
# the usage errors.  Every wait is bounded; nothing depends on speed but
# auto's 0.2 s epochs fitting in 8 s phases (after a change auto waits 5
# epochs before it calls it drift, then explores 4).  TAP.
set -u
. "$(dirname "$0")/../../ctl/test-lib.sh"

command -v jq >/dev/null || { tap_skip_all "jq not installed"; exit 0; }
BENCH=$CTL_TOP/bench-scripts
make -s -C "$BENCH" >&2 || { tap_skip_all "cannot build bench-scripts"; exit 1; }

T=$TMPD/sys
W=$TMPD/workloads
PROFILE=$TMPD/profile
make_tree "$T"
mkdir -p "$W"
export WAKEPLACE_SYSFS=$T WP_SYSFS=$T PROFILE T
export WAKEPLACE_AUTO_STATE=$TMPD/run/auto.state
LOADPID=""
trap 'kill "$LOADPID" 2>/dev/null; rm -rf "$TMPD"' EXIT

# tick -t S -l L: a sample every 0.2 s for S s, 120 under the policy that
# is better at this level (noscan at 0.5, stock at 2), else 100; at its
# start it sets the latency profile of its level the same way (bucket 300
# is 11.4us at p99, 350 is 32us).
cat >"$W/tick" <<'EOF'
#!/bin/bash
t=5 l=1
while getopts "t:l:c:" o; do
	case $o in t) t=$OPTARG ;; l) l=$OPTARG ;; *) ;; esac
done
case $l in 0.5) best=noscan other=stock ;; *) best=stock other=noscan ;; esac
printf '%s 300\n%s 350\n' "$best" "$other" >"$PROFILE.new" && mv "$PROFILE.new" "$PROFILE"
end=$(awk -v n="${EPOCHREALTIME/,/.}" -v t="$t" 'BEGIN { printf "%d", (n + t) * 1000 }')
while :; do
	sleep 0.2
	now=${EPOCHREALTIME/,/.}
	[ $((${now%.*} * 1000 + 10#${now#*.} / 1000)) -lt "$end" ] || break
	pol=$(<"$T/policy")
	v=100
	[ "$pol" = "$best" ] && v=120
	echo "$now tick ops $v"
done
EOF
chmod +x "$W/tick"
M=$TMPD/metrics
{ echo "tick ops higher throughput ops"; grep '^\*' "$BENCH/metrics"; } >"$M"
printf 'stock 300\n' >"$PROFILE"
fake_load "$T" "$PROFILE" &
LOADPID=$!

AP=("$BENCH/autophase" --workload-dir "$W" --metrics "$M" -c noscan -s 7
    --warmup 0.5)
R=$TMPD/out

# ---- usage errors: exit 2, nothing run ---------------------------------------------
refused() { # refused ARGS...: exit 2 with a reason, nothing written
	local rc=0
	"${AP[@]}" "$@" -o "$TMPD/bad" >/dev/null 2>"$ERR" || rc=$?
	check "usage: autophase $*: exit 2 with a reason, nothing written" \
		eval '[ '"$rc"' = 2 ] && [ -s "$ERR" ] && [ ! -e "$TMPD/bad/results.csv" ] && [ "$(cat "$T/policy")" = stock ]'
}
refused -P tick@x
refused -P nosuch
refused -P "tick@1 tick@1"
refused -d 1
refused -c stock
refused -c nosuch
rc=0
WP_SYSFS=$TMPD/none WAKEPLACE_SYSFS=$TMPD/none "${AP[@]}" -P tick@1 -o "$TMPD/bad" >/dev/null 2>"$ERR" || rc=$?
check "no module: exit 2, says so" eval '[ $rc = 2 ] && grep -q "not loaded" "$ERR"'

# ---- a run: tick at 0.5 (noscan better) then at 2 (stock better) ---------------------
rc=0
"${AP[@]}" -P "tick@0.5 tick@2" -d 8 -a "--epoch 0.2 --min-samples 1 --explore 2" \
	-o "$R" >"$TMPD/ap.out" 2>"$TMPD/ap.err" || rc=$?
# shellcheck disable=SC2034 # OUT: shown by check on a failure
OUT=$TMPD/ap.out ERR=$TMPD/ap.err
check "a run exits 0" eval '[ $rc = 0 ]'
# autos_gone: both auto runs started (their start events) and have exited.
autos_gone() {
	local p n=0
	for p in $(jq -r 'select(.event == "start") | .pid' "$R"/auto-run*.jsonl); do
		kill -0 "$p" 2>/dev/null && return 1
		n=$((n + 1))
	done
	[ "$n" = 2 ]
}
check "the policy is stock afterwards, auto's processes have exited" \
	eval '[ "$(cat "$T/policy")" = stock ] && [ ! -e "$WAKEPLACE_AUTO_STATE" ] && autos_gone'
check "6 runs (auto, stock, noscan in ABBA), 2 phases each" \
	eval '[ "$(wc -l <"$R/phases.txt")" = 12 ] && [ "$(cut -d" " -f3 "$R/phases.txt" | sort | uniq -c | awk "{print \$1}" | sort -u)" = 4 ]'
check "results.csv: tick samples of every run and phase, none of the warm-up" \
	eval 'for p in auto stock noscan; do for l in 0.5 2; do grep -q ",$p,tick,$l,ops," "$R/results.csv" || exit 1; done; done'
check "results.csv: the fixed runs sample the better policy at 120, the worse at 100" \
	eval 'grep -q ",noscan,tick,0.5,ops,120$" "$R/results.csv" && ! grep -q ",noscan,tick,0.5,ops,100$" "$R/results.csv" && grep -q ",stock,tick,2,ops,120$" "$R/results.csv" && ! grep -q ",noscan,tick,2,ops,120$" "$R/results.csv"'
check "results.csv: the module's latency per phase (wp_lat) for auto and the fixed runs" \
	eval 'grep -q ",auto,tick,2,wp_lat,L6ns;" "$R/results.csv" && grep -q ",noscan,tick,0.5,wp_lat,L6ns;" "$R/results.csv"'
# The fake's stats: stock has nothing tracked, noscan 500 with 10% missed
# idle and 125 unplaced (ctl/test-lib.sh's stats_file); auto ran both.
check "results.csv: wp_missed_pct per phase: noscan and auto 10%, none for stock (nothing tracked)" \
	eval 'grep -q ",noscan,tick,0.5,wp_missed_pct,10.0000$" "$R/results.csv" && grep -q ",auto,tick,2,wp_missed_pct,10.0000$" "$R/results.csv" && ! grep -q ",stock,tick,[0-9.]*,wp_missed_pct," "$R/results.csv"'
check "results.csv: wp_unplaced per phase: stock 0, noscan 125, auto 125 (both policies' files)" \
	eval 'grep -q ",stock,tick,2,wp_unplaced,0$" "$R/results.csv" && grep -q ",noscan,tick,2,wp_unplaced,125$" "$R/results.csv" && grep -q ",auto,tick,0.5,wp_unplaced,125$" "$R/results.csv"'
check "regret.txt: wp_missed_pct (best noscan, regret +0.0) and wp_unplaced (best stock at 0: regret -)" \
	eval 'grep -Eq "^tick +0.5 +wp_missed_pct +noscan +10 +auto +10 +\+0.0 " "$R/regret.txt" && grep -Eq "^tick +2 +wp_unplaced +stock +0 +auto +125 +- " "$R/regret.txt"'
check "table.txt: stock is the baseline, auto compared" \
	eval 'grep -q "baseline stock" "$R/table.txt" && grep -q "^tick .* ops .* auto " "$R/table.txt"'
check "regret.txt: the best fixed policy is noscan at 0.5 and stock at 2" \
	eval 'grep -Eq "^tick +0.5 +ops +noscan " "$R/regret.txt" && grep -Eq "^tick +2 +ops +stock " "$R/regret.txt"'
share() { awk -v l="$1" -v p="$2" '$1 == "tick" && $2 == l && $3 == p { print $4 }' "$R/shares.txt"; }
check "auto's shares: mostly noscan at 0.5, mostly stock at 2" \
	eval '[ "$(share 0.5 noscan)" -gt "$(share 0.5 stock)" ] && [ "$(share 2 stock)" -gt "$(share 2 noscan)" ]'
check "regret.txt lists auto's decisions: noscan chosen, then stock after the change" \
	eval 'grep -A50 "^auto-run" "$R/regret.txt" | grep -q "choose noscan" && grep -A50 "^auto-run" "$R/regret.txt" | sed -n "/choose noscan/,\$p" | grep -q "choose stock"'
check "summary.json: phases, candidates and the kernel" \
	eval 'jq -e ".tool == \"autophase\" and .phases == [\"tick@0.5\", \"tick@2\"] and .candidates == [\"noscan\"]" "$R/summary.json" >/dev/null'
rc=0
"${AP[@]}" --no-plot -P "tick@0.5" -d 3 -o "$R" >/dev/null 2>"$ERR" || rc=$?
check "an output directory with results is refused (exit 2)" eval '[ $rc = 2 ] && grep -q "already holds" "$ERR"'

if command -v gnuplot >/dev/null; then
	check "plots: SVG and PNG of the series with auto's policy strip" \
		eval '[ -s "$R/autophase.svg" ] && [ -s "$R/autophase.png" ] && grep -q "auto on noscan" "$R/autophase.svg"'
else
	skip "plots" "gnuplot not installed"
fi
done_testing
