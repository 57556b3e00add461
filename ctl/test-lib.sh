# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the wakeplacectl host tests (tests/host/ctl*.sh): a TAP
# reporter and a fake /sys/kernel/wakeplace tree that follows
# docs/sysfs-kernel-wakeplace.  Plain files do not switch anything, so the
# tests check what the tool wrote.  Sourced, not run.

CTL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/tap.sh
. "$CTL_TOP/tests/tap.sh"
: "${WP_CTL:=$CTL_TOP/ctl/wakeplacectl}"
# Rebuilt when a source changed: its own, lib/ or the module's outcome list.
if [ ! -x "$WP_CTL" ] || [ -n "$(find "$CTL_TOP/ctl" "$CTL_TOP/lib" "$CTL_TOP/module/outcomes.h" -name '*.[ch]' -newer "$WP_CTL" 2>/dev/null)" ]; then
	make -s -C "$CTL_TOP/ctl" wakeplacectl >&2 || { tap_skip_all "cannot build wakeplacectl"; exit 1; }
fi

# wait_for CMD...: poll until CMD succeeds; gives up after 60 s (a hang
# guard, not a speed requirement).
wait_for() {
	local i
	for ((i = 0; i < 1200; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

# put FILE: replace FILE atomically with stdin (a reader never sees half).
put() {
	cat >"$1.new" && mv "$1.new" "$1"
}

# The names these tests use, on tests/tap.sh.
ok() { tap_pass "$1"; }		# ok DESC
not_ok() { tap_fail "$@"; }	# not_ok DESC [DIAG...]
skip() { tap_skip "$1" "$2"; }	# skip DESC REASON

check() { # check DESC CMD...: pass iff CMD succeeds
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d" "failed: $*" "stdout: $(head -c 2000 "$OUT" 2>/dev/null)" "stderr: $(head -c 2000 "$ERR" 2>/dev/null)"; fi
}

done_testing() { tap_done; }

TMPD=$(mktemp -d /tmp/wpctl-test.XXXXXX)
# No sched_ext unless a test makes one (the host's would change status).
export WAKEPLACE_SCX_DIR=$TMPD/no-sched_ext
chmod 755 "$TMPD"
trap 'rm -rf "$TMPD"' EXIT
OUT=$TMPD/out
ERR=$TMPD/err
RC=0

# run ARGS...: run the tool, stdout in $OUT, stderr in $ERR, status in $RC.
run() {
	RC=0
	# shellcheck disable=SC2034 # read by the tests' check strings
	"$WP_CTL" "$@" >"$OUT" 2>"$ERR" || RC=$?
}

# The policies and outcomes of the fake tree: the module's, from its
# sources (module/policies/list.h, module/outcomes.h).
. "$CTL_TOP/tests/names.sh"
FAKE_POLICIES=$(src_policies) && FAKE_OUTCOMES=$(src_outcomes) ||
	{ echo "Bail out! cannot read the policies or outcomes from module/"; exit 1; }

# fake_tunables POLICY: the tunables file of a freshly loaded module, i.e.
# the WP_TUNABLE(name, min, max, default) tables of module/policies/*.c in
# their order, each at its default (docs/sysfs-kernel-wakeplace).
fake_tunables() {
	src_tunables "$1"
}

# stats_file PICKS [SHADOW_COMPARED SHADOW_AGREED]: a stats/<p> body whose
# derived values are known: outcomes target 40 %, prev 30 %, recent 10 %,
# scan 15 %, fallback 4 %, handback 1 %, local 2 %, any other (mask) 0
# (local is distinct so that a column mix-up shows; they need not add
# up; no subshell per row: the interval tests write within 2 s), scanned
# 2.5 and remote lines 3 per pick, cross-LLC 5 %, not-prev 60 %, cost p50
# in bucket 8 (362 ns estimate), p99 in bucket 12 (5793 ns = 5.8us);
# tracked = PICKS and, of those, stacked 25 %, double_picks 3 %, moved
# 12.5 %, migrated 60 %, migrated_llc 4.5 %, missed_idle 10 % (all
# distinct); unplaced PICKS / 4 (20 % of tracked + unplaced).  Per outcome,
# against lat_hist_file's rows (target 600, prev 300, scan 100 at 1000
# picks): stacked_target 15 % of PICKS (25 % of the row), stacked_prev 6 %
# (20 %), stacked_scan 4 % (40 %); missed_target 6 % (10 %), missed_prev
# 1.5 % (5 %), missed_scan 2.5 % (25 %); double_target 2 % (3.3 %),
# double_scan 1 % (10 %); the others 0; they sum to stacked, missed_idle
# and double_picks.  With FAKE_OLD=1 the body of a module without
# latency tracking (no tracked...); with FAKE_PRE_ORACLE=1 one with
# tracked... but without missed_idle, unplaced and the per-outcome keys;
# with FAKE_PRE_DOUBLE=1 one without double_<outcome>.
# With FAKE_STALE=1 also the split of stale_hint (stale_pending,
# stale_running, stale_preempted) and a test build's audited and
# false_busy, at 0.
stats_file() {
	local p=$1 sc=${2:-0} sa=${3:-0}
	local hist="" i o v
	echo "picks $p"
	for o in $FAKE_OUTCOMES; do
		case $o in
		target)   v=$((p * 40 / 100)) ;;
		prev)     v=$((p * 30 / 100)) ;;
		recent)   v=$((p * 10 / 100)) ;;
		scan)     v=$((p * 15 / 100)) ;;
		fallback) v=$((p * 4 / 100)) ;;
		handback) v=$((p / 100)) ;;
		local)    v=$((p * 2 / 100)) ;;
		*)        v=0 ;;
		esac
		echo "$o $v"
	done
	cat <<EOF
