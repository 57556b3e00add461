#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lane: tree (tests/check runs it beside no other tree-writing test)
#
# wakeplacectl status, load and unload against a fake sysfs tree with fake
# insmod/modprobe/rmmod (WAKEPLACE_INSMOD/MODPROBE/RMMOD) and a fake kernel
# log (WAKEPLACE_DMESG); plus the man page, the bash completion and
# `make install`.  TAP output.
set -u
. "$(dirname "$0")/../../ctl/test-lib.sh"

T=$TMPD/sys
TEMPLATE=$TMPD/template
make_tree "$TEMPLATE"
make_tree "$T"
export WAKEPLACE_SYSFS=$T
export WAKEPLACE_DMESG=$TMPD/dmesg
export WAKEPLACE_ENABLED_FUNCTIONS=$TMPD/enabled_functions
export WAKEPLACE_RELEASE=6.1.0-57-amd64	# the fake tree's kernel, not the host's
: >"$WAKEPLACE_DMESG"

# ---- status, loaded --------------------------------------------------------------
printf 'select_task_rq_fair (1) R I   \ttramp: 0xffffffffc0201000 (wp_select_task_rq+0x0/0x40 [wakeplace]) ->ftrace_ops_assist_func+0x0/0xf0\n' >"$WAKEPLACE_ENABLED_FUNCTIONS"
echo mirror >"$T/policy"
run status
check "status: loaded, version, kernel, policy, shadow, state" \
	eval '[ $RC = 0 ] && grep -q "^module: *loaded, version 0.1.0" "$OUT" && grep -q "^kernel: *6.1.0-57-amd64, module flavour 6.1 (supported)" "$OUT" &&
	      grep -q "^policy: *mirror" "$OUT" && grep -q "^shadow: *off" "$OUT" && grep -q "^state: *ok" "$OUT"'
check "status: hook attached from enabled_functions" eval 'grep -q "^hook: *attached (select_task_rq_fair (1) R I" "$OUT"'
check "status: counters redirected/handed_back/corrected" \
	eval 'grep -q "^counters: *redirected 1000 handed_back 7 corrected 0$" "$OUT"'
check "status: a healthy module has no problem line" eval '! grep -q "^problem:" "$OUT"'
RC=0; WAKEPLACE_RELEASE=6.1.0-99-amd64 "$WP_CTL" status >"$OUT" 2>"$ERR" || RC=$?
check "status: module's kernel is not the running one: a problem, exit 5" \
	eval '[ $RC = 5 ] && grep -q "^problem: *module reports kernel 6.1.0-57-amd64 but uname says 6.1.0-99-amd64" "$OUT"'
check "status: no sched_ext line on a kernel without it" eval '! grep -q "^sched_ext:" "$OUT"'
# sched_ext (7.2): off, a scheduler for every task, one for SCHED_EXT only.
X=$TMPD/sched_ext
mkdir -p "$X/root"
echo disabled >"$X/state"; echo 0 >"$X/switch_all"
RC=0; WAKEPLACE_SCX_DIR=$X "$WP_CTL" status >"$OUT" 2>"$ERR" || RC=$?
check "status: sched_ext disabled" eval '[ $RC = 0 ] && grep -q "^sched_ext: *disabled (CFS places every task)" "$OUT"'
echo enabled >"$X/state"; echo 1 >"$X/switch_all"; echo simple >"$X/root/ops"
RC=0; WAKEPLACE_SCX_DIR=$X "$WP_CTL" status >"$OUT" 2>"$ERR" || RC=$?
check "status: sched_ext with every task, the scheduler named, no problem" \
	eval '[ $RC = 0 ] && grep -q "^sched_ext: *enabled, scheduler simple, all tasks" "$OUT"'
echo 0 >"$X/switch_all"; echo qmap >"$X/root/ops"
RC=0; WAKEPLACE_SCX_DIR=$X "$WP_CTL" -j status >"$OUT" 2>"$ERR" || RC=$?
check "status -j: sched_ext partial" \
	eval 'json_ok && jq -e "(.sched_ext.state == \"enabled\") and (.sched_ext.active == true) and (.sched_ext.scheduler == \"qmap\") and (.sched_ext.mode == \"partial\")" "$OUT" >/dev/null'
