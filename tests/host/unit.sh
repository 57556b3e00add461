#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lane: tree (tests/check runs it beside no other tree-writing test)
#
# The host unit tests (tests/unit): the module's pure functions
# (module/llbucket.h, fairmath.h, parse.h, coremask.h) and wpstats'
# statistics, built and run here.  Their TAP is merged into one stream,
# each test named after its program.  TAP.
set -u
REPO=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
OUT=$REPO/build/unit
# shellcheck source=tests/tap.sh
. "$REPO/tests/tap.sh"

say() { # ok|not-ok DESCRIPTION
	if [ "$1" = ok ]; then tap_pass "$2"; else tap_fail "$2"; fi
}

if ! log=$(make -s -C "$REPO/tests/unit" OUT="$OUT" 2>&1); then
	say not-ok "build tests/unit"
	tap_diag "$log"
	tap_done
fi
say ok "build tests/unit"
if [ -n "$log" ]; then	# warnings: a unit test must build clean
	say not-ok "tests/unit builds without warnings"
	tap_diag "$log"
fi

for t in llbucket fairmath parse coremask wpstats; do
	out=$("$OUT/$t" 2>&1)
	st=$?
	before=$TAP_N
	while IFS= read -r line; do
		if [[ $line =~ ^(not\ )?ok\ [0-9]+\ -\ (.*)$ ]]; then
			say "${BASH_REMATCH[1]:+not-}ok" "$t: ${BASH_REMATCH[2]}"
		elif [[ $line == \#* ]]; then
			tap_print "$line"
		fi
	done <<<"$out"
	# A crash or an exit without its plan is a failure of its own.
	if [ "$st" -gt 1 ] || ! grep -q '^1\.\.[0-9]' <<<"$out" ||
	   [ "$TAP_N" = "$before" ]; then
		say not-ok "$t ran to the end (exit $st)"
	fi
done
tap_done
