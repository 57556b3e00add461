#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# wakeplacectl's policy per cgroup (issue 23) against a fake sysfs tree
# with the cgroups and cgroups_max files, and a fake cgroup2 mount
# (directories with cgroup.procs, named by a mounts file in
# $WAKEPLACE_MOUNTS): policy set/unset --cgroup and the path forms, policy
# list's assignments (text and -j), the refusals (bad or missing cgroup, no
# cgroup2 mount, a module without the cgroups file, not loaded), what the
# module's errnos become, and apply: the parser and its FILE:LINE errors,
# the plan (removals, changes, additions), -n, -j, --wait, and a write
# refused midway.  A plain file keeps only the last write and never fails:
# tests/tools/writefault.c, an LD_PRELOAD shim built here, logs every write
# to the cgroups file in order and fails a chosen one with a chosen errno.
# TAP output.
# shellcheck disable=SC2034 # variables read by the checks' eval strings
set -u
. "$(dirname "$0")/../../ctl/test-lib.sh"

T=$TMPD/sys
CG=$TMPD/cgroup2		# the fake cgroup2 mount point
MOUNTS=$TMPD/mounts
LOG=$TMPD/writes
export WAKEPLACE_SYSFS=$T WAKEPLACE_MOUNTS=$MOUNTS

# mkcg PATH...: cgroups (a directory with cgroup.procs) below the mount.
mkcg() {
	local p
	for p; do
		mkdir -p "$CG$p" && : >"$CG$p/cgroup.procs"
	done
}
# fresh: a loaded module without assignments, cgroups_max 64.
fresh() {
	make_tree "$T"
	: >"$T/cgroups"
	echo 64 >"$T/cgroups_max"
	rm -f "$LOG"
}
# table LINE...: the module's table ("ID POLICY STATE PATH" lines).
table() {
	printf '%s\n' "$@" >"$T/cgroups"
}
mkcg / /system.slice /system.slice/db.service /batch /batch/low /web "/with space"
mkdir -p "$CG/notacgroup"
# A cgroup v1 hierarchy first, then the cgroup2 mount, then a second one
# (the first counts).
printf '%s\n' "proc /proc proc rw 0 0" "cpu /sys/fs/cgroup/cpu cgroup rw,cpu 0 0" \
	"cgroup2 $CG cgroup2 rw,nosuid,nodev,noexec 0 0" "cgroup2 $TMPD/other cgroup2 rw 0 0" >"$MOUNTS"
fresh

# The write shim: runw ARGS... runs the tool with it, every write to the
# cgroups file in $LOG; WP_FAULT_AT=N:ERRNO in the environment fails one.
SHIM=$TMPD/writefault.so
if ! cc -shared -fPIC -O2 -o "$SHIM" "$CTL_TOP/tests/tools/writefault.c" -ldl 2>"$ERR"; then
	SHIM=
	tap_diag "cannot build tests/tools/writefault.c: $(cat "$ERR")"
fi
runw() {
	rm -f "$LOG"
	WP_FAULT_FILE=$(readlink -f "$T/cgroups") WP_FAULT_LOG=$LOG LD_PRELOAD=$SHIM run "$@"
}
# logged: the writes of the last runw, one a line.
logged() {
	cat "$LOG" 2>/dev/null
}
# the shim works: a write through it is logged, a fault refuses it.
if [ -n "$SHIM" ]; then
	WP_FAULT_AT=1:EINVAL runw policy set idlemask --cgroup /web
	[ "$RC" = 1 ] && [ "$(logged)" = "!EINVAL /web idlemask" ] && [ ! -s "$T/cgroups" ] || SHIM=
fi
# shim DESC: the shim is there, else DESC is skipped.
shim() {
	[ -n "$SHIM" ] && return 0
	skip "$1" "the write shim (tests/tools/writefault.c) does not build or work here"
	return 1
}