run -v status
check "status -v: all counters" eval 'grep -q "calls 5000 wakeups 4000 redirected 1000" "$OUT"'
run -j status
check "status -j: one document, types and values" \
	eval '[ $RC = 0 ] && json_ok && jq -e "(.loaded == true) and (.version == \"0.1.0\") and (.policy == \"mirror\") and (.state == \"ok\") and (.reverted == null) and (.hook == \"attached\") and (.kernel.release == \"6.1.0-57-amd64\") and (.kernel.flavour == \"6.1\") and (.kernel.supported == true) and (.sample_period == 64) and (.counters.redirected == 1000) and (.counters.handed_back == 7) and (.sched_ext == null) and (.timestamp|type == \"number\")" "$OUT" >/dev/null'

# The measurement and the histograms' memory (latency_mem).
{ for p in $FAKE_POLICIES; do echo "$p 0 0"; done; } | sed 's/^mirror 0 0$/mirror 233472 4/; s/^stock 0 0$/stock 116736 2/' >"$T/latency_mem"
run status
check "status: measurement on, histograms per policy in KiB with CPUs and the total" \
	eval '[ $RC = 0 ] && grep -q "^measure: *on, one wakeup in 1 tracked" "$OUT" && grep -Eq "^histograms: .*mirror 228 KiB \(4 CPUs\).*, total 342 KiB$" "$OUT" && grep -q "stock 114 KiB (2 CPUs)" "$OUT"'
run -j status
check "status -j: latency_sample and latency_mem {policy: {bytes, cpus}}" \
	eval '[ $RC = 0 ] && json_ok && jq -e "(.latency_sample == 1) and (.latency_mem.mirror.bytes == 233472) and (.latency_mem.mirror.cpus == 4) and (.latency_mem.noscan.bytes == 0) and (.latency_mem|length == $(echo $FAKE_POLICIES | wc -w))" "$OUT" >/dev/null'
echo 0 >"$T/latency_sample"
{ for p in $FAKE_POLICIES; do echo "$p 0 0"; done; } >"$T/latency_mem"
run status
check "status: measurement off says how to switch it on; no histograms" \
	eval '[ $RC = 0 ] && grep -q "^measure: *off (stats latency on" "$OUT" && grep -q "^histograms: *none$" "$OUT"'
rm -f "$T/latency_mem"; echo 1 >"$T/latency_sample"
run -j status
check "status -j: an older module without latency_mem: null" \
	eval '[ $RC = 0 ] && json_ok && jq -e "(.latency_mem == null) and (.latency_sample == 1)" "$OUT" >/dev/null'

grep -v select_task_rq_fair "$WAKEPLACE_ENABLED_FUNCTIONS" >"$WAKEPLACE_ENABLED_FUNCTIONS.x"
printf 'select_task_rq_fair_other (1)\n' >>"$WAKEPLACE_ENABLED_FUNCTIONS.x"
mv "$WAKEPLACE_ENABLED_FUNCTIONS.x" "$WAKEPLACE_ENABLED_FUNCTIONS"
run status
check "status: hook not attached is a problem when a policy is active (exit 5)" \
	eval '[ $RC = 5 ] && grep -q "^hook: *not attached" "$OUT" && grep -q "^problem: .*hook is not attached" "$OUT"'
echo attaching >"$T/hook"
run status
check "status: a hook the module says is attaching is no problem (exit 0)" \
	eval '[ $RC = 0 ] && grep -q "^hook: *attaching" "$OUT" && ! grep -q "^problem: .*hook" "$OUT"'
run -j status
check "status -j: hook attaching" eval '[ "$(jq -r .hook "$OUT")" = attaching ]'
echo detached >"$T/hook"
echo stock >"$T/policy"
run status
check "status: on stock with no shadow a detached hook is expected, no hook problem" \
	eval '[ $RC = 0 ] && grep -q "^hook: *not attached (on stock with no shadow" "$OUT" && ! grep -q "^problem: .*hook" "$OUT"'
