#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lane: tree (tests/check runs it beside no other tree-writing test)
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
# writing anything.  The scale tables of perf.md follow from the runs kept
# in docs/scale/ (scripts/gen-scale-docs; none kept is fine), and a
# fixture run becomes its table.  The completion does not list policies
# (it reads available_policies).  Prints TAP.
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

# ---- the scale tables (scripts/gen-scale-docs) ----------------------------------
# stree NAME: a copy of perf.md and the kept runs (docs/scale/).
stree() {
	local t=$TMP/$1
	mkdir -p "$t/docs"
	cp "$ROOT/docs/perf.md" "$t/docs/"
	[ -d "$ROOT/docs/scale" ] && cp -r "$ROOT/docs/scale" "$t/docs/"
	echo "$t"
}
sgen() { local t=$1; shift; "$ROOT/scripts/gen-scale-docs" -t "$t" "$@" >"$t/gen.out" 2>"$t/gen.err"; }
t=$(stree sfresh)
check "the committed scale tables follow from docs/scale/ (else run make scale-docs)" eval '
	sgen "$t" && diff -u --label "docs/perf.md (committed)" --label "docs/perf.md (make scale-docs)" "$ROOT/docs/perf.md" "$t/docs/perf.md" &&
	{ [ ! -d "$ROOT/docs/scale" ] || diff -r "$ROOT/docs/scale" "$t/docs/scale"; }'