# ---- policy set / unset --cgroup: the path forms -------------------------------------
fresh
run policy set idlemask --cgroup /system.slice/db.service
check "set --cgroup /PATH: writes 'PATH POLICY', prints nothing" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/system.slice/db.service idlemask" ] && [ ! -s "$OUT" ] && [ ! -s "$ERR" ]'
run policy set noscan --cgroup system.slice/db.service
check "set --cgroup relative PATH: from the cgroup2 root" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/system.slice/db.service noscan" ]'
run policy set noscan --cgroup "$CG/batch/low"
check "set --cgroup with a path below the mount point: the mount point stripped" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/batch/low noscan" ]'
run policy set noscan --cgroup "$CG//batch///low/"
check "set --cgroup: '//' collapse, a trailing '/' goes" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/batch/low noscan" ]'
run policy set noscan --cgroup "/batch/./low/."
check "set --cgroup: '.' components go" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/batch/low noscan" ]'
run policy set mirror --cgroup "$CG"
check "set --cgroup MOUNTPOINT: the root cgroup, '/'" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/ mirror" ]'
run policy set mirror --cgroup "$CG/"
check "set --cgroup MOUNTPOINT/: the root cgroup too" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/ mirror" ]'
run policy set idlemask --cgroup "/with space"
check "set --cgroup: a path with a space is written whole, policy last" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/with space idlemask" ]'
run policy set idlemask --cgroup="/web"
check "set --cgroup=PATH" eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/web idlemask" ]'
run policy set --cgroup /web noscan
check "set --cgroup PATH NAME: the option anywhere after set" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/web noscan" ]'
run -v policy set idlecore --cgroup /batch
check "set --cgroup -v: says what it wrote" \
	eval '[ $RC = 0 ] && grep -qx "cgroup /batch: idlecore" "$OUT" && grep -q "write .*/cgroups: /batch idlecore" "$ERR"'
run -j policy set util --cgroup "$CG/batch"
check "set --cgroup -j: {cgroup, id (the directory's inode), policy}" \
	eval '[ $RC = 0 ] && json_ok && [ "$(jq -c "[.cgroup, .id, .policy]" "$OUT")" = "[\"/batch\",$(stat -c %i "$CG/batch"),\"util\"]" ]'
run policy set mirror
check "set NAME without --cgroup: the machine-wide policy as before, cgroups untouched" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/policy")" = mirror ] && [ "$(cat "$T/cgroups")" = "/batch util" ]'
run policy unset --cgroup /batch
check "unset --cgroup: writes 'PATH unset'" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/batch unset" ] && [ ! -s "$OUT" ]'
run -j policy unset --cgroup "$CG/system.slice/db.service/"
check "unset --cgroup -j: {cgroup, id, policy null}" \
	eval '[ $RC = 0 ] && json_ok && [ "$(jq -c "[.cgroup, .policy]" "$OUT")" = "[\"/system.slice/db.service\",null]" ] &&
	      [ "$(cat "$T/cgroups")" = "/system.slice/db.service unset" ]'
run policy u --cgroup /web
check "'policy u' is unset" eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/web unset" ]'

# A policy other than stock places through the hook: set waits for it.
echo attaching >"$T/hook"
(sleep 1; echo attached >"$T/hook.new" && mv "$T/hook.new" "$T/hook") &
run policy set idlemask --cgroup /web
hook=$(cat "$T/hook")
wait
check "set --cgroup waits while the hook is attaching (returns once attached)" \
	eval '[ $RC = 0 ] && [ "$hook" = attached ]'
echo attaching >"$T/hook"
run policy set stock --cgroup /web
check "set stock --cgroup does not wait for the hook" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/web stock" ]'
echo attached >"$T/hook"

# ---- refusals: exit code, one line, nothing written ---------------------------------------
fresh
table "7 noscan assigned /web"
bad() { # bad EXPECTED_RC PATTERN DESC ARGS...
	local want=$1 pat=$2 desc=$3 before after
	shift 3
	before=$(tree_sum "$T")
	run "$@"
	after=$(tree_sum "$T")
	if [ "$RC" = "$want" ] && [ "$before" = "$after" ] && [ "$(wc -l <"$ERR")" = 1 ] &&
	   grep -q -- "$pat" "$ERR" && [ ! -s "$OUT" ]; then
		ok "refused ($want), nothing written: $desc"
	else
		not_ok "refused ($want), nothing written: $desc" "rc=$RC tree $([ "$before" = "$after" ] && echo same || echo CHANGED)" \
			"stderr: $(cat "$ERR")" "stdout: $(head -c 500 "$OUT")"
	fi
}
bad 2 "'\.\.' is not allowed" "'..' component" policy set idlemask --cgroup /batch/../web
bad 2 "'\.\.' is not allowed" "'..' in a file system path" policy set idlemask --cgroup "$CG/batch/.."
bad 2 "'\.\.' is not allowed" "a relative '..'" policy set idlemask --cgroup ../web
bad 2 "no cgroup /nope (no directory $CG/nope)" "a missing cgroup, named with its directory" \
	policy set idlemask --cgroup /nope
