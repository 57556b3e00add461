# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers for the host tests of bench-scripts (tests/host/bench-*.sh), on
# the TAP library tests/tap.sh.  Sourced; sets BENCH, TMPD (removed at
# exit) and builds the programs.

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/tap.sh
. "$BENCH/../tests/tap.sh"
TMPD=$(mktemp -d /tmp/wp-bench-test.XXXXXX)
trap 'rm -rf "$TMPD"' EXIT
# A failing check shows this many lines of its command's output.
TAP_DIAG_LINES=30

t_skip() { tap_skip "$1" "$2"; }	# t_skip DESC REASON

# check DESC CMD...: one test point; CMD's output is shown on failure.
check() { tap_result_out "$@"; }

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

t_done() { tap_done; }

# Build once; a failed build is one failing test and the end.
if ! t_build=$(make -C "$BENCH" -s 2>&1); then
	tap_fail "make -C bench-scripts" "$t_build"
	tap_done
fi
