#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016,SC2034 # case bodies and evals expand later;
# globals are read by the functions of tests/check
#
# Self-test of the test harness on the host, without a VM: the runner's
# selection, results, skips, per-test timeout and post-checks (fed a fake
# kernel log and taint file), lib.sh helpers, and tests/check's TAP parsing
# and reporting of finished, failed and timed-out guests.  Prints TAP.
set -uo pipefail

TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNNER=$TESTS_DIR/runner
TMP=$(mktemp -d /tmp/wp-harness.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=tests/tap.sh
. "$TESTS_DIR/tap.sh"
# check DESC CMD...: one TAP line from a command's status.
check() { tap_result "$@"; }
diag() { tap_diag; }
has() { grep -qE -- "$2" "$1" || { echo "missing /$2/ in $1:"; diag < "$1"; return 1; }; }
hasnt() { ! grep -qE -- "$2" "$1" || { echo "unexpected /$2/ in $1:"; diag < "$1"; return 1; }; }

# ------------------------------------------------------------- fake cases ---

C=$TMP/cases
mkdir -p "$C"
mk() { # NAME HEADER-AND-BODY
	printf '#!/bin/bash\n%s\n' "$2" > "$C/$1.sh"
}
mk 101-pass '# desc: passes
# requires: bash
. "$WP_TESTS/lib.sh"
assert_eq "$(cpulist_expand 0-2,5)" "0 1 2 5" expand
assert_eq "$(cpulist_count 0-3,8-9)" 6 count
assert_ge 3 3 ge
must true
must_fail false
echo data > "$WP_OUT/file"
log "topo=$WP_TOPO"'
mk 102-fail '# desc: fails with a reason
. "$WP_TESTS/lib.sh"
echo "some output before"
assert_eq 1 2 "one is two"
echo "not reached"'
mk 103-skip '# desc: skips itself
. "$WP_TESTS/lib.sh"
skip "no widget here"'
mk 104-needs '# desc: needs a missing tool
# requires: bash no-such-tool-wp'
mk 105-crash '# desc: exits 3
exit 3'
mk 106-subshell '# desc: fail inside $(...) still fails with "|| exit 1"
. "$WP_TESTS/lib.sh"
get() { fail "inner reason"; }
v=$(get) || exit 1
echo "not reached $v"'
mk 107-hang '# desc: hangs with a child holding output open
(sleep 100000) &
sleep 100000'
mk 108-warn '# desc: adds a kernel WARNING
echo "WARNING: CPU: 1 PID: 42 at fake.c:1 fake+0x0" >> "$WP_DMESG_FILE"'
mk 109-taint '# desc: taints W; O and E are fine
echo $(( $(cat "$WP_TAINT_FILE") | 512 | 4096 | 8192 )) > "$WP_TAINT_FILE"'
mk 110-oe '# desc: taints only O and E
echo $(( $(cat "$WP_TAINT_FILE") | 4096 | 8192 )) > "$WP_TAINT_FILE"'
mk 111-bgload '# desc: leaves a background process behind
sleep 100000 &
echo $! > "$WP_OUT/bgpid"'
mk 112-skipwarn '# desc: skips but leaves a kernel BUG
echo "BUG: kernel NULL pointer dereference, address: 0" >> "$WP_DMESG_FILE"
echo "SKIP: pretend"
exit 4'
mk 113-topo-only "# desc: llc2 only
# requires: topo=smt,llc2 kernel=$(uname -r | grep -Eo "^[0-9]+\.[0-9]+")"
mk 114-topo-other "# desc: smt only
# requires: topo=smt"
mk 115-kernel-other "# desc: another kernel
# requires: kernel=2.4,2.6"
mk 116-bgload '# desc: bg_load left running at exit
# requires: perf
. "$WP_TESTS/lib.sh"
bg_load -g 1 -l 5
echo "${WP_BG_PIDS[0]}" > "$WP_OUT/pgid"
wait_until 60 pgrep -g "${WP_BG_PIDS[0]}" -x perf >/dev/null || fail "perf did not start"'

# ------------------------------------------------------------- selection ---

"$RUNNER" -c "$C" -l > "$TMP/list" 2>&1
check "runner -l lists every case" \
	test "$(grep -c "^1[0-9][0-9]-" "$TMP/list")" = 16
check "runner -l shows desc and requires" \
	has "$TMP/list" '^104-needs +requires: bash no-such-tool-wp +needs a missing tool'
sel() { "$RUNNER" -c "$C" -l "$@" | awk '{print $1}' | tr '\n' ' '; }
check "-t glob selects by glob" test "$(sel -t '10[12]*')" = "101-pass 102-fail "
check "-t regex selects by regex" test "$(sel -t 'pass|skip$')" = "101-pass 103-skip "
check "-t substring is an unanchored regex" test "$(sel -t crash)" = "105-crash "
check "repeated -t is an or" test "$(sel -t 101 -t '*hang')" = "101-pass 107-hang "
check "space-separated -t is an or" test "$(sel -t '101 103')" = "101-pass 103-skip "
check "| separates a glob from a regex" test "$(sel -t '10[12]*|crash')" = "101-pass 102-fail 105-crash "
check "parentheses keep one regex" test "$(sel -t '^(101|103)')" = "101-pass 103-skip "

# ------------------------------------------------------------------- run ---

O=$TMP/out
echo "[    0.1] boot message WARNING: before the tests" > "$TMP/dmesg"
echo 0 > "$TMP/taint"
WP_DMESG_FILE=$TMP/dmesg WP_TAINT_FILE=$TMP/taint \
	"$RUNNER" -c "$C" -o "$O" -p llc2 -x 8 > "$TMP/run" 2>&1
rc=$?
R=$O/results.tap
check "runner exits 1 when a test failed" test "$rc" = 1
check "TAP plan" has "$R" "^1\\.\\.16$"
check "topology comments come first" has "$R" '^# cpus online: '
check "passing test" has "$R" '^ok 1 - 101-pass: passes$'
check "WP_TOPO and WP_OUT reach the test" \
	eval 'has "$O/101-pass/output.log" "topo=llc2" && test -s "$O/101-pass/out/file"'
check "failing test and its reason" \
	eval 'has "$R" "^not ok 2 - 102-fail: fails with a reason$" &&
	      has "$R" "^# FAIL: one is two: expected .2., got .1.$"'
check "failing test output kept" has "$O/102-fail/output.log" 'some output before'
check "fail ends the test" hasnt "$O/102-fail/output.log" 'not reached'
check "skip with reason" has "$R" '^ok 3 - 103-skip # SKIP no widget here$'
check "requires: missing command skips" \
	has "$R" '^ok 4 - 104-needs # SKIP no-such-tool-wp not installed$'
check "other exit codes fail" \
	eval 'has "$R" "^not ok 5 - 105-crash" && has "$R" "^# test failed \(exit 3\)"'
check "fail in a command substitution" \
	eval 'has "$R" "^not ok 6 - 106-subshell" && has "$R" "^# FAIL: inner reason"'
check "-x kills a hung test" \
	eval 'has "$R" "^not ok 7 - 107-hang" && has "$O/107-hang/output.log" "timeout after 8s" && has "$O/107-hang/output.log" "^  [0-9]+ .*state=S wchan="'
check "a new kernel WARNING fails the test" \
	eval 'has "$R" "^not ok 8 - 108-warn" && has "$R" "^# kernel log: WARNING: CPU: 1 PID: 42"'
check "kernel log is kept per test" has "$O/108-warn/dmesg.log" 'WARNING: CPU: 1'
check "boot-time messages are not blamed on tests" \
	hasnt "$R" 'before the tests'
check "a new W taint fails the test, O and E are named nowhere" \
	eval 'has "$R" "^not ok 9 - 109-taint" && has "$R" "^# new kernel taint 512: W\(512\)"'
check "O and E taints are allowed" has "$R" '^ok 10 - 110-oe: taints only O and E$'
check "taint is compared with the previous test" \
	hasnt "$R" '^not ok 1[01] '
bgpid=$(cat "$O/111-bgload/out/bgpid" 2>/dev/null)
# Killed: gone, or a zombie when the host's init does not reap.
dead() { local s; read -r s 2>/dev/null < "/proc/$1/stat" || return 0; s=${s##*) }; [ "${s%% *}" = Z ]; }
group_live() { local p; for p in $(pgrep -g "$1"); do dead "$p" || return 0; done; return 1; }
check "leftover processes are killed" \
	eval '[ -n "$bgpid" ] && dead "$bgpid"'
check "a skip with a kernel BUG is a failure" \
	eval 'has "$R" "^not ok 12 - 112-skipwarn" && has "$R" "^# kernel log: BUG: kernel NULL"'
check "requires: topo= and kernel= that match run the test" \
	has "$R" "^ok 13 - 113-topo-only: llc2 only$"
check "requires: topo= skips elsewhere" \
	has "$R" "^ok 14 - 114-topo-other # SKIP runs on topology smt only$"
check "requires: kernel= skips elsewhere" \
	has "$R" "^ok 15 - 115-kernel-other # SKIP runs on kernel 2.4,2.6 only$"
pg=$(cat "$O/116-bgload/out/pgid" 2>/dev/null)
check "bg_load left running is stopped" \
	eval '[ -n "$pg" ] && has "$R" "^ok 16 - 116-bgload" && ! group_live "$pg"'
check "no running marker after the run" test ! -e "$O/running"
check "done file" has "$O/done" '^passed 5 failed 7 skipped 4$'
check "plan file" test "$(wc -l < "$O/plan")" = 16
check "-k skips kernel checks" \
	eval 'WP_DMESG_FILE=$TMP/dmesg2 "$RUNNER" -k -c "$C" -o "$TMP/k" -t 108 >/dev/null 2>&1'

# ----------------------------------------------------------- tests/check ---

# shellcheck source=tests/check
. "$TESTS_DIR/check"
REPO=$TMP
RESULTS_TAP=$TMP/check.tap
: > "$RESULTS_TAP"

count() { echo "$npass/$nfail/$nskip"; }
npass=0 nfail=0 nskip=0
parse_tap "host/x: " > "$TMP/parsed" <<'EOF'
TAP version 13
1..7
ok 1 - alpha
not ok 2 - beta
# why beta failed
ok 3 - gamma # SKIP no gamma
ok 4 - delta # skip
not ok 5 - eps # TODO later
okay this is not a result
ok
Bail out! broken
EOF
check "parse_tap counts pass/fail/skip" test "$(count)" = "2/2/3"
check "parse_tap prefixes names" has "$TMP/parsed" '^ok - host/x: alpha$'
check "parse_tap keeps failure diagnostics" \
	eval 'has "$TMP/parsed" "^not ok - host/x: beta$" && has "$TMP/parsed" "^#    why beta failed$"'
check "parse_tap skip reason" has "$TMP/parsed" '^ok - host/x: gamma # SKIP no gamma$'
check "parse_tap bail out fails" has "$TMP/parsed" '^not ok - host/x: bail-out: Bail out! broken$'

check "kernel_label" test "$(kernel_label 6.12.95+deb12-amd64) $(kernel_label 6.1)" = "6.12 6.1"
check "kernel_label of Debian's flavours" \
	test "$(kernel_label 6.1.0-57-cloud-amd64) $(kernel_label 6.12.95+deb12-rt-amd64) $(kernel_label 6.1-cloud)" = "6.1-cloud 6.12-rt 6.1-cloud"

# report_vm on the runner output above (a finished VM, exit 1).
declare -gA KREL=([6.1]=6.1.0-fake)
JOB_LABEL=(6.1) JOB_TOPO=(llc2) JOB_OUT=("$O") JOB_T0=("$SECONDS")
ACCEL=tcg
npass=0 nfail=0 nskip=0
report_vm 0 1 > "$TMP/rep1"
check "report_vm: finished run counted" test "$(count)" = "6/7/4"
check "report_vm: prefixed lines" has "$TMP/rep1" '^not ok - 6.1/llc2/102-fail: fails with a reason$'
check "report_vm: failing test output shown" has "$TMP/rep1" '^#   \| some output before$'
check "report_vm: dmesg shown" has "$TMP/rep1" '^#   \| WARNING: CPU: 1 PID: 42'
check "report_vm: topology comments" has "$TMP/rep1" '^# 6.1/llc2: cpus online'
check "report_vm: vm line" has "$TMP/rep1" '^ok - 6.1/llc2/vm: booted 6.1.0-fake'

# A guest killed by the VM timeout while 002-b ran; 003-c never started.
H=$TMP/hung
mkdir -p "$H/002-b"
printf '%s\n' 001-a 002-b 003-c > "$H/plan"
printf '%s\n' 'TAP version 13' '1..3' 'ok 1 - 001-a: first' > "$H/results.tap"
echo 002-b > "$H/running"
echo "partial output of b" > "$H/002-b/output.log"
printf 'console line %s\n' 1 2 3 > "$H/console.log"
JOB_OUT[0]=$H
WP_VM_TIMEOUT=77
npass=0 nfail=0 nskip=0
report_vm 0 124 > "$TMP/rep2"
check "report_vm: timeout counted" test "$(count)" = "1/3/0"
check "report_vm: hung test named" \
	has "$TMP/rep2" '^not ok - 6.1/llc2/002-b: guest killed after WP_VM_TIMEOUT=77s, while this test ran \(started [0-9]+s before\)$'
check "report_vm: hung test output shown" has "$TMP/rep2" 'partial output of b'
check "report_vm: unreached test reported" \
	has "$TMP/rep2" '^not ok - 6.1/llc2/003-c: not run: guest killed'
check "report_vm: console tail shown" has "$TMP/rep2" '^#   \| console line 3$'

# A guest that never got to the runner.
E=$TMP/noboot
mkdir -p "$E"
echo "Kernel panic - not syncing: fake" > "$E/console.log"
JOB_OUT[0]=$E
npass=0 nfail=0 nskip=0
report_vm 0 1 > "$TMP/rep3"
check "report_vm: no runner output is a failed vm" \
	eval 'test "$(count)" = "0/1/0" && has "$TMP/rep3" "^not ok - 6.1/llc2/vm: guest stopped before the runner finished" && has "$TMP/rep3" "Kernel panic"'

# run_host_tests on fake host scripts.
mkdir -p "$TMP/tests/host"
printf '%s\n' 'echo "ok 1 - fine"' 'echo "not ok 2 - broken"' \
	'echo "# diag of broken"' 'exit 1' > "$TMP/tests/host/a-fails.sh"
printf '%s\n' 'echo "ok 1 - fine"' 'exit 3' > "$TMP/tests/host/b-exit.sh"
printf '%s\n' 'echo "no tap here"' > "$TMP/tests/host/c-silent.sh"
printf '%s\n' 'echo "ok 1 - started"' 'sleep 100000' > "$TMP/tests/host/d-hang.sh"
RES=$TMP/res
WP_HOST_TIMEOUT=6
npass=0 nfail=0 nskip=0
run_host_tests > "$TMP/host.out"
check "run_host_tests: counts" test "$(count)" = "3/4/0"
check "run_host_tests: failing line prefixed, with diagnostics" \
	eval 'has "$TMP/host.out" "^not ok - host/a-fails: broken$" && has "$TMP/host.out" "diag of broken"'
check "run_host_tests: non-zero exit without a failing line fails" \
	has "$TMP/host.out" '^not ok - host/b-exit: exited 3 without a failing test line$'
check "run_host_tests: no TAP line fails" \
	has "$TMP/host.out" '^not ok - host/c-silent: printed no TAP test line'
check "run_host_tests: a hung script is killed and fails" \
	has "$TMP/host.out" '^not ok - host/d-hang: killed after WP_HOST_TIMEOUT=6s$'

# The lanes: "# lane: tree" scripts one at a time, the others beside them,
# reports in name order.  Each tree script waits (at most 5 s) for the
# other script to say it runs: in two lanes t1 finds it, in one it cannot.
rm -f "$TMP"/tests/host/*.sh
for n in t1 t2; do
	printf '%s\n' '#!/bin/bash' '# lane: tree' "echo start >>\"$TMP/lane.log\"" \
		"for i in \$(seq 50); do [ -e \"$TMP/beside\" ] && break; sleep 0.1; done" \
		"[ -e \"$TMP/beside\" ] && echo beside >>\"$TMP/lane.log\"" \
		"echo end >>\"$TMP/lane.log\"" "echo \"ok 1 - $n\"" > "$TMP/tests/host/$n.sh"
done
printf '%s\n' '#!/bin/bash' "for i in \$(seq 300); do grep -q start \"$TMP/lane.log\" 2>/dev/null && break; sleep 0.1; done" \
	"touch \"$TMP/beside\"" 'echo "ok 1 - rest"' > "$TMP/tests/host/z-rest.sh"
WP_HOST_TIMEOUT=120
rm -f "$TMP/lane.log" "$TMP/beside"
npass=0 nfail=0 nskip=0
WP_HOST_JOBS=2 run_host_tests > "$TMP/host2.out"
check "run_host_tests: tree scripts one at a time, the rest beside them, reported in name order" \
	eval 'test "$(count)" = "3/0/0" && test "$(paste -sd " " "$TMP/lane.log")" = "start beside end start beside end" &&
	      test "$(grep -o "host/[a-z0-9-]*" "$TMP/host2.out" | paste -sd " ")" = "host/t1 host/t2 host/z-rest"'
rm -f "$TMP/lane.log" "$TMP/beside"
npass=0 nfail=0 nskip=0
WP_HOST_JOBS=1 run_host_tests > "$TMP/host3.out"
check "run_host_tests with WP_HOST_JOBS=1: one script at a time" \
	eval 'test "$(count)" = "3/0/0" && test "$(paste -sd " " "$TMP/lane.log")" = "start end start end"'
# Three lanes: the other scripts are shared out, two of them at a time.
# r1 and r2 each wait (at most 5 s) for the other to have started; r3
# runs once a lane is free; each script runs once.
rm -f "$TMP"/tests/host/*.sh "$TMP"/r?.started "$TMP/runs.log"
for n in r1 r2 r3; do
	o=$([ $n = r1 ] && echo r2 || echo r1)
	printf '%s\n' '#!/bin/bash' "touch \"$TMP/$n.started\"; echo $n >>\"$TMP/runs.log\"" \
		"for i in \$(seq 50); do [ -e \"$TMP/$o.started\" ] && break; sleep 0.1; done" \
		"[ -e \"$TMP/$o.started\" ] && echo \"ok 1 - $n beside $o\" || echo \"not ok 1 - $n alone\"" \
		> "$TMP/tests/host/$n.sh"
done
npass=0 nfail=0 nskip=0
WP_HOST_JOBS=3 run_host_tests > "$TMP/host4.out"
check "run_host_tests with WP_HOST_JOBS=3: the scripts shared out among two lanes, each run once, reported in name order" \
	eval 'test "$(count)" = "3/0/0" && test "$(sort "$TMP/runs.log" | paste -sd " ")" = "r1 r2 r3" &&
	      test "$(grep -o "host/r[0-9]" "$TMP/host4.out" | paste -sd " ")" = "host/r1 host/r2 host/r3"'
npass=0 nfail=0 nskip=0
rm -f "$TMP"/r?.started "$TMP/runs.log"
WP_HOST_JOBS=2 run_host_tests > "$TMP/host5.out"
check "run_host_tests with WP_HOST_JOBS=2: those scripts one at a time" \
	eval 'test "$(count)" = "2/1/0" && grep -q "^not ok - host/r1: r1 alone" "$TMP/host5.out"'

if [ -r /var/lib/wakeplace/kernels ]; then
	# Each release back from its label: 6.1 the generic kernel, 6.1-cloud
	# the cloud one, though both are 6.1.0-57.
	while read -r r; do
		if [ -f "/boot/vmlinuz-$r" ]; then
			check "resolve_kernel $(kernel_label "$r") follows /var/lib/wakeplace/kernels" \
				test "$(resolve_kernel "$(kernel_label "$r")")" = "$r"
		else
			tap_skip "resolve_kernel $r" "/boot/vmlinuz-$r missing"
		fi
	done < /var/lib/wakeplace/kernels
else
	tap_skip resolve_kernel "no /var/lib/wakeplace/kernels (run scripts/setup)"
fi
check "resolve_kernel fails for an unknown kernel" eval '! resolve_kernel 0.99 >/dev/null'

tap_done