bad 2 "no cgroup /tmp/elsewhere" "an absolute path outside the mount is from the cgroup2 root" \
	policy set idlemask --cgroup /tmp/elsewhere
bad 2 "is not a cgroup (no cgroup.procs)" "a directory without cgroup.procs" policy set idlemask --cgroup /notacgroup
bad 2 "bad cgroup path '': empty" "an empty path" policy set idlemask --cgroup ""
bad 2 "control character" "a newline in the path" policy set idlemask --cgroup $'/web\n/batch idlemask'
bad 2 "unknown policy 'nope'" "an unknown policy" policy set nope --cgroup /web
bad 2 "tunables are machine-wide" "KEY=VALUE with --cgroup" policy set bounded scan_max=2 --cgroup /web
bad 2 "given twice" "--cgroup twice" policy set idlemask --cgroup /web --cgroup /batch
bad 2 "needs a value" "--cgroup without PATH" policy set idlemask --cgroup
bad 2 "missing policy NAME" "--cgroup without NAME" policy set --cgroup /web
bad 2 "needs --cgroup PATH" "unset without --cgroup" policy unset
bad 2 "takes --cgroup PATH only" "unset with a stray argument" policy unset --cgroup /web extra
bad 2 "no cgroup /nope" "unset of a missing cgroup" policy unset --cgroup /nope
bad 2 "ambiguous object 'a': auto, apply" "'a' is ambiguous now" a

# No cgroup v2: a cgroup v1-only system (its mounts have no cgroup2 line).
grep -v cgroup2 "$MOUNTS" >"$TMPD/mounts.v1"
WAKEPLACE_MOUNTS=$TMPD/mounts.v1 bad 1 "need cgroup v2.*v1-only" "no cgroup2 mount: set" \
	policy set idlemask --cgroup /web
WAKEPLACE_MOUNTS=$TMPD/mounts.v1 bad 1 "need cgroup v2.*v1-only" "no cgroup2 mount: unset" \
	policy unset --cgroup /web
printf '/web idlemask\n' >"$TMPD/one.conf"
WAKEPLACE_MOUNTS=$TMPD/mounts.v1 bad 1 "need cgroup v2.*v1-only" "no cgroup2 mount: apply" \
	apply "$TMPD/one.conf"
WAKEPLACE_MOUNTS=$TMPD/mounts.v1 run -j policy set idlemask --cgroup /web
check "no cgroup2 mount -j: the error document, exit 1" \
	eval '[ $RC = 1 ] && json_ok && jq -e ".error|test(\"cgroup v2\")" "$OUT" >/dev/null'
WAKEPLACE_MOUNTS=$TMPD/none bad 1 "cannot read $TMPD/none" "an unreadable mounts file" policy set idlemask --cgroup /web
# A mount point with a blank: /proc/self/mounts writes it as \040.
SP="$TMPD/cg root"
mkdir -p "$SP/db" && : >"$SP/cgroup.procs" && : >"$SP/db/cgroup.procs"
printf 'cgroup2 %s cgroup2 rw 0 0\n' "${SP// /\\040}" >"$TMPD/mounts.sp"
WAKEPLACE_MOUNTS=$TMPD/mounts.sp run policy set idlemask --cgroup "$SP/db"
check "a mount point with a blank (\\040 in mounts): found and stripped" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/db idlemask" ]'
table "7 noscan assigned /web"

# A module older than per-cgroup policies: no cgroups file.
rm "$T/cgroups" "$T/cgroups_max"
bad 1 "no per-cgroup policies.*load a newer one" "older module: set --cgroup" policy set idlemask --cgroup /web
bad 1 "no per-cgroup policies.*load a newer one" "older module: unset --cgroup" policy unset --cgroup /web
bad 1 "no per-cgroup policies.*load a newer one" "older module: apply" apply "$TMPD/one.conf"
run policy list
check "older module: policy list works, without a cgroups section" \
	eval '[ $RC = 0 ] && grep -q "^\* stock" "$OUT" && ! grep -q "cgroup" "$OUT"'
run -j policy list
check "older module: policy list -j has cgroups and cgroups_max null" \
	eval '[ $RC = 0 ] && json_ok && [ "$(jq -c "[.cgroups, .cgroups_max, (.policies|length > 0)]" "$OUT")" = "[null,null,true]" ]'