claim_lost 0
stale_hint 0
scanned $((p * 5 / 2))
remote_lines $((p * 3))
cross_llc $((p * 5 / 100))
not_prev $((p * 60 / 100))
cost_samples $((p / 10))
cost_ns $((p * 50))
shadow_compared $sc
shadow_agreed $sa
EOF
	[ -n "${FAKE_OLD:-}" ] || cat <<EOF
tracked $p
stacked $((p / 4))
double_picks $((p * 3 / 100))
moved $((p / 8))
migrated $((p * 60 / 100))
migrated_llc $((p * 45 / 1000))
EOF
	if [ -z "${FAKE_OLD:-}" ] && [ -z "${FAKE_PRE_ORACLE:-}" ]; then
		echo "missed_idle $((p / 10))"
		echo "unplaced $((p / 4))"
		for o in $FAKE_OUTCOMES; do
			case $o in
			target) v=$((p * 15 / 100)) ;;
			prev)   v=$((p * 6 / 100)) ;;
			scan)   v=$((p * 4 / 100)) ;;
			*)      v=0 ;;
			esac
			echo "stacked_$o $v"
		done
		for o in $FAKE_OUTCOMES; do
			case $o in
			target) v=$((p * 6 / 100)) ;;
			prev)   v=$((p * 15 / 1000)) ;;
			scan)   v=$((p * 25 / 1000)) ;;
			*)      v=0 ;;
			esac
			echo "missed_$o $v"
		done
		[ -n "${FAKE_PRE_DOUBLE:-}" ] || for o in $FAKE_OUTCOMES; do
			case $o in
			target) v=$((p * 2 / 100)) ;;
			scan)   v=$((p / 100)) ;;
			*)      v=0 ;;
			esac
			echo "double_$o $v"
		done
	fi
	if [ -n "${FAKE_STALE:-}" ]; then
		printf 'stale_pending 0\nstale_running 0\nstale_preempted 0\n'
		printf 'audited 0\nfalse_busy 0\n'
	fi
	hist=""
	for i in $(seq 0 31); do
		case $i in
		0) hist="$hist $((p / 2))" ;;
		3) hist="$hist $((p / 2))" ;;
		*) hist="$hist 0" ;;
		esac
	done
	echo "scan_hist$hist"
	hist=""
	for i in $(seq 0 31); do
		case $i in
		8) hist="$hist $((p * 60 / 1000))" ;;
		9) hist="$hist $((p * 38 / 1000))" ;;
		12) hist="$hist $((p * 2 / 1000))" ;;
		*) hist="$hist 0" ;;
		esac
	done
	echo "cost_hist$hist"
}

