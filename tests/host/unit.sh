#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host unit tests (tests/unit): the module's pure functions
# (module/llbucket.h, fairmath.h, parse.h) and wpstats' statistics, built
# and run here.  Their TAP is merged into one stream, each test named
# after its program.  TAP.
set -u
REPO=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
OUT=$REPO/build/unit
n=0

say() { # ok|not-ok DESCRIPTION
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

if ! log=$(make -s -C "$REPO/tests/unit" OUT="$OUT" 2>&1); then
	say not-ok "build tests/unit"
	printf '%s\n' "$log" | sed 's/^/# /'
	echo "1..$n"
	exit 1
fi
say ok "build tests/unit"
if [ -n "$log" ]; then	# warnings: a unit test must build clean
	say not-ok "tests/unit builds without warnings"
	printf '%s\n' "$log" | sed 's/^/# /'
fi

rc=0
for t in llbucket fairmath parse wpstats; do
	out=$("$OUT/$t" 2>&1)
	st=$?
	before=$n
	while IFS= read -r line; do
		if [[ $line =~ ^(not\ )?ok\ [0-9]+\ -\ (.*)$ ]]; then
			say "${BASH_REMATCH[1]:+not-}ok" "$t: ${BASH_REMATCH[2]}"
		elif [[ $line == \#* ]]; then
			echo "$line"
		fi
	done <<<"$out"
	# A crash or an exit without its plan is a failure of its own.
	if [ "$st" -gt 1 ] || ! grep -q '^1\.\.[0-9]' <<<"$out" ||
	   [ "$n" = "$before" ]; then
		say not-ok "$t ran to the end (exit $st)"
	fi
	[ "$st" = 0 ] || rc=1
done
echo "1..$n"
exit $rc
