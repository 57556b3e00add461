# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the host tests of bench-scripts (tests/host/bench-*.sh).
# Sourced; sets BENCH, TMPD (removed at exit) and builds the programs.

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TMPD=$(mktemp -d /tmp/wp-bench-test.XXXXXX)
trap 'rm -rf "$TMPD"' EXIT
T_N=0 T_FAILED=0

t_ok() { T_N=$((T_N + 1)); echo "ok $T_N - $1"; }
t_nok() {
	T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1))
	echo "not ok $T_N - $1"
}
t_skip() { T_N=$((T_N + 1)); echo "ok $T_N - $1 # SKIP $2"; }
t_diag() { sed 's/^/# /'; }

# check DESC CMD...: one test point; CMD's output is shown on failure.
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		t_ok "$desc"
	else
		t_nok "$desc"
		[ -n "$out" ] && printf '%s\n' "$out" | head -n 30 | t_diag
	fi
}

# t_cmp A OP B [tolerance]: numeric comparison with awk (eq: |A-B| <= tol).
t_cmp() {
	awk -v a="$1" -v op="$2" -v b="$3" -v tol="${4:-1e-9}" 'BEGIN {
		if (a == "" || b == "") { print "empty operand"; exit 1 }
		if (op == "eq") ok = (a - b <= tol && b - a <= tol)
		else if (op == "lt") ok = (a + 0 < b + 0)
		else if (op == "le") ok = (a + 0 <= b + 0)
		else if (op == "gt") ok = (a + 0 > b + 0)
		else if (op == "ge") ok = (a + 0 >= b + 0)
		if (!ok) print a, op, b, "(tol " tol ") does not hold"
		exit !ok }'
}

t_done() {
	echo "1..$T_N"
	[ "$T_FAILED" = 0 ]
	exit $?
}

# Build once; a failed build is one failing test and the end.
if ! t_build=$(make -C "$BENCH" -s 2>&1); then
	t_nok "make -C bench-scripts"
	printf '%s\n' "$t_build" | t_diag
	t_done
fi
