#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The policy tables of README.md, docs/perf.md and docs/sysfs-kernel-wakeplace
# are generated from module/policies/*.c, the outcome lists of that ABI
# document and the man page from module/outcomes.h, by scripts/gen-docs
# (`make docs`).
# On copies of the tree: the committed tables are what the generator writes
# (else: stale, run make docs); a second run changes nothing; a changed
# description, default, list.h order or outcome makes the committed docs stale (the
# check can fail); a policy without a description, a tunable without a
# meaning, a missing policy file or marker makes the generator fail without
# writing anything.  The completion does not list policies (it reads
# available_policies).  Prints TAP.
# shellcheck disable=SC2016,SC2034,SC2317 # eval bodies expand later; the
# helpers are called through check
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d /tmp/wp-docs.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
DOCS="README.md docs/perf.md docs/sysfs-kernel-wakeplace ctl/wakeplacectl.8"

# shellcheck source=tests/tap.sh
. "$ROOT/tests/tap.sh"
# check DESC CMD...: one TAP line from a command's status, its output as
# diagnostics when it fails.
check() { tap_result_out "$@"; }

# tree NAME: a copy of what the generator reads and writes.
tree() {
	local t=$TMP/$1 f
	mkdir -p "$t/module/policies" "$t/docs" "$t/scripts" "$t/ctl"
	cp "$ROOT"/module/policies/*.c "$ROOT"/module/policies/list.h "$t/module/policies/"
	cp "$ROOT/module/outcomes.h" "$t/module/"
	cp "$ROOT/VERSION" "$t/"
	cp "$ROOT/scripts/gen-docs" "$t/scripts/"
	for f in $DOCS; do cp "$ROOT/$f" "$t/$f"; done
	echo "$t"
}
# stale T: T's docs differ from the committed ones (the diff is printed).
stale() {
	local f rc=1
	for f in $DOCS; do diff -u "$ROOT/$f" "$1/$f" || rc=0; done
	return "$rc"
}
# fresh T: T's docs are the committed ones.
fresh() {
	local f rc=0
	for f in $DOCS; do diff -u --label "$f (committed)" --label "$f (make docs)" \
		"$ROOT/$f" "$1/$f" || rc=1; done
	[ "$rc" = 0 ] || echo "stale: run make docs and commit the result"
	return "$rc"
}
# gen T: run the generator on T, keeping its messages in T/gen.err.
gen() { "$1/scripts/gen-docs" "$1" > "$1/gen.out" 2> "$1/gen.err"; }
# refuses T WHAT: the generator failed on T saying WHAT, and wrote nothing.
refuses() {
	local f
	mkdir -p "$1/before/docs" "$1/before/ctl"
	for f in $DOCS; do cp "$1/$f" "$1/before/$f"; done
	if gen "$1"; then echo "gen-docs succeeded"; return 1; fi
	grep -q -- "$2" "$1/gen.err" || { echo "no \"$2\" in:"; cat "$1/gen.err"; return 1; }
	for f in $DOCS; do diff -u "$1/before/$f" "$1/$f" || return 1; done
}

# ---- the committed docs are the generator's output ----------------------------
t=$(tree fresh)
check "gen-docs runs on the tree" gen "$t"
check "the committed policy tables are up to date (else run make docs)" fresh "$t"
gen "$t"
check "a second run changes nothing and says so" eval 'fresh "$t" && [ ! -s "$t/gen.out" ]'
# shellcheck source=tests/names.sh
. "$ROOT/tests/names.sh"
pols=$(src_policies | tr ' ' '\n')	# one a line, as the table rows
check "README and perf.md tables have one row per policy, in list.h order" eval '
	for f in README.md docs/perf.md; do
		rows=$(sed -n "/BEGIN generated: policies/,/END generated: policies/s/^| \`\([a-z0-9_]*\)\` |.*/\1/p" "$ROOT/$f")
		[ "$rows" = "$pols" ] || { echo "$f: $rows"; exit 1; }
	done'

# ---- the check can fail: a change in a policy file makes the docs stale ---------
t=$(tree desc)
sed -i 's/\(\.description = "\)target or prev if idle/\1TARGET OR PREV IF IDLE/' "$t/module/policies/noscan.c"
gen "$t"
check "a changed description makes the committed docs stale" stale "$t"
check "... and reaches the README table and the ABI's descriptions" eval '
	grep -q "^| \`noscan\` | TARGET OR PREV IF IDLE" "$t/README.md" &&
	grep -q "noscan: TARGET OR PREV IF IDLE" "$t/docs/sysfs-kernel-wakeplace"'
t=$(tree default)
sed -i 's/WP_TUNABLE("scan_max", 0, 1024, 4)/WP_TUNABLE("scan_max", 0, 1024, 7)/' "$t/module/policies/bounded.c"
gen "$t"
check "a changed tunable default reaches perf.md and the ABI document" eval '
	stale "$t" >/dev/null &&
	grep -q "^| \`bounded\` |.*| \`scan_max\` (7) |" "$t/docs/perf.md" &&
	grep -Eq "^[[:space:]]+bounded[[:space:]]+scan_max[[:space:]]+0\.\.1024[[:space:]]+7$" "$t/docs/sysfs-kernel-wakeplace"'
t=$(tree order)
sed -i '/^WP_POLICY(noscan)$/d; s/^WP_POLICY(stock)$/WP_POLICY(noscan)\nWP_POLICY(stock)/' "$t/module/policies/list.h"
gen "$t"
check "the tables follow the order of list.h" eval '
	stale "$t" >/dev/null &&
	[ "$(sed -n "s/^| \`\([a-z0-9_]*\)\` |.*/\1/p" "$t/README.md" | head -2 | tr "\n" " ")" = "noscan stock " ] &&
	grep -q "\"noscan \[stock\] mirror" "$t/docs/sysfs-kernel-wakeplace"'
t=$(tree outcome)
sed -i 's/"found in the per-LLC idle mask"/"FOUND IN THE MASK"/; s/X(7, LOCAL, local,/X(7, LOCAL, nearby,/' \
	"$t/module/outcomes.h"
gen "$t"
check "a changed outcome (module/outcomes.h) reaches the ABI document and the man page" eval '
	stale "$t" >/dev/null &&
	grep -Eq "^[[:space:]]+mask[[:space:]]+outcome: FOUND IN THE MASK$" "$t/docs/sysfs-kernel-wakeplace" &&
	grep -Eq "^[[:space:]]+target prev recent scan mask fallback handback nearby$" "$t/docs/sysfs-kernel-wakeplace" &&
	[ "$(grep -c "^target, prev, recent, scan, mask, fallback, handback, nearby$" "$t/ctl/wakeplacectl.8")" = 2 ]'
t=$(tree doc)
sed -i 's/^ \* idea: van Riel$/ * idea: Rik van Riel/' "$t/module/policies/prevsmt.c"
gen "$t"
check "a changed \"For the docs\" comment reaches perf.md" eval '
	stale "$t" >/dev/null && grep -q "^| \`prevsmt\` |.*| Rik van Riel |$" "$t/docs/perf.md"'

# ---- what the generator refuses, writing nothing -----------------------------
# refused DESC PATTERN FILE SED: a copy whose FILE is edited by SED is refused
# with PATTERN in the message, and no document changes.
refused() {
	local t
	nref=$((nref + 1))
	t=$(tree "refused$nref")
	sed -i "$4" "$t/$3"
	check "$1" refuses "$t" "$2"
}
nref=0
refused "a policy without a description: fails naming it, writes nothing" \
	"prevsmt.c.*no .description" module/policies/prevsmt.c '/\.description = /d'
refused "a tunable without a meaning: fails, writes nothing" \
	"min_depth of util has no" module/policies/util.c '/^ \* tunable min_depth:/d'
refused "a policy of list.h without its file: fails, writes nothing" \
	"no module/policies/newpol.c" module/policies/list.h '$a WP_POLICY(newpol)'
refused "a .name other than the file's: fails, writes nothing" \
	"is not \"idlecore\"" module/policies/idlecore.c 's/\.name = "idlecore"/.name = "idlecores"/'
refused "an unknown key in the \"For the docs\" comment: fails, writes nothing" \
	"prevsmt.c:.*expected" module/policies/prevsmt.c 's/^ \* idea: van Riel$/ * ideas: van Riel/'
refused "a missing END marker: fails, writes nothing" \
	"no \"END generated: tunables\"" docs/sysfs-kernel-wakeplace '/END generated: tunables/d'

# ---- the rest does not list policies by hand ---------------------------------
check "the bash completion reads the policy names at run time" eval '
	grep -q available_policies "$ROOT/ctl/bash-completion/wakeplacectl" &&
	! grep -Ew "$(echo $pols | tr " " "|")" "$ROOT/ctl/bash-completion/wakeplacectl"'

tap_done
