# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# TAP output for every shell test of the tree: the host tests
# (tests/host/*.sh through ctl/test-lib.sh, bench-scripts/test-lib.sh or
# directly) and the in-guest runner (tests/runner).  The same shape as the
# kernel's kselftest shell helpers: an optional header and plan, numbered
# result lines, SKIP directives, "# " diagnostics, a bail-out and a closing
# call that prints the plan if none was given and sets the exit status.
# tests/check reads what this prints (parse_tap): keep the line formats.
# Sourced, not run; it defines functions and the TAP_* counters only.
#
#   tap_header               "TAP version 13"
#   tap_plan N               "1..N" up front (tap_done then checks the count)
#   tap_pass DESC            "ok N - DESC"
#   tap_fail DESC [DIAG...]  "not ok N - DESC", then each DIAG as diagnostics
#   tap_skip DESC REASON     "ok N - DESC # SKIP REASON"
#   tap_diag [MSG...]        each line of MSG (or of stdin) as "# line"
#   tap_result DESC CMD...   pass iff CMD succeeds (run in this shell)
#   tap_result_out DESC CMD...  the same, CMD in a subshell; its output
#                            (stdout and stderr) is the diagnostic of a failure
#   tap_skip_all REASON      "1..0 # SKIP REASON" (nothing will run)
#   tap_bail MSG             "Bail out! MSG", exit 1
#   tap_totals               "# passed P, failed F, skipped S"
#   tap_done                 the plan if not given, a failure count, exit 0
#                            only if nothing failed (and the plan was met)
#   tap_short_names          defines ok, not_ok, skip and check (=
#                            tap_result_out) for tests written with them
#
# TAP_FILE, when set, receives a copy of every line (the runner's
# results.tap); TAP_DIAG_LINES, when set, bounds the diagnostic lines that
# tap_result_out shows of a failing command's output.

TAP_N=0		# result lines so far (the number of the last one)
TAP_PASS=0
TAP_FAIL=0
TAP_SKIP=0
TAP_PLANNED=	# N of tap_plan, empty when the plan comes last

# tap_print LINE...: the only writer: to stdout and to TAP_FILE if set (a
# guest's results reach the host through that file as tests finish).
tap_print() {
	printf '%s\n' "$@"
	if [ -n "${TAP_FILE:-}" ]; then
		printf '%s\n' "$@" >>"$TAP_FILE"
	fi
	return 0
}

tap_header() {
	tap_print "TAP version 13"
}

tap_plan() {
	TAP_PLANNED=$1
	tap_print "1..$1"
}

tap_skip_all() {
	TAP_PLANNED=0
	tap_print "1..0 # SKIP $*"
}

tap_pass() {
	TAP_N=$((TAP_N + 1))
	TAP_PASS=$((TAP_PASS + 1))
	tap_print "ok $TAP_N - $1"
}

tap_fail() {
	TAP_N=$((TAP_N + 1))
	TAP_FAIL=$((TAP_FAIL + 1))
	tap_print "not ok $TAP_N - $1"
	shift
	[ $# -gt 0 ] && tap_diag "$@"
	return 0
}

tap_skip() {
	TAP_N=$((TAP_N + 1))
	TAP_SKIP=$((TAP_SKIP + 1))
	tap_print "ok $TAP_N - $1 # SKIP ${2:-no reason given}"
}

# tap_diag [MSG...]: every line of every MSG, or of stdin without one.  A
# multi-line MSG (a command's output) stays readable as a block.
tap_diag() {
	local l
	if [ $# -eq 0 ]; then
		while IFS= read -r l || [ -n "$l" ]; do
			tap_print "# $l"
		done
		return 0
	fi
	for l in "$@"; do
		printf '%s\n' "$l" | tap_diag
	done
}

# The locals of the two below are prefixed: CMD (often an eval'd string)
# sees them, and must not find its own variables shadowed.
tap_result() {
	local _tap_desc=$1
	shift
	if "$@"; then tap_pass "$_tap_desc"; else tap_fail "$_tap_desc"; fi
}

tap_result_out() {
	local _tap_desc=$1 _tap_out
	shift
	if _tap_out=$("$@" 2>&1); then
		tap_pass "$_tap_desc"
		return 0
	fi
	tap_fail "$_tap_desc"
	[ -n "$_tap_out" ] || return 0
	if [ -n "${TAP_DIAG_LINES:-}" ]; then
		printf '%s\n' "$_tap_out" | head -n "$TAP_DIAG_LINES" | tap_diag
	else
		printf '%s\n' "$_tap_out" | tap_diag
	fi
}

tap_bail() {
	tap_print "Bail out! $*"
	exit 1
}

tap_totals() {
	tap_print "# passed $TAP_PASS, failed $TAP_FAIL, skipped $TAP_SKIP"
}

tap_done() {
	if [ -z "$TAP_PLANNED" ]; then
		tap_print "1..$TAP_N"
	elif [ "$TAP_PLANNED" != "$TAP_N" ]; then
		tap_print "# planned $TAP_PLANNED tests, ran $TAP_N"
		exit 1
	fi
	[ "$TAP_FAIL" = 0 ] && exit 0
	tap_print "# $TAP_FAIL of $TAP_N failed"
	exit 1
}

# tap_short_names: the short names the host tests are written with, on
# request only (a sourcer may have functions of those names).
tap_short_names() {
	ok() { tap_pass "$1"; }
	not_ok() { tap_fail "$@"; }	# DESC [DIAG...]
	skip() { tap_skip "$1" "$2"; }
	check() { tap_result_out "$@"; }	# DESC CMD...: output shown on failure
}