echo mirror >"$T/policy"
rm -f "$WAKEPLACE_ENABLED_FUNCTIONS"
run -j status
check "status: unreadable enabled_functions gives hook unknown" eval '[ "$(jq -r .hook "$OUT")" = unknown ]'

echo "reverted: mirror: pick 7 outside p->cpus_ptr" >"$T/state"
sed -i 's/^corrected 0/corrected 3/' "$T/counters"
echo stock >"$T/policy"
run status
check "status: reverted state explained with the fix (exit 5)" \
	eval '[ $RC = 5 ] && grep -q "^state: *reverted: mirror: pick 7 outside" "$OUT" && grep -q "^problem: *self-protection reverted to stock (mirror: pick 7 outside p->cpus_ptr); .*policy set" "$OUT"'
check "status: corrected picks reported" eval 'grep -q "^problem: *3 picks were outside the allowed CPUs" "$OUT"'
run -j status
check "status -j: reverted policy and reason, problems list, exit 5" \
	eval '[ $RC = 5 ] && jq -e "(.reverted.policy == \"mirror\") and (.reverted.reason == \"pick 7 outside p->cpus_ptr\") and (.counters.corrected == 3) and (.problems|length >= 2)" "$OUT" >/dev/null'
echo "6.12.95+deb12-amd64 6.1" >"$T/kernel"
run status
check "status: module flavour not matching the kernel is a problem (exit 5)" \
	eval '[ $RC = 5 ] && grep -q "NOT supported" "$OUT" && grep -q "^problem: *module built for 6.1 but the kernel is 6.12.95+deb12-amd64" "$OUT"'
make_tree "$T"

# ---- status, not loaded: exit 3 and the kernel log explains ---------------------------
cat >"$WAKEPLACE_DMESG" <<'EOF'
[    0.000000] Linux version 6.1.0-57-amd64
[    5.100000] wakeplace: loaded, policy stock
[    6.200000] wakeplace: unloaded
[    9.300000] wakeplace: select_task_rq_fair already has an ftrace IPMODIFY owner (-EBUSY), refusing to load
[    9.400000] other: unrelated line
EOF
run --sysfs "$TMPD/none" status
check "status not loaded: exit 3, says so, suggests load" \
	eval '[ $RC = 3 ] && grep -q "^module: *not loaded" "$OUT" && grep -q "wakeplacectl load" "$OUT"'
check "status not loaded: last wakeplace: log line and EBUSY explanation" \
	eval 'grep -q "^last log: *wakeplace: select_task_rq_fair already has an ftrace IPMODIFY owner" "$OUT" && grep -q "^reason: *select_task_rq_fair is already patched by livepatch or another ftrace IPMODIFY user" "$OUT"'
run --sysfs "$TMPD/none" -j status
check "status not loaded -j: document with loaded=false, log, reason, exit 3" \
	eval '[ $RC = 3 ] && json_ok && jq -e "(.loaded == false) and (.log|test(\"IPMODIFY owner\")) and (.reason|test(\"livepatch\")) and (.error|test(\"not loaded\"))" "$OUT" >/dev/null'
echo "<3>[   12.000000] wakeplace: refusing: struct rq layout does not match (built for 6.1)" >>"$WAKEPLACE_DMESG"
run --sysfs "$TMPD/none" status
check "status not loaded: layout refusal explained" \
	eval '[ $RC = 3 ] && grep -q "^last log: *wakeplace: refusing: struct rq layout" "$OUT" && grep -q "^reason: .*layout does not match" "$OUT"'
echo "<3>[   13.000000] wakeplace: built for kernel build id 00112233, running 6a2b4ac7: rebuild for this kernel" >>"$WAKEPLACE_DMESG"
run --sysfs "$TMPD/none" status
check "status not loaded: build-id refusal explained" \
	eval '[ $RC = 3 ] && grep -q "^reason: .*another build of this kernel release" "$OUT"'
echo "<3>[   14.000000] wakeplace: sysctl_sched_features not found through kallsyms: cannot follow scheduler features" >>"$WAKEPLACE_DMESG"
run --sysfs "$TMPD/none" status
check "status not loaded: kallsyms refusal explained" \
	eval '[ $RC = 3 ] && grep -q "^reason: .*CONFIG_KALLSYMS_ALL" "$OUT"'