# A fixture run as vm leaves it: DIR/host.txt and DIR/run/scale.{tsv,json}.
R=$TMP/run1
mkdir -p "$R/run"
printf 'topology: llc16\ncommand: bench-scripts/vm -t llc16 -- scale\nhost_cpus: 2\nload: 07:00:00 3.5 2\nload: 07:00:30 9.25 4\n' >"$R/host.txt"
printf 'level\tpolicy\trole\tblocks\tno_figures\ttracked\tstacked\tmissed_idle\tdouble_picks\tpicks\tscanned\tremote_lines\tunplaced\tstacked_pct\tmissed_pct\tmissed_pct_min\tmissed_pct_max\tdouble_pct\tscanned_per_pick\tlines_per_pick\tp50_us\tp99_us\n' >"$R/run/scale.tsv"
printf '0.9\tmirror\tcompare\t10\t0\t1000\t100\t50\t10\t500\t4000\t8000\t7\t10.00\t5.00\t4.00\t6.00\t1.00\t8.00\t16.00\t8.3\t1065.0\n0.9\tstock#1\taa\t5\t0\t500\t50\t20\t5\t0\t0\t0\t3\t10.00\t4.00\t4.00\t4.00\t1.00\t-\t-\t8.3\t8.3\n' >>"$R/run/scale.tsv"
cpus=$(for i in $(seq 0 15); do printf '%s{"cpu": %d, "core_id": %d, "package_id": 0, "siblings": "%d", "llc_level": 3, "llc_cpus": "0-15"}' "$([ "$i" -gt 0 ] && echo ,)" "$i" "$i" "$i"; done)
printf '{"tool": "wakeplace-scale", "kernel": "6.1.0-99-test", "cpus": 16, "finished": "2026-12-03T08:00:00Z", "workload": "wakelat:-b8", "reps": 5, "warmup_s": 1, "duration_s": 6, "seed": 7, "failed_blocks": 0, "blocks_without_figures": 0, "command": "/x/scale -l 0.9", "topology": {"online": "0-15", "cpus": [%s]}}\n' "$cpus" >"$R/run/scale.json"
t=$(stree sfix)
check "make scale-docs SCALE=DIR: the run kept in docs/scale/KERNEL-TOPO, its table in perf.md" eval '
	sgen "$t" "$R" && [ -f "$t/docs/scale/6.1.0-99-test-llc16/scale.tsv" ] && [ -f "$t/docs/scale/6.1.0-99-test-llc16/host.txt" ] &&
	grep -qx "#### 6.1.0-99-test, llc16: 16 CPUs, 1 LLC of 16, no SMT" "$t/docs/perf.md" &&
	grep -qxF "| 0.9 | mirror | 1000 | 10.00 | 5.00 (4.00-6.00) | 1.00 | 8.00 | 16.00 | 8.3 | 1065.0 |" "$t/docs/perf.md" &&
	grep -qxF "| 0.9 | stock#1 (A/A) | 500 | 10.00 | 4.00 (4.00-4.00) | 1.00 | - | - | 8.3 | 8.3 |" "$t/docs/perf.md" &&
	grep -q "^Host: 2 CPUs, 1-minute load 3.5 to 9.25 over 2 samples, 2 to 4 QEMU processes running" "$t/docs/perf.md" &&
	[ "$(sed -n "/^#### 6.1.0-99-test/,/^####\|END generated: scale/p" "$t/docs/perf.md" | grep -c "^| 0.9 |")" = 2 ]'
check "the tables are inside the markers only: the rest of perf.md unchanged" eval '
	diff <(sed "/BEGIN generated: scale/,/END generated: scale/d" "$ROOT/docs/perf.md") <(sed "/BEGIN generated: scale/,/END generated: scale/d" "$t/docs/perf.md")'
sed -i 's/\t5.00\t4.00\t6.00/\t7.50\t4.00\t9.00/' "$R/run/scale.tsv"
check "a second run of the same kernel and topology replaces the first; again: nothing written" eval '
	sgen "$t" "$R" && grep -qxF "| 0.9 | mirror | 1000 | 10.00 | 7.50 (4.00-9.00) | 1.00 | 8.00 | 16.00 | 8.3 | 1065.0 |" "$t/docs/perf.md" &&
	! grep -q "5.00 (4.00-6.00)" "$t/docs/perf.md" && [ "$(ls "$t/docs/scale" | wc -l)" = "$(( $(ls "$ROOT/docs/scale" 2>/dev/null | wc -l) + 1 ))" ] &&
	sgen "$t" && [ ! -s "$t/gen.out" ]'
# The same kernel on a second LLC size: its pick cost against LLC size.
R2=$TMP/run2
mkdir -p "$R2/run"
sed 's/llc16/llc32/' "$R/host.txt" >"$R2/host.txt"
sed 's/\t10\.00\t7\.50\t\(.*\)\t8\.00\t16\.00\t/\t12.50\t7.50\t\1\t9.50\t17.25\t/' "$R/run/scale.tsv" >"$R2/run/scale.tsv"
cpus=$(for i in $(seq 0 31); do printf '%s{"cpu": %d, "core_id": %d, "package_id": 0, "siblings": "%d", "llc_level": 3, "llc_cpus": "0-31"}' "$([ "$i" -gt 0 ] && echo ,)" "$i" "$i" "$i"; done)
jq -c --argjson c "[$cpus]" '.cpus = 32 | .topology.cpus = $c' "$R/run/scale.json" >"$R2/run/scale.json"
check "one LLC size of a kernel: no pick cost table; two: scanned and lines per pick side by side" eval '
	! grep -q "^#### Pick cost against LLC size: 6.1.0-99-test" "$t/docs/perf.md" && [ ! -e "$t/docs/scale/6.1.0-99-test-pickcost.svg" ] &&
	sgen "$t" "$R2" && grep -qx "#### Pick cost against LLC size: 6.1.0-99-test" "$t/docs/perf.md" &&
	grep -qxF "(CPUs per LLC: llc16 16, llc32 32)." "$t/docs/perf.md" &&
	grep -qxF "| level | policy | scanned, llc16 | scanned, llc32 | lines, llc16 | lines, llc32 | stacked %, llc16 | stacked %, llc32 |" "$t/docs/perf.md" &&
	grep -qxF "| 0.9 | mirror | 8.00 | 9.50 | 16.00 | 17.25 | 10.00 | 12.50 |" "$t/docs/perf.md" &&
	! grep -q "^| 0.9 | stock#1 | -" "$t/docs/perf.md"'
check "two LLC sizes: the plot in docs/scale/KERNEL-pickcost.svg, linked from the table, mirror at 0.9 in it, stock not" eval '
	grep -qxF "![Pick cost of 6.1.0-99-test against LLC size](scale/6.1.0-99-test-pickcost.svg)" "$t/docs/perf.md" &&
	grep -q "<svg" "$t/docs/scale/6.1.0-99-test-pickcost.svg" && grep -q ">mirror@0.9<" "$t/docs/scale/6.1.0-99-test-pickcost.svg" &&
	! grep -q "stock" "$t/docs/scale/6.1.0-99-test-pickcost.svg"'
rm -r "$t/docs/scale/6.1.0-99-test-llc32"
check "the second size gone: its table and plot go" eval '
	sgen "$t" && ! grep -q "^#### Pick cost against LLC size: 6.1.0-99-test" "$t/docs/perf.md" &&
	[ ! -e "$t/docs/scale/6.1.0-99-test-pickcost.svg" ] && grep -q "removed .*6.1.0-99-test-pickcost.svg" "$t/gen.err"'
# Another workload on the other size: kept beside the wakelat run, named
# for its workload, and never compared across workloads.
R3=$TMP/run3
mkdir -p "$R3/run"
cp "$R2/host.txt" "$R2/run/scale.tsv" "$R3/run/"
jq -c '.workload = "rr:-p8"' "$R2/run/scale.json" >"$R3/run/scale.json"
check "a second workload: kept in KERNEL-TOPO-WORKLOAD with its own table, no pick cost across workloads" eval '
	sgen "$t" "$R3" && [ -f "$t/docs/scale/6.1.0-99-test-llc32-rr/scale.tsv" ] && [ -f "$t/docs/scale/6.1.0-99-test-llc16/scale.tsv" ] &&
	grep -qx "#### 6.1.0-99-test, llc32, rr: 32 CPUs, 1 LLC of 32, no SMT" "$t/docs/perf.md" &&
	grep -qx "#### 6.1.0-99-test, llc16: 16 CPUs, 1 LLC of 16, no SMT" "$t/docs/perf.md" &&
	! grep -q "^#### Pick cost against LLC size: 6.1.0-99-test" "$t/docs/perf.md" && ! ls "$t"/docs/scale/6.1.0-99-test*pickcost.svg 2>/dev/null'
rm -r "$t/docs/scale/6.1.0-99-test-llc32-rr"
sgen "$t" "$R2"
cp "$t/docs/perf.md" "$TMP/perf.before"
check "a run without scale.tsv: fails naming it, writes nothing" eval '
	! sgen "$t" "$R" "$TMP/nothing" && grep -q "nothing: no scale.tsv" "$t/gen.err" && cmp "$TMP/perf.before" "$t/docs/perf.md"'
sed -i "/END generated: scale/d" "$t/docs/perf.md"
check "a missing END marker: fails, writes nothing" eval '
	cp "$t/docs/perf.md" "$TMP/perf.before" && ! sgen "$t" "$R" && grep -q "no \"END generated: scale\"" "$t/gen.err" && cmp "$TMP/perf.before" "$t/docs/perf.md"'

# ---- the rest does not list policies by hand ---------------------------------
check "the bash completion reads the policy names at run time" eval '
	grep -q available_policies "$ROOT/ctl/bash-completion/wakeplacectl" &&
	! grep -Ew "$(echo $pols | tr " " "|")" "$ROOT/ctl/bash-completion/wakeplacectl"'

tap_done