fresh

# Not loaded: 3, as every command.
for cmd in "policy set idlemask --cgroup /web" "policy unset --cgroup /web" "apply $TMPD/one.conf" "apply -n $TMPD/one.conf"; do
	# shellcheck disable=SC2086
	RC=0; "$WP_CTL" --sysfs "$TMPD/none" $cmd >"$OUT" 2>"$ERR" || RC=$?
	check "not loaded: '${cmd/$TMPD/TMP}' exits 3" eval '[ $RC = 3 ] && grep -q "not loaded" "$ERR"'
done

# ---- what the module's errnos become ---------------------------------------------------------
fresh
if shim "the module's errnos"; then
	echo 5 >"$T/cgroups_max"
	WP_FAULT_AT=1:ENOSPC runw policy set idlemask --cgroup /web
	check "ENOSPC: 'the table is full (N assignments, cgroups_max)', exit 1" \
		eval '[ $RC = 1 ] && grep -q "cannot assign idlemask to /web: the table is full (5 assignments, cgroups_max)" "$ERR" && [ "$(wc -l <"$ERR")" = 1 ]'
	WP_FAULT_AT=1:ENOSPC runw -j policy set idlemask --cgroup /web
	check "ENOSPC -j: the error document" \
		eval '[ $RC = 1 ] && json_ok && jq -e ".error|test(\"table is full\")" "$OUT" >/dev/null && [ ! -s "$ERR" ]'
	WP_FAULT_AT=1:ENOENT runw policy set idlemask --cgroup /web
	check "ENOENT on set: no such cgroup (removed meanwhile), exit 1" \
		eval '[ $RC = 1 ] && grep -q "cannot assign idlemask to /web: no such cgroup" "$ERR"'
	WP_FAULT_AT=1:ENOENT runw policy unset --cgroup /web
	check "ENOENT on unset: the cgroup has no policy of its own, exit 1" \
		eval '[ $RC = 1 ] && grep -q "cannot unset /web: it has no policy of its own" "$ERR"'
	WP_FAULT_AT=1:EINVAL runw policy set idlemask --cgroup /web
	check "EINVAL: the module refused the command, quoted, exit 1" \
		eval '[ $RC = 1 ] && grep -q "the module refused \"/web idlemask\"" "$ERR"'
	WP_FAULT_AT=1:ENODEV runw policy set idlemask --cgroup /web
	check "ENODEV: the module is unloading, exit 3" \
		eval '[ $RC = 3 ] && grep -q "unloading" "$ERR"'
	WP_FAULT_AT=1:EACCES runw policy set idlemask --cgroup /web
	check "EACCES: run as root, exit 4" \
		eval '[ $RC = 4 ] && grep -q "Permission denied; run as root" "$ERR"'
fi

# ---- policy list ------------------------------------------------------------------------------
fresh
run policy list
check "policy list, no assignment: the policies, then 'cgroups: 0 assigned, at most 64', no header" \
	eval '[ $RC = 0 ] && grep -q "^\* stock" "$OUT" && [ "$(tail -n 1 "$OUT")" = "cgroups: 0 assigned, at most 64" ] && ! grep -q CGROUP "$OUT"'
table "12 idlemask assigned /system.slice/db.service" "13 stock reverted /batch" "14 noscan removed /gone with space"
run policy list
check "policy list: a section after the policies, one line per assignment: path, policy, state, id" \
	eval '[ $RC = 0 ] && [ "$(sed -n "/^cgroups:/,\$p" "$OUT")" = "cgroups: 2 assigned, at most 64
  CGROUP                    POLICY    STATE     ID
  /system.slice/db.service  idlemask  assigned  12
  /batch                    stock     reverted  13
  /gone with space          noscan    removed   14" ] && [ "$(grep -c "the .* policy" "$OUT")" = "$(wc -w <<<"$FAKE_POLICIES")" ]'
run -j policy list
check "policy list -j: cgroups [{id, path, policy, state}] and cgroups_max, besides the policies" \
	eval '[ $RC = 0 ] && json_ok && [ "$(jq -c ".cgroups" "$OUT")" = "[{\"id\":12,\"path\":\"/system.slice/db.service\",\"policy\":\"idlemask\",\"state\":\"assigned\"},{\"id\":13,\"path\":\"/batch\",\"policy\":\"stock\",\"state\":\"reverted\"},{\"id\":14,\"path\":\"/gone with space\",\"policy\":\"noscan\",\"state\":\"removed\"}]" ] &&
	      [ "$(jq ".cgroups_max" "$OUT")" = 64 ] && [ "$(jq -r ".active" "$OUT")" = stock ]'