# shellcheck disable=SC2120 # the tests pass the optional counts
counters_file() { # counters_file CALLS REDIRECTED
	local c=${1:-5000} r=${2:-1000}
	cat <<EOF
calls $c
wakeups $((c * 8 / 10))
redirected $r
handed_back 7
corrected 0
slow 0
reverted 0
switches 3
rebuilds 1
stale 0
EOF
	[ -n "${FAKE_OLD:-}" ] || echo "lat_dropped 12"
	[ -z "${FAKE_STALE:-}" ] ||
		printf 'idle_pending 5\nremark_held 6\naudited 700\nfalse_busy 8\n'
}

# The rows of latency/<p> and latency_hist/<p>, in their order.
LAT_ROWS="all $FAKE_OUTCOMES unplaced"

# lat_hist_file [N]: a latency_hist/<p> body (bench-scripts/src/llhist.h
# text form) with 1000 samples in "all", plus N in bucket 700:
#   bucket  10: 500  [10, 11)              midpoint 10
#   bucket 100: 400  [144, 148)            midpoint 145 (145.5 rounded down)
#   bucket 300:  90  [11264, 11520)        midpoint 11391
#   bucket 600:   9  [7340032, 7471104)    midpoint 7405567
#   bucket 700:   N  [62914560, 63963136)  midpoint 63438847
#   bucket 895:   1  [4227858432, ...)     midpoint 4261412863
# Without N: p50 = 10 (rank 500 is the last of bucket 10), p90 = 145
# (rank 900), p99 = 11391 (rank 990), p99.9 = 7405567 (rank 999).  The
# outcomes split them: target 500@10 100@100, prev 300@100, scan 90@300
# 9@600 1@895, local N@700; the others are empty.  unplaced (not in
# all): 250 in bucket 20 (20 ns).
# shellcheck disable=SC2120 # the tests pass the optional N
lat_hist_file() {
	local n=${1:-0} x="" r
	[ "$n" -gt 0 ] && x=";700:$n"
	echo "all L6ns;10:500;100:400;300:90;600:9$x;895:1"
	for r in $FAKE_OUTCOMES; do
		case $r in
		target) echo "$r L6ns;10:500;100:100" ;;
		prev)   echo "$r L6ns;100:300" ;;
		scan)   echo "$r L6ns;300:90;600:9;895:1" ;;
		local)  echo "$r L6ns$x" ;;
		*)      echo "$r L6ns" ;;
		esac
	done
	echo "unplaced L6ns;20:250"
}

# lat_file: the latency/<p> body that goes with lat_hist_file (no N).
lat_file() {
	local r
	echo "all 1000 10 145 11391 7405567"
	for r in $FAKE_OUTCOMES; do
		case $r in
		target) echo "$r 600 10 145 145 145" ;;
		prev)   echo "$r 300 145 145 145 145" ;;
		scan)   echo "$r 100 11391 11391 7405567 4261412863" ;;
		*)      echo "$r 0 0 0 0 0" ;;
		esac
	done
	echo "unplaced 250 20 20 20 20"
}

# lat_empty: the latency_hist/<p> body of a policy without samples.
lat_empty() {
	local r
	for r in $LAT_ROWS; do
		echo "$r L6ns"
	done
}