echo "6,1234,99000000,-;wakeplace: loaded, policy stock" >>"$WAKEPLACE_DMESG"
run --sysfs "$TMPD/none" status
check "status not loaded: /dev/kmsg record format understood, no reason for a benign line" \
	eval '[ $RC = 3 ] && grep -q "^last log: *wakeplace: loaded, policy stock" "$OUT" && ! grep -q "^reason:" "$OUT"'
: >"$WAKEPLACE_DMESG"
run --sysfs "$TMPD/none" status
check "status not loaded, nothing logged: no log line" eval '[ $RC = 3 ] && ! grep -q "^last log" "$OUT"'

# ---- load / unload with fake tools ----------------------------------------------------------
FAKE=$TMPD/fake
mkdir -p "$FAKE"
# The fake tools log their arguments; FAKE_FAIL holds the message to fail with.
cat >"$FAKE/insmod" <<EOF
#!/bin/bash
echo "\$*" >>"$TMPD/tool.log"
if [ -n "\${FAKE_FAIL:-}" ]; then echo "\$FAKE_FAIL" >&2; exit 1; fi
cp -a "$TEMPLATE" "$T"
EOF
cp "$FAKE/insmod" "$FAKE/modprobe"
cat >"$FAKE/rmmod" <<EOF
#!/bin/bash
echo "rmmod \$*" >>"$TMPD/tool.log"
if [ -n "\${FAKE_FAIL:-}" ]; then echo "\$FAKE_FAIL" >&2; exit 1; fi
rm -rf "$T"
EOF
chmod +x "$FAKE"/*
export WAKEPLACE_INSMOD="$FAKE/insmod" WAKEPLACE_MODPROBE="$FAKE/modprobe -q" WAKEPLACE_RMMOD="$FAKE/rmmod"
KO=$TMPD/wakeplace.ko
echo fake >"$KO"
log() { cat "$TMPD/tool.log" 2>/dev/null; }

if [ "$(id -u)" != 0 ]; then
	skip "load/unload with fake tools" "needs root (the tool checks for it)"
else
	rm -rf "$T"; : >"$TMPD/tool.log"
	run load --ko "$KO" --policy mirror -- sample=1 foo=bar
	check "load --ko --policy -- PARAMS: insmod PATH PARAMS, policy written" \
		eval '[ $RC = 0 ] && [ "$(log)" = "$KO sample=1 foo=bar" ] && [ "$(cat "$T/policy")" = mirror ] && [ ! -s "$OUT" ]'
	: >"$TMPD/tool.log"
	run load --ko "$KO"
	check "load when loaded: exit 1, insmod not run" \
		eval '[ $RC = 1 ] && grep -q "already loaded" "$ERR" && [ ! -s "$TMPD/tool.log" ]'
	run unload
	check "unload: rmmod wakeplace, tree gone" \
		eval '[ $RC = 0 ] && [ "$(log)" = "rmmod wakeplace" ] && [ ! -e "$T" ]'
	run unload
	check "unload when not loaded: exit 3" eval '[ $RC = 3 ] && grep -q "not loaded" "$ERR"'

	: >"$TMPD/tool.log"
	run -j load
	check "load without --ko: modprobe -q wakeplace; -j document" \
		eval '[ $RC = 0 ] && [ "$(log)" = "-q wakeplace" ] && json_ok && jq -e "(.loaded == true) and (.command == \"modprobe\") and (.policy == \"stock\")" "$OUT" >/dev/null'
	run -j unload
	check "unload -j" eval '[ $RC = 0 ] && json_ok && jq -e ".loaded == false" "$OUT" >/dev/null'

	run load --ko "$KO" --policy nope
	check "load --policy unknown: module loaded, exit 2 naming the policy" \
		eval '[ $RC = 2 ] && [ -d "$T" ] && grep -q "module loaded, but: unknown policy .nope." "$ERR" && [ "$(cat "$T/policy")" = stock ]'
	rm -rf "$T"
	run load --ko "$TMPD/missing.ko"
	check "load --ko missing file: exit 1, says build it" eval '[ $RC = 1 ] && grep -q "cannot read module file" "$ERR" && grep -q make "$ERR"'
	run load --ko "$KO" --policy 'x y'
	check "load --policy with a bad name: exit 2 before insmod" eval '[ $RC = 2 ] && [ ! -e "$T" ]'

	echo "[ 42.000000] wakeplace: kernel layout refused: struct rq offset mismatch" >"$WAKEPLACE_DMESG"
	fail_load() { # fail_load MESSAGE: run load with the fake tool failing so
		FAKE_FAIL=$1 run load --ko "$KO"
	}
	fail_load "insmod: ERROR: could not insert module $KO: Device or resource busy"
	check "load EBUSY: exit 1, livepatch/IPMODIFY explanation" \
		eval '[ $RC = 1 ] && [ $(wc -l <"$ERR") = 1 ] && grep -q "select_task_rq_fair is already patched by livepatch or another ftrace IPMODIFY user" "$ERR"'
	fail_load "insmod: ERROR: could not insert module $KO: Invalid parameters"
	check "load EINVAL: exit 1, prints the last wakeplace: log line" \
		eval '[ $RC = 1 ] && grep -q "Invalid argument" "$ERR" && grep -q "kernel log: wakeplace: kernel layout refused: struct rq offset mismatch" "$ERR"'
	fail_load "insmod: ERROR: could not insert module $KO: Unknown symbol in module"
	check "load ENOENT: exit 1, prints the last wakeplace: log line" \
		eval '[ $RC = 1 ] && grep -q "No such file or directory" "$ERR" && grep -q "kernel log: wakeplace: kernel layout refused" "$ERR"'
	fail_load "insmod: ERROR: could not insert module $KO: Operation not permitted"
	check "load EPERM: exit 4, lockdown/signature/root" \
		eval '[ $RC = 4 ] && grep -q "lockdown" "$ERR" && grep -q "signature" "$ERR" && grep -q "root" "$ERR"'
	fail_load "insmod: ERROR: could not insert module $KO: Key was rejected by service"
	check "load EKEYREJECTED: exit 4" eval '[ $RC = 4 ] && grep -q "signature" "$ERR"'
	fail_load "insmod: ERROR: could not insert module $KO: Invalid module format"
	check "load ENOEXEC: exit 1, built for another kernel" eval '[ $RC = 1 ] && grep -q "built for another kernel" "$ERR"'
	fail_load "insmod: ERROR: could not insert module $KO: File exists"
	check "load EEXIST: exit 1, already loaded" eval '[ $RC = 1 ] && grep -q "already loaded" "$ERR"'
	FAKE_FAIL="insmod: ERROR: could not insert module $KO: Device or resource busy" run -j load --ko "$KO"
	check "load failure -j: error document, exit 1" \
		eval '[ $RC = 1 ] && json_ok && jq -e ".error|test(\"IPMODIFY\")" "$OUT" >/dev/null && [ ! -s "$ERR" ]'
	FAKE_FAIL="modprobe: FATAL: Module wakeplace not found in directory /lib/modules/6.1.0-57-amd64" run load
	check "modprobe: not installed: exit 1, suggests --ko" eval '[ $RC = 1 ] && grep -q "not installed" "$ERR" && grep -q -- "--ko" "$ERR"'
	WAKEPLACE_INSMOD=$TMPD/no-such-insmod run load --ko "$KO"
	check "load: missing insmod command: exit 1" eval '[ $RC = 1 ] && grep -q "cannot run" "$ERR"'
	[ ! -e "$T" ] && ok "failed loads left no tree behind" || not_ok "failed loads left no tree behind"

	cp -a "$TEMPLATE" "$T"
	FAKE_FAIL="rmmod: ERROR: Module wakeplace is in use" run unload
	check "unload in use: exit 1, explained" eval '[ $RC = 1 ] && grep -q "in use" "$ERR" && [ -d "$T" ]'
	FAKE_FAIL="rmmod: ERROR: could not remove module wakeplace: Operation not permitted" run unload
	check "unload EPERM: exit 4" eval '[ $RC = 4 ]'

	if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
		RC=0; setpriv --reuid=65534 --regid=65534 --clear-groups "$WP_CTL" unload >"$OUT" 2>"$ERR" || RC=$?
		check "unload as non-root: exit 4 before rmmod" eval '[ $RC = 4 ] && grep -q root "$ERR" && [ -d "$T" ]'
		rm -rf "$T"
		# shellcheck disable=SC2034 # read by the eval'd check below
		{ RC=0; setpriv --reuid=65534 --regid=65534 --clear-groups "$WP_CTL" load --ko "$KO" >"$OUT" 2>"$ERR" || RC=$?; }
		check "load as non-root: exit 4 before insmod" eval '[ $RC = 4 ] && grep -q root "$ERR" && [ ! -e "$T" ]'
	else
		skip "load/unload as non-root" "setpriv does not work here"
	fi
fi

# ---- man page, completion, install ---------------------------------------------------------
MAN=$CTL_TOP/ctl/wakeplacectl.8
ABI=$CTL_TOP/docs/sysfs-kernel-wakeplace
for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
	grep -q "^\.SH \"\?$s\"\?$" "$MAN" || missing="${missing:-} $s"
done
[ -z "${missing:-}" ] && ok "man page has all sections" || not_ok "man page has all sections" "missing:$missing"
if [ -r "$ABI" ]; then
	missing=""
	for p in $(sed -n 's/^What:[[:space:]]*//p' "$ABI"); do
		p=${p%/}
		grep -qF "${p//-/\\-}" "$MAN" || grep -qF "$p" "$MAN" || missing="$missing $p"
	done
	[ -z "$missing" ] && ok "man page FILES names every sysfs path of the ABI" ||
		not_ok "man page FILES names every sysfs path of the ABI" "missing:$missing"