table "12 idlemask assigned"
run policy list
check "policy list: a malformed table line fails naming the line, exit 1" \
	eval '[ $RC = 1 ] && grep -q "malformed line 1 of .*/cgroups" "$ERR"'
table "12 idlemask assigned /web"
echo many >"$T/cgroups_max"
run -j policy list
check "policy list: a malformed cgroups_max fails, exit 1" eval '[ $RC = 1 ] && json_ok && jq -e ".error|test(\"cgroups_max\")" "$OUT" >/dev/null'

# ---- apply: a good file ----------------------------------------------------------------------
fresh
cat >"$TMPD/good.conf" <<EOF
# wakeplace: a policy per cgroup

   /system.slice/db.service	idlemask   # the database
batch/low noscan
$CG/web/ idlecore
	# an indented comment
/batch mirror
EOF
G=$TMPD/good.conf
if shim "apply: the writes"; then
	runw apply "$G"
	check "apply on an empty table: one write per line in file order, comments and blanks skipped" \
		eval '[ $RC = 0 ] && [ "$(logged)" = "/system.slice/db.service idlemask
/batch/low noscan
/web idlecore
/batch mirror" ]'
	check "apply: says what it added, then the summary" \
		eval '[ "$(cat "$OUT")" = "added     /system.slice/db.service idlemask
added     /batch/low noscan
added     /web idlecore
added     /batch mirror
$G: 4 added, 0 changed, 0 removed, 0 unchanged" ]'
	table "12 idlemask assigned /system.slice/db.service" "13 noscan assigned /batch" "15 util assigned /old" \
		"16 stock reverted /web" "17 noscan removed /gone" "18 util assigned /with space"
	runw apply "$G"
	check "apply: assignments not in the file unset first, then the changes (a reverted one written again), then the additions" \
		eval '[ $RC = 0 ] && [ "$(logged)" = "/old unset
/with space unset
/web idlecore
/batch mirror
/batch/low noscan" ]'
	check "apply: removed, changed (reverted shown), added lines and the summary; unchanged only counted" \
		eval '[ "$(cat "$OUT")" = "removed   /old (was util)
removed   /with space (was util)
changed   /web stock (reverted) -> idlecore
changed   /batch noscan -> mirror
added     /batch/low noscan
$G: 1 added, 2 changed, 2 removed, 1 unchanged" ]'
	table "12 idlemask assigned /system.slice/db.service"
	run -v apply "$G"
	check "apply -v: the unchanged ones too" eval 'grep -qx "unchanged /system.slice/db.service idlemask" "$OUT"'
	table "12 idlemask assigned /system.slice/db.service" "13 mirror assigned /batch" "15 idlecore assigned /web" \
		"16 noscan assigned /batch/low"
	runw apply "$G"
	check "apply when the module already has the file's assignments: no write" \
		eval '[ $RC = 0 ] && [ -z "$(logged)" ] && [ "$(tail -n 1 "$OUT")" = "$G: 0 added, 0 changed, 0 removed, 4 unchanged" ]'
	table "17 idlemask removed /web" "12 idlemask assigned /system.slice/db.service" "13 mirror assigned /batch" \
		"16 noscan assigned /batch/low"
	runw apply "$G"
	check "apply: a removed line of the same path is no assignment: it is added" \
		eval '[ $RC = 0 ] && [ "$(logged)" = "/web idlecore" ]'
	table "12 idlemask assigned /system.slice/db.service" "13 mirror assigned /batch" "15 idlecore assigned /web" \
		"16 noscan assigned /batch/low" "17 util removed /gone"
	runw apply /dev/null
	check "apply of an empty file unsets every assignment" \
		eval '[ $RC = 0 ] && [ "$(logged | sort)" = "$(printf "%s unset\n" /batch /batch/low /system.slice/db.service /web | sort)" ]'
	table "13 noscan assigned /batch" "15 util assigned /old" "16 stock reverted /web"
	runw -j apply "$G"
	check "apply -j: added, changed, removed, unchanged: {path, id, policy, previous, reverted, line}" \
		eval '[ $RC = 0 ] && json_ok && [ "$(jq -c "[.dry_run, [.added[].path], [.changed[] | [.path, .previous, .policy, .reverted, .line]], [.removed[] | [.path, .id, .previous, .line]], .unchanged]" "$OUT")" = "[false,[\"/system.slice/db.service\",\"/batch/low\"],[[\"/web\",\"stock\",\"idlecore\",true,5],[\"/batch\",\"noscan\",\"mirror\",false,7]],[[\"/old\",15,\"util\",null]],[]]" ] &&
		      [ "$(jq ".added[0].id" "$OUT")" = "$(stat -c %i "$CG/system.slice/db.service")" ]'
	# -n: the plan, nothing written.
	table "13 noscan assigned /batch" "15 util assigned /old"
	before=$(tree_sum "$T")
	runw apply -n "$G"
	check "apply -n: prints what it would do, writes nothing" \
		eval '[ $RC = 0 ] && [ -z "$(logged)" ] && [ "$before" = "$(tree_sum "$T")" ] && [ "$(cat "$OUT")" = "remove    /old (was util)