# table_rows N: the rows of the Nth table of stdin (tables are separated by
# blank lines; rows follow their POLICY header).
table_rows() {
	awk -v n="$1" 'BEGIN { b = 1 } /^$/ { b++; next } b == n && f; b == n && /^POLICY / { f = 1 }'
}

# make_tree DIR [old]: a loaded-module tree, stock active, mirror with 1000
# picks and the latency of lat_hist_file, noscan with 500 picks and no
# latency samples.  "old": a module older than latency tracking (no
# latency/, latency_hist/, latency_sample, tracked..., lat_dropped).
make_tree() {
	local d=$1 p t FAKE_OLD=
	[ "${2:-}" = old ] && FAKE_OLD=1
	rm -rf "$d"
	mkdir -p "$d/stats" "$d/policies"
	echo 0.1.0 >"$d/version"
	echo "6.1.0-57-amd64 6.1" >"$d/kernel"
	echo "$FAKE_POLICIES" | sed 's/^stock\( \|$\)/[stock]\1/' >"$d/available_policies"
	echo stock >"$d/policy"
	echo off >"$d/shadow"
	echo ok >"$d/state"
	counters_file >"$d/counters"
	echo 64 >"$d/sample_period"
	: >"$d/stats/reset"
	for p in $FAKE_POLICIES; do
		mkdir -p "$d/policies/$p"
		echo "the $p policy" >"$d/policies/$p/description"
		fake_tunables "$p" >"$d/policies/$p/tunables"
		while read -r t v _; do
			[ -n "$t" ] && echo "$v" >"$d/policies/$p/$t"
		done <"$d/policies/$p/tunables"
		stats_file 0 >"$d/stats/$p"
	done
	stats_file 1000 >"$d/stats/mirror"
	stats_file 500 200 150 >"$d/stats/noscan"
	if [ -z "$FAKE_OLD" ]; then
		echo 1 >"$d/latency_sample"
		mkdir -p "$d/latency" "$d/latency_hist"
		for p in $FAKE_POLICIES; do
			lat_empty >"$d/latency_hist/$p"
			lat_empty | sed 's/ L6ns$/ 0 0 0 0 0/' >"$d/latency/$p"
		done
		lat_hist_file >"$d/latency_hist/mirror"
		lat_file >"$d/latency/mirror"
	fi
	chmod -R a+rX "$d"
}

# fake_load TREE PROFILE: a wakeup load for auto's tests, run in the
# background: every 50 ms, 40 wakeups of the policy named in TREE/policy,
# in the latency bucket PROFILE gives it ("POLICY BUCKET" lines, read at
# each step so a test can change it; others 300), added to
# TREE/latency_hist/<policy>.  Builtins only but mv and sleep: it keeps up
# on a busy host.  Ends when TREE is gone.
fake_load() {
	local t=$1 prof=$2 pol p b bucket line k
	declare -A cnt
	while [ -d "$t" ]; do
		if read -r pol <"$t/policy" 2>/dev/null && [ -n "$pol" ]; then
			bucket=300
			while read -r p b; do
				[ "$p" = "$pol" ] && bucket=$b
			done <"$prof"
			cnt["$pol $bucket"]=$((${cnt["$pol $bucket"]:-0} + 40))
			line="all L6ns"
			for k in "${!cnt[@]}"; do
				[ "${k% *}" = "$pol" ] && line="$line;${k#* }:${cnt[$k]}"
			done
			printf '%s\ntarget L6ns\n' "$line" >"$t/latency_hist/$pol.new" &&
				mv -f "$t/latency_hist/$pol.new" "$t/latency_hist/$pol" 2>/dev/null
		fi
		sleep 0.05
	done
}

# tree_sum DIR: a checksum of every file of the tree (names and contents).
tree_sum() {
	(cd "$1" && find . -type f | sort | xargs md5sum | md5sum)
}

# json_ok: $OUT holds exactly one JSON document.
json_ok() {
	[ "$(jq -s 'length' <"$OUT" 2>/dev/null)" = 1 ]
}