else
	skip "man page FILES names every sysfs path of the ABI" "no docs/sysfs-kernel-wakeplace"
fi
if command -v man >/dev/null; then
	w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$MAN" 2>&1 >/dev/null)
	[ -z "$w" ] && ok "man page renders without warnings" || not_ok "man page renders without warnings" "$w"
else
	skip "man page renders without warnings" "man not installed"
fi

make_tree "$T"
# shellcheck source=/dev/null
. "$CTL_TOP/ctl/bash-completion/wakeplacectl"
compopt() { :; }
comp() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _wakeplacectl; echo "${COMPREPLY[*]}"; }
check "completion: objects" eval '[ "$(comp wakeplacectl "")" = "status policy tune stats watch auto apply shadow load unload help" ]'
check "completion: commands after a prefix object" eval '[ "$(comp wakeplacectl pol "")" = "list show set unset help" ]'
check "completion: policy names read live" eval '[ "$(comp wakeplacectl policy set "")" = "$FAKE_POLICIES" ]'
check "completion: tunable keys" eval '[ "$(comp wakeplacectl -j tune cachehot "")" = "hot_us= short_us=" ] && [ "$(comp wakeplacectl -j tune cachehot s)" = "short_us=" ]'
check "completion: --sysfs DIR honoured" eval '[ "$(WAKEPLACE_SYSFS=/nonexistent comp wakeplacectl --sysfs "$T" shadow set m)" = "mirror" ]'
check "completion: stats options" eval 'comp wakeplacectl stats --p | grep -q -- "--policy"'
check "completion: stats --outcomes" eval '[ "$(comp wakeplacectl stats --o)" = "--outcomes" ]'
check "completion: stats latency, latency-sample" eval '[ "$(comp wakeplacectl stats l | tr "\n" " ")" = "latency latency-sample " ]'
check "completion: stats latency on|off|sample" eval '[ "$(comp wakeplacectl stats latency "" | tr "\n" " ")" = "on off sample " ]'

DEST=$TMPD/inst
if make -s -C "$CTL_TOP/ctl" install DESTDIR="$DEST" PREFIX=/usr/local >"$OUT" 2>"$ERR"; then
	check "make install: binary, man page, completion" \
		eval '[ -x "$DEST/usr/local/sbin/wakeplacectl" ] && [ -f "$DEST/usr/local/share/man/man8/wakeplacectl.8" ] && [ -f "$DEST/usr/local/share/bash-completion/completions/wakeplacectl" ]'
else
	not_ok "make install" "$(cat "$ERR")"
fi

done_testing
