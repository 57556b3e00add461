# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helper for the in-guest cases tests/cases/6NN-bench-*.sh (sourced after
# tests/lib.sh).  The guest sees the host's tree read-only: programs must be
# built on the host (make -C bench-scripts); temporary files go to /tmp.

WP_BENCH=${WP_BENCH:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
export WP_TMP=${WP_TMP:-/tmp}
BENCH_OUT=${WP_OUT:-/tmp}

# bench_need_bin PROG...: skip unless the programs were built on the host.
bench_need_bin() {
	local p
	for p in "$@"; do
		[ -x "$WP_BENCH/bin/$p" ] ||
			skip "$WP_BENCH/bin/$p not built (run make -C bench-scripts on the host)"
	done
}

# bench_run WORKLOAD METRIC [ARGS...]: run workloads/WORKLOAD with ARGS;
# assert exit 0, every line "<time> WORKLOAD <metric> <value>", at least one
# METRIC line, every METRIC value a non-negative number and one positive (an
# interval may see nothing done on an overloaded TCG guest: oltp's first).
bench_run() {
	local w=$1 m=$2 out rc n bad
	shift 2
	[ -x "$WP_BENCH/workloads/$w" ] || fail "no workload $WP_BENCH/workloads/$w"
	out=$BENCH_OUT/$w.out
	log "running: workloads/$w $*"
	"$WP_BENCH/workloads/$w" "$@" >"$out" 2>"$out.err"
	rc=$?
	if [ "$rc" != 0 ]; then
		sed 's/^/#   stderr: /' "$out.err" | tail -n 20 >&2
		fail "workloads/$w exited $rc"
	fi
	sed 's/^/#   /' "$out" | cut -c1-120 | head -n 20 >&2
	bad=$(awk -v w="$w" '
		$0 !~ /^[0-9]+\.[0-9]+ [A-Za-z0-9_.-]+ [A-Za-z0-9_.]+ [^ ,]+$/ || $2 != w { print NR ": " $0 }' "$out" | head -n 3)
	[ -z "$bad" ] || fail "malformed output line(s): $bad"
	pass "all $(wc -l <"$out") lines are '<time> $w <metric> <value>'"
	n=$(awk -v m="$m" '$3 == m' "$out" | wc -l)
	assert_ge "$n" 1 "number of $m lines"
	bad=$(awk -v m="$m" '$3 == m && $4 !~ /^[0-9]+(\.[0-9]+)?$/ { print $4 }' "$out" | head -n 3)
	[ -z "$bad" ] || fail "$m values not non-negative numbers: $bad"
	awk -v m="$m" '$3 == m && $4 > 0 { ok = 1 } END { exit !ok }' "$out" ||
		fail "no positive $m value"
	pass "$m values: $(awk -v m="$m" '$3 == m { printf "%s ", $4 }' "$out" | cut -c1-100)"
}