change    /batch noscan -> mirror
add       /system.slice/db.service idlemask
add       /batch/low noscan
add       /web idlecore
$G: dry run, nothing written: 3 to add, 1 to change, 1 to remove, 0 unchanged" ]'
	runw -j apply --dry-run "$G"
	check "apply --dry-run -j: the plan with dry_run true, nothing written" \
		eval '[ $RC = 0 ] && json_ok && [ -z "$(logged)" ] && [ "$(jq -c "[.dry_run, (.added|length), (.changed|length), (.removed|length)]" "$OUT")" = "[true,3,1,1]" ]'

	# A write refused midway: what was done is said, the rest not tried.
	table "15 util assigned /old"
	WP_FAULT_AT=3:ENOSPC runw apply "$G"
	check "apply, a write refused midway: stops there, the writes before it stay" \
		eval '[ $RC = 1 ] && [ "$(logged)" = "/old unset
/system.slice/db.service idlemask
!ENOSPC /batch/low noscan" ]'
	check "... the message names FILE:LINE, the reason, what was done and not done, no transaction" \
		eval '[ "$(wc -l <"$ERR")" = 1 ] && grep -q "^wakeplacectl: $G:4: cannot assign noscan to /batch/low: the table is full (64 assignments, cgroups_max)" "$ERR" &&
		      grep -q "2 writes done before it, 3 not done" "$ERR" && grep -q "no transaction" "$ERR" &&
		      [ "$(cat "$OUT")" = "removed   /old (was util)
added     /system.slice/db.service idlemask" ]'
	table "15 util assigned /old"
	WP_FAULT_AT=1:EACCES runw -j apply "$G"
	check "apply -j, the first write refused: failed, not_applied, error; exit 4" \
		eval '[ $RC = 4 ] && json_ok && [ "$(logged)" = "!EACCES /old unset" ] &&
		      jq -e --arg e "$G: cannot unset /old (not in the file): " ".removed == [] and .failed.action == \"remove\" and .failed.path == \"/old\" and (.not_applied|length) == 5 and (.error|startswith(\$e))" "$OUT" >/dev/null'
fi

# ---- apply: refused files: every error as FILE:LINE, nothing written ----------------------------
fresh
table "15 util assigned /old"
B=$TMPD/bad.conf
cat >"$B" <<EOF
# good, and bad
/web idlemask
/web/../batch noscan
/batch nope
/system.slice/db.service idlemask extra
/batch/low
$CG/web/ noscan
/missing idlemask
/notacgroup noscan
/batch mirror
EOF
before=$(tree_sum "$T")
runw apply "$B"
check "apply, a bad file: exit 2, nothing written, nothing on stdout" \
	eval '[ $RC = 2 ] && [ "$before" = "$(tree_sum "$T")" ] && [ -z "$(logged)" ] && [ ! -s "$OUT" ]'
check "... every error as FILE:LINE: reason, in line order, then the count" \
	eval '[ "$(cat "$ERR")" = "$B:3: bad cgroup path '"'"'/web/../batch'"'"': '"'"'..'"'"' is not allowed
$B:4: unknown policy '"'"'nope'"'"' (available: $(echo $FAKE_POLICIES))
$B:5: expected PATH POLICY, found more fields (a path in this file cannot contain spaces)
$B:6: expected PATH POLICY, found one field
$B:7: /web given twice (first on line 2)
$B:8: no cgroup /missing (no directory $CG/missing)
$B:9: $CG/notacgroup is not a cgroup (no cgroup.procs)
$B:10: /batch given twice (first on line 4)
wakeplacectl: $B: 8 errors; nothing applied" ]'
runw -j apply "$B"
check "apply -j, a bad file: errors [{line, reason}] and error, exit 2" \
	eval '[ $RC = 2 ] && json_ok && [ -z "$(logged)" ] && [ "$(jq -c "[.errors[].line]" "$OUT")" = "[3,4,5,6,7,8,9,10]" ] &&
	      jq -e ".error == \"$B: 8 errors; nothing applied\"" "$OUT" >/dev/null'
printf '/web idlemask\n/batch noscan\n/batch/low noscan\n/system.slice idlemask\n' >"$TMPD/many.conf"
echo 3 >"$T/cgroups_max"
runw apply "$TMPD/many.conf"
check "apply: more assignments than cgroups_max: refused at the first one too many" \
	eval '[ $RC = 2 ] && [ -z "$(logged)" ] && grep -qx "$TMPD/many.conf:4: 4 assignments in the file, more than cgroups_max (3): this is the first too many" "$ERR"'
echo 64 >"$T/cgroups_max"
printf '/web idlemask\n/web idlecore\n%s/web noscan\n' "$CG" >"$TMPD/dup.conf"
runw apply -n "$TMPD/dup.conf"
check "apply: the same cgroup named twice, in any form: each repeat refused" \
	eval '[ $RC = 2 ] && [ "$(grep -c "/web given twice (first on line 1)" "$ERR")" = 2 ]'
printf '/web idlemask\n' >"$TMPD/long.conf"
printf '/%s idlemask\n' "$(printf 'x%.0s' $(seq 5000))" >>"$TMPD/long.conf"
runw apply "$TMPD/long.conf"
check "apply: a line longer than 4096 characters refused" eval '[ $RC = 2 ] && grep -q ":2: line too long" "$ERR"'
run apply "$TMPD/no-such.conf"
check "apply: a missing file, exit 1, named" eval '[ $RC = 1 ] && grep -q "cannot read $TMPD/no-such.conf" "$ERR"'
if [ ! -e /etc/wakeplace/cgroups.conf ]; then
	run apply -n
	check "apply without FILE reads /etc/wakeplace/cgroups.conf" \
		eval '[ $RC = 1 ] && grep -q "cannot read /etc/wakeplace/cgroups.conf" "$ERR"'
else
	skip "apply without FILE reads /etc/wakeplace/cgroups.conf" "this host has one"
fi
bad 2 "invalid wait" "apply --wait -1" apply --wait -1 "$G"
bad 2 "invalid wait" "apply --wait abc" apply --wait abc "$G"
bad 2 "invalid wait" "apply --wait above 3600" apply --wait 3601 "$G"
bad 2 "needs a value" "apply --wait without a value" apply "$G" --wait
bad 2 "takes one FILE" "apply with two files" apply "$G" "$B"
bad 2 "unknown apply option" "apply with an unknown option" apply --frob "$G"

# ---- apply --wait: a cgroup made after apply started ------------------------------------------
fresh
printf '/web idlemask\n/late/comer noscan\n' >"$TMPD/late.conf"
run apply "$TMPD/late.conf"
check "apply without --wait: a missing cgroup is an error at once" \
	eval '[ $RC = 2 ] && grep -q ":2: no cgroup /late/comer" "$ERR" && [ ! -s "$T/cgroups" ]'
(sleep 1; mkcg /late /late/comer) &
t0=$(date +%s)
run apply --wait 60 "$TMPD/late.conf"
t1=$(date +%s)
wait
check "apply --wait 60: the cgroup made a second later is waited for, then applied" \
	eval '[ $RC = 0 ] && [ "$(cat "$T/cgroups")" = "/late/comer noscan" ] && grep -q "2 added" "$OUT" && [ $((t1 - t0)) -lt 55 ]'
rm -r "$CG/late"
t0=$(date +%s.%N)
run apply --wait 1 "$TMPD/late.conf"
t1=$(date +%s.%N)
check "apply --wait 1, the cgroup never comes: refused after waiting at least 1 s" \
	eval '[ $RC = 2 ] && grep -q ":2: no cgroup /late/comer" "$ERR" && awk -v a="$t0" -v b="$t1" "BEGIN { exit !(b - a >= 1) }"'
printf '/web nope\n/late/comer noscan\n' >"$TMPD/late2.conf"
t0=$(date +%s)
run apply --wait 60 "$TMPD/late2.conf"
t1=$(date +%s)
check "apply --wait with another error: no wait, both errors reported" \
	eval '[ $RC = 2 ] && grep -q ":1: unknown policy" "$ERR" && grep -q ":2: no cgroup /late/comer" "$ERR" && [ $((t1 - t0)) -lt 30 ]'

# ---- the shipped example and unit ----------------------------------------------------------------
fresh
mkcg /batch.slice /batch.slice/latency.service
EX=$CTL_TOP/packaging/wakeplace/cgroups.conf
run apply -n "$EX"
check "the example config (packaging/wakeplace/cgroups.conf) is only comments: nothing to apply" \
	eval '[ $RC = 0 ] && [ "$(tail -n 1 "$OUT")" = "$EX: dry run, nothing written: 0 to add, 0 to change, 0 to remove, 0 unchanged" ]'
sed 's,^#/,/,' "$EX" >"$TMPD/example.conf"
# The unit's ExecStart, its file replaced by the example uncommented.
read -r -a unit < <(sed -n 's,^ExecStart=[^ ]*wakeplacectl ,,p' "$CTL_TOP/packaging/systemd/wakeplace-cgroups.service")
unit=("${unit[@]/\/etc\/wakeplace\/cgroups.conf/$TMPD/example.conf}")
if shim "the unit's ExecStart on the example"; then
	runw "${unit[@]}"
	check "the unit's ExecStart (${unit[*]/$TMPD/TMP}) applies the example's lines, uncommented" \
		eval '[ $RC = 0 ] && [ "${unit[0]}" = apply ] && [ "$(logged)" = "/system.slice/db.service idlemask
/batch.slice noscan
/batch.slice/latency.service stock" ]'
fi
grep -q '^ConditionPathExists=/etc/wakeplace/cgroups.conf$' "$CTL_TOP/packaging/systemd/wakeplace-cgroups.service" &&
	ok "the unit runs only when /etc/wakeplace/cgroups.conf exists" ||
	not_ok "the unit runs only when /etc/wakeplace/cgroups.conf exists"

# ---- help and completion -----------------------------------------------------------------------
run help apply
check "help apply: the file format and options" \
	eval '[ $RC = 0 ] && grep -q "wakeplacectl apply \[FILE\] \[-n|--dry-run\] \[--wait SECONDS\]" "$OUT" && grep -q "/etc/wakeplace/cgroups.conf" "$OUT" && grep -q "FILE:LINE" "$OUT"'
run policy help
check "policy help: set --cgroup and unset" \
	eval '[ $RC = 0 ] && grep -q "policy set NAME --cgroup PATH" "$OUT" && grep -q "policy unset --cgroup PATH" "$OUT"'
run -h
check "global help: apply and unset" eval 'grep -q "^  apply \[FILE\]" "$OUT" && grep -q "policy {list|show|set|unset}" "$OUT"'
# shellcheck source=/dev/null
. "$CTL_TOP/ctl/bash-completion/wakeplacectl"
compopt() { :; }
comp() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _wakeplacectl; echo "${COMPREPLY[*]}"; }
check "completion: apply is an object, unset a policy command" \
	eval '[ "$(comp wakeplacectl ap)" = apply ] && [ "$(comp wakeplacectl policy u)" = unset ]'
check "completion: apply's options" eval '[ "$(comp wakeplacectl apply --d)" = "--dry-run" ] && comp wakeplacectl apply - | grep -qw -- "--wait"'
check "completion: --cgroup completes directories" \
	eval '[ "$(comp wakeplacectl policy set idlemask --cgroup "$CG/sys")" = "$CG/system.slice" ]'
check "completion: policy set NAME offers --cgroup" eval 'comp wakeplacectl policy set idlemask --c | grep -qw -- "--cgroup"'
check "completion: no tunable keys after --cgroup PATH" \
	eval '[ -z "$(comp wakeplacectl policy set cachehot --cgroup /web "")" ]'
check "completion: policy unset offers --cgroup" eval '[ "$(comp wakeplacectl policy unset "")" = "--cgroup" ]'

done_testing
