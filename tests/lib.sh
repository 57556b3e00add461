# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers for the in-guest test cases (tests/cases/NNN-name.sh).
# A case does `. "$WP_TESTS/lib.sh"` and then exits 0 (pass), 1 (fail) or
# 4 (skip, after printing "SKIP: reason").  `fail` and `skip` exit for you.
#
# Environment (exported by tests/runner): WP_TESTS, WP_ROOT, WP_KO,
# WP_KO_RELEASE, WP_CTL, WP_BENCH, WP_OUT, WP_TOPO.  See tests/README.md.

WP_SYSFS=${WP_SYSFS:-/sys/kernel/wakeplace}
WP_MODNAME=${WP_MODNAME:-wakeplace}

# src_policies, src_outcomes: the expected lists, from the module's sources.
. "$(dirname "${BASH_SOURCE[0]}")/names.sh"

# ---------------------------------------------------------------- logging ---

# log MSG...: a TAP comment line in the test's output.  All of log, pass,
# fail and skip write to stderr, so that a helper's stdout stays data.
log() { printf "# %s\n" "$*" >&2; }

# fail MSG...: print the reason and end the test as failed.  Called in a
# subshell it only ends the subshell: test `|| exit 1` after one.
fail() {
	printf "FAIL: %s\n" "$*" >&2
	exit 1
}

# skip MSG...: print the reason and end the test as skipped.
skip() {
	printf "SKIP: %s\n" "$*" >&2
	exit 4
}

# pass MSG...: note a sub-check that held.
pass() { printf "ok: %s\n" "$*" >&2; }

assert_eq() { # ACTUAL EXPECTED MSG
	[ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
	pass "$3 (= '$1')"
}

assert_ne() { # ACTUAL UNEXPECTED MSG
	[ "$1" != "$2" ] || fail "$3: got '$1', expected anything else"
	pass "$3 (= '$1')"
}

_wp_int() { [[ $1 =~ ^-?[0-9]+$ ]]; }

_wp_cmp() { # OP ACTUAL BOUND MSG
	_wp_int "$2" || fail "$4: '$2' is not an integer"
	_wp_int "$3" || fail "$4: bound '$3' is not an integer"
	local ok=0
	case $1 in
	-ge) (($2 >= $3)) && ok=1 ;;
	-gt) (($2 > $3)) && ok=1 ;;
	-le) (($2 <= $3)) && ok=1 ;;
	-lt) (($2 < $3)) && ok=1 ;;
	esac
	[ "$ok" = 1 ] || fail "$4: expected $1 $3, got $2"
	pass "$4 ($2 $1 $3)"
}

assert_ge() { _wp_cmp -ge "$@"; } # ACTUAL MIN MSG
assert_gt() { _wp_cmp -gt "$@"; } # ACTUAL BOUND MSG
assert_le() { _wp_cmp -le "$@"; } # ACTUAL MAX MSG
assert_lt() { _wp_cmp -lt "$@"; } # ACTUAL BOUND MSG

assert_match() { # STRING ERE MSG
	[[ $1 =~ $2 ]] || fail "$3: '$1' does not match /$2/"
	pass "$3"
}

# must CMD...: run a command, fail the test with its output if it fails.
must() {
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	[ -n "$out" ] && printf "%s\n" "$out" >&2
	[ "$rc" = 0 ] || fail "command failed (exit $rc): $*"
}

# must_fail CMD...: the command is expected to fail.
must_fail() {
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	[ -n "$out" ] && printf "%s\n" "$out" >&2
	[ "$rc" != 0 ] || fail "command succeeded but should have failed: $*"
	pass "fails as expected (exit $rc): $*"
}

# wait_until SECONDS CMD...: poll CMD every 0.2 s until it succeeds; returns
# 1 after SECONDS.  A hang guard, not a speed limit: be generous (TCG).
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# ---------------------------------------------------------------- cleanup ---

# at_exit CMD: run CMD (a string, eval'ed) when the test exits, last added
# first.  Use this instead of `trap ... EXIT`, which would replace ours.
_wp_exit_cmds=()
at_exit() { _wp_exit_cmds=("$1" "${_wp_exit_cmds[@]}"); }

_wp_on_exit() {
	local rc=$? c
	for c in "${_wp_exit_cmds[@]}"; do
		eval "$c" || true
	done
	stop_load
	exit "$rc"
}

# ----------------------------------------------------------------- kernel ---

# dmesg_tail [N]: the last N (default 30) kernel log lines.
dmesg_tail() { dmesg 2>/dev/null | tail -n "${1:-30}"; }

# dmesg_since_start: kernel log since the runner started this test.
dmesg_since_start() {
	local all
	all=$(dmesg 2>/dev/null)
	if [ -n "${WP_KMSG_MARK:-}" ] && grep -qF -- "$WP_KMSG_MARK" <<<"$all"; then
		sed -n "\|$WP_KMSG_MARK|,\$p" <<<"$all" | tail -n +2
	else
		printf '%s\n' "$all"
	fi
}

# taint: the current /proc/sys/kernel/tainted value.
taint() { cat /proc/sys/kernel/tainted; }

# ----------------------------------------------------------------- module ---

wp_loaded() { [ -d "/sys/module/$WP_MODNAME" ]; }

# wp_sysfs [FILE]: path of the module's sysfs directory or of a file in it.
wp_sysfs() { printf '%s\n' "$WP_SYSFS${1:+/$1}"; }

# wp_read FILE: print a sysfs attribute; fails the test if unreadable.
wp_read() {
	local v
	v=$(cat "$WP_SYSFS/$1" 2>&1) || fail "cannot read $WP_SYSFS/$1: $v"
	printf '%s\n' "$v"
}

# wp_policies: available_policies without the active one's brackets.
wp_policies() { wp_read available_policies | tr -d '[]'; }

# wp_hook_settle [SYSFS_DIR]: a policy or shadow write returns once the
# hook is attached or after the module's attach_wait_ms with the attach in
# flight; wait for it, as wakeplacectl does (bounded: a hook that never
# settles fails the test).
# shellcheck disable=SC2120 # tests/stress/lib.sh passes another module's dir
wp_hook_settle() {
	local h=${1:-$WP_SYSFS}/hook i v
	for ((i = 0; i < 1200; i++)); do
		v=
		read -r v < "$h" 2>/dev/null
		[ "$v" = attaching ] || return 0
		sleep 0.1
	done
	fail "$h still reads attaching after 120 s"
}

# wp_write FILE VALUE: write a sysfs attribute, returning the write's status
# (so a test can assert that a bad value is refused).  A policy or shadow
# write returns once the hook has settled (wp_hook_settle).
wp_write() {
	local err
	if err=$( { printf '%s' "$2" > "$WP_SYSFS/$1"; } 2>&1); then
		case $1 in policy | shadow) wp_hook_settle ;; esac
		return 0
	fi
	printf "write %q > %s: %s\n" "$2" "$WP_SYSFS/$1" "${err##*: }" >&2
	return 1
}

# wp_load_ko KO [param=value...]: insmod a given module file.
wp_load_ko() {
	local ko=$1 out
	shift
	[ -f "$ko" ] || fail "module not built: $ko"
	if wp_loaded; then
		fail "wp_load: $WP_MODNAME is already loaded"
	fi
	if ! out=$(insmod "$ko" "$@" 2>&1); then
		printf "%s\n" "$out" >&2
		log "dmesg tail:"
		dmesg_tail 20 | sed "s/^/#   /" >&2
		fail "insmod $ko $* failed"
	fi
	log "loaded $ko $*"
}

# wp_load [param=value...]: load the test flavour (WP_KO).
wp_load() { wp_load_ko "$WP_KO" "$@"; }

# wp_load_release [param=value...]: load the release flavour (WP_KO_RELEASE).
wp_load_release() { wp_load_ko "$WP_KO_RELEASE" "$@"; }

# wp_unload: rmmod; fails the test with the dmesg tail if that fails.
wp_unload() {
	local out
	wp_loaded || fail "wp_unload: $WP_MODNAME is not loaded"
	if ! out=$(rmmod "$WP_MODNAME" 2>&1); then
		printf "%s\n" "$out" >&2
		log "dmesg tail:"
		dmesg_tail 20 | sed "s/^/#   /" >&2
		fail "rmmod $WP_MODNAME failed"
	fi
	log "unloaded $WP_MODNAME"
}

# ------------------------------------------------------- background load ---

# bg_load [perf bench sched messaging args]: start a background loop of
# `perf bench sched messaging` (default: -g 2 -l 50) in its own process
# group (job control, not setsid: it stays in the test's session, which the
# runner kills after the test).  Several may run; stop_load (also run at
# exit) stops them all.
WP_BG_PIDS=()
bg_load() {
	command -v perf >/dev/null || fail "bg_load: perf not installed"
	local args=("$@") had_m=0
	[ ${#args[@]} -gt 0 ] || args=(-g 2 -l 50)
	[[ $- == *m* ]] && had_m=1
	set -m
	bash -c 'while :; do perf bench sched messaging "$@" \
		>/dev/null 2>&1 || sleep 1; done' bg_load "${args[@]}" \
		</dev/null &
	WP_BG_PIDS+=("$!")
	[ "$had_m" = 1 ] || set +m
	log "bg_load started (pgid $!): perf bench sched messaging ${args[*]}"
}

# group_pids PGID: live (non-zombie) processes of a process group.
group_pids() {
	local p st
	for p in $(pgrep -g "$1"); do
		read -r st 2>/dev/null < "/proc/$p/stat" || continue
		# The comm field may hold spaces; the state follows the last ")".
		st=${st##*) }
		[ "${st%% *}" = Z ] || echo "$p"
	done
}

# pause_load, resume_load: stop and continue every background load, for
# checks of a snapshot that need no load and under it would take minutes
# of TCG time (each fork waits behind the load).
_load_signal() {
	local p
	for p in "${WP_BG_PIDS[@]}"; do
		kill "-$1" -- "-$p" 2>/dev/null
	done
	return 0
}
pause_load() { _load_signal STOP; }
resume_load() { _load_signal CONT; }

stop_load() {
	local p
	_load_signal TERM
	_load_signal CONT	# a paused load takes its TERM
	for p in "${WP_BG_PIDS[@]}"; do
		wait "$p" 2>/dev/null
		kill -KILL -- "-$p" 2>/dev/null
		wait_until 60 [ -z "$(group_pids "$p")" ] ||
			log "stop_load: group $p still has $(group_pids "$p")"
	done
	WP_BG_PIDS=()
	return 0
}

# ---------------------------------------------------------------- cgroups ---

# cg_tree DIR SUB...: a fresh cgroup (v2) DIR under /sys/fs/cgroup (mounted
# if it is not) with the sub-cgroups SUB... (paths under DIR), removed at
# exit with whatever the test made under it.  Sets CG_ROOT (the mount) and
# CG_TOP (DIR's directory).
cg_tree() {
	CG_ROOT=/sys/fs/cgroup
	if ! [ -e $CG_ROOT/cgroup.subtree_control ]; then
		mount -t cgroup2 none $CG_ROOT 2>/dev/null ||
			fail "cannot mount cgroup v2 on $CG_ROOT"
	fi
	CG_TOP=$CG_ROOT/$1
	shift
	cg_tree_remove
	mkdir -p "$CG_TOP" "${@/#/$CG_TOP/}" || fail "cannot create the cgroups under $CG_TOP"
	at_exit cg_tree_remove
}
cg_tree_remove() {
	find "$CG_TOP" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
	rmdir "$CG_TOP" 2>/dev/null
}

# cg_waker GROUP: a task started in cgroup GROUP that sleeps 5 ms and
# wakes, over and over (read's timeout on a pipe that stays empty: no fork
# per wakeup), with the pipe's writer, a sleep, beside it: two processes,
# a few hundred wakeups a second, light enough to trace under TCG.
# cg_wakers_stop (also run at exit) kills them all.
CG_WAKERS=()
cg_waker() {
	[ ${#CG_WAKERS[@]} -gt 0 ] || at_exit cg_wakers_stop
	bash -c 'echo $$ > "$0/cgroup.procs" || exit 1
		exec 3< <(exec sleep 100000)
		while :; do read -r -t 0.005 -u 3; done' \
		"$1" </dev/null >/dev/null 2>&1 &
	CG_WAKERS+=("$!")
}
cg_wakers_stop() {
	local p
	for p in "${CG_WAKERS[@]}"; do
		pkill -KILL -P "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	for p in "${CG_WAKERS[@]}"; do
		wait "$p" 2>/dev/null
	done
	CG_WAKERS=()
}

# group_picks MAP TRACE: the wakeplace:select_cpu picks of the trace file
# TRACE checked against MAP, lines "TID GROUP POLICY..." (the policies
# that may place that thread; "none": the kernel places it, no pick may be
# traced).  Prints two lines: the number of picks of MAP's threads, then
# the problems, empty when all hold (a pick by another policy, at most 3
# named; a group with a policy and no pick; a "none" group with picks).
# Logs the picks per group.
group_picks() {
	awk '
		NR == FNR {
			grp[$1] = $2
			for (i = 3; i <= NF; i++) {
				ok[$1, $i] = 1
				if ($i != "none")
					want[$2] = 1
			}
			groups[$2] = 1
			next
		}
		/select_cpu: policy=/ {
			match($0, /policy=[^ ]+/); pol = substr($0, RSTART + 7, RLENGTH - 7)
			match($0, / pid=[0-9]+/); pid = substr($0, RSTART + 5, RLENGTH - 5)
			if (!(pid in grp))
				next
			n[grp[pid]]++
			checked++
			if (!((pid, pol) in ok) && ++bad <= 3)
				msg = msg sprintf("pid %s of %s placed by %s; ", pid, grp[pid], pol)
		}
		END {
			for (g in groups) {
				if (!(g in want) && n[g])
					msg = msg sprintf("%s: %d picks, expected none; ", g, n[g])
				if ((g in want) && !n[g])
					msg = msg sprintf("%s: no pick traced; ", g)
				printf "%s:%d ", g, n[g] > "/dev/stderr"
			}
			printf "\n" > "/dev/stderr"
			if (bad)
				msg = msg bad " misplaced"
			print checked + 0
			print msg
		}' "$1" "$2" 2> >(sed 's/^/# picks per group: /' >&2)
}

# group_picks_read MAP TRACE: group_picks MAP TRACE into GP_N (the picks
# of MAP's threads) and GP_RES (the problems, empty when all hold).
# shellcheck disable=SC2034 # GP_N and GP_RES are read by the tests
group_picks_read() {
	{
		read -r GP_N
		read -r GP_RES
	} < <(group_picks "$1" "$2")
}

# ---------------------------------------------------------------- topology ---
# Read once per process into arrays (forks are slow under TCG), then served
# from them.  CPUs are the online ones at the first call.

# cpulist_expand LIST: "0-2,5" -> "0 1 2 5".
cpulist_expand() {
	local part a b out=() i
	local IFS=,
	for part in $1; do
		if [[ $part == *-* ]]; then
			a=${part%-*}
			b=${part#*-}
			for ((i = a; i <= b; i++)); do
				out+=("$i")
			done
		elif [ -n "$part" ]; then
			out+=("$part")
		fi
	done
	IFS=" "
	echo "${out[*]}"
}

# cpulist_count LIST: number of CPUs in a list.
cpulist_count() {
	local c
	read -ra c <<<"$(cpulist_expand "$1")"
	echo "${#c[@]}"
}

_WP_CPUS=()
declare -A _WP_LLC=() _WP_LLCDIR=() _WP_SIB=()
_WP_LLCS=() _WP_CORES=()

_wp_topo_init() {
	[ ${#_WP_CPUS[@]} -gt 0 ] && return 0
	local sys=/sys/devices/system/cpu online c d lvl type best bestlvl v
	local -A seen_llc=() seen_core=()
	read -r online < "$sys/online"
	read -ra _WP_CPUS <<<"$(cpulist_expand "$online")"
	for c in "${_WP_CPUS[@]}"; do
		# The last-level cache: highest level that is not instruction-only.
		best='' bestlvl=0
		for d in "$sys/cpu$c"/cache/index*; do
			[ -r "$d/level" ] || continue
			read -r lvl < "$d/level"
			read -r type < "$d/type"
			[ "$type" = Instruction ] && continue
			if [ "$lvl" -gt "$bestlvl" ]; then
				bestlvl=$lvl
				best=$d
			fi
		done
		_WP_LLCDIR[$c]=$best
		if [ -n "$best" ]; then
			read -r v < "$best/shared_cpu_list"
		else
			v=$c
		fi
		_WP_LLC[$c]=$v
		[ -n "${seen_llc[$v]:-}" ] || { seen_llc[$v]=1; _WP_LLCS+=("$v"); }
		v=$c
		[ -r "$sys/cpu$c/topology/thread_siblings_list" ] &&
			read -r v < "$sys/cpu$c/topology/thread_siblings_list"
		_WP_SIB[$c]=$v
		[ -n "${seen_core[$v]:-}" ] || { seen_core[$v]=1; _WP_CORES+=("$v"); }
	done
}

online_cpus() { _wp_topo_init; echo "${_WP_CPUS[*]}"; }
nr_cpus() { _wp_topo_init; echo "${#_WP_CPUS[@]}"; }

# llc_index CPU: sysfs cache directory of the CPU's last-level cache (the
# highest level that is unified or data), empty when none is described.
llc_index() { _wp_topo_init; echo "${_WP_LLCDIR[$1]:-}"; }

# cpus_of_llc CPU: shared_cpu_list of the CPU's LLC (the CPU alone if no
# cache is described).
cpus_of_llc() { _wp_topo_init; echo "${_WP_LLC[$1]:-$1}"; }

# llc_groups: one line per distinct LLC (its CPU list), by first CPU.
llc_groups() { _wp_topo_init; printf '%s\n' "${_WP_LLCS[@]}"; }
nr_llc() { _wp_topo_init; echo "${#_WP_LLCS[@]}"; }

# smt_siblings CPU: thread_siblings_list of the CPU (includes the CPU).
smt_siblings() { _wp_topo_init; echo "${_WP_SIB[$1]:-$1}"; }

# cores: one line per distinct core (its SMT sibling list), by first CPU.
cores() { _wp_topo_init; printf '%s\n' "${_WP_CORES[@]}"; }
nr_cores() { _wp_topo_init; echo "${#_WP_CORES[@]}"; }

# has_smt: true when some online CPU has an online SMT sibling.
has_smt() {
	_wp_topo_init
	[ "${#_WP_CORES[@]}" -lt "${#_WP_CPUS[@]}" ]
}

# ------------------------------------------------------------- requirements ---

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || skip "$c not installed"
	done
}
require_smt() { has_smt || skip "no SMT siblings in this topology"; }
require_multi_llc() {
	[ "$(nr_llc)" -ge 2 ] || skip "only one LLC in this topology"
}
require_module() { [ -f "$WP_KO" ] || skip "test module not built: $WP_KO"; }

# Read the topology now, so that $(nr_llc) and friends in subshells reuse it.
_wp_topo_init

# tracefs_mount: tracefs at $TRACEFS (mounted if the guest has not), or
# the test fails.
TRACEFS=/sys/kernel/tracing
tracefs_mount() {
	[ -d $TRACEFS/events ] || mount -t tracefs nodev $TRACEFS 2>/dev/null
	[ -d $TRACEFS/events ] || fail "tracefs not available"
}

# select_cpu_instance NAME: a private trace instance NAME recording the
# module's wakeplace:select_cpu events, left off (tracing_on 0): sets
# $WP_TRACE_INST.  The event is switched off and the instance removed at
# exit, before an rmmod registered earlier (at_exit runs LIFO).
select_cpu_instance() {
	tracefs_mount
	WP_TRACE_INST=$TRACEFS/instances/$1
	rmdir "$WP_TRACE_INST" 2>/dev/null
	mkdir "$WP_TRACE_INST" || fail "cannot create trace instance $WP_TRACE_INST"
	at_exit "echo 0 > $WP_TRACE_INST/events/wakeplace/select_cpu/enable 2>/dev/null; rmdir $WP_TRACE_INST"
	echo 0 > "$WP_TRACE_INST/tracing_on"
	echo 1 > "$WP_TRACE_INST/events/wakeplace/select_cpu/enable" ||
		fail "cannot enable wakeplace/select_cpu in $WP_TRACE_INST"
}

# probe_trace WAKEPROBE-ARGS...: one run of tests/tools/wakeprobe with the
# instance of select_cpu_instance tracing (emptied first); prints the
# wakee's TID (nothing if the probe failed or printed none).
probe_trace() {
	local inst=$WP_TRACE_INST out
	echo > "$inst/trace"
	echo 1 > "$inst/tracing_on"
	out=$("$WP_ROOT/tests/tools/wakeprobe" "$@")
	echo 0 > "$inst/tracing_on"
	awk '$1 == "wakee" { print $2 }' <<<"$out"
}

# An awk function for reading wakeplace events: val(k), the value of the
# field "k=value" of the current line ("" if it has none).
_WP_AWK_VAL='
	function val(k) {
		if (!match($0, " " k "=[^ ]+"))
			return ""
		return substr($0, RSTART + length(k) + 2, RLENGTH - length(k) - 2)
	}'

# probe_picks POLICY WAKEPROBE-ARGS...: under POLICY, the wakee's picks of
# one probe_trace, one line each: "target chosen outcome prev"; logs how
# many of each.
probe_picks() {
	local pol=$1 tid
	shift
	wp_write policy "$pol" || fail "switch to $pol refused"
	tid=$(probe_trace "$@")
	[ -n "$tid" ] || fail "wakeprobe $* failed or printed no wakee TID"
	awk -v pol="$pol" -v tid="$tid" "$_WP_AWK_VAL"'
		index($0, "select_cpu: policy=" pol " pid=" tid " ") {
			print val("target"), val("chosen"), val("outcome"), val("prev")
		}' "$WP_TRACE_INST/trace" | tee >(sort | uniq -c | sed "s/^/# $pol $*: /" >&2)
}

# burst_picks POLICY TIDS: the picks under POLICY of the wakees TIDS (TIDs
# separated by spaces) in $WP_TRACE_INST's trace of a `wakeburst -m` run,
# up to its "wakeburst end" marker: "round" for each round's marker, then
# one line per pick, "pick target chosen outcome".
burst_picks() {
	awk -v pol="$1" -v tids=" $2 " "$_WP_AWK_VAL"'
		/wakeburst end/ { exit }
		/wakeburst round / { print "round"; next }
		index($0, "select_cpu: policy=" pol " ") && index(tids, " " val("pid") " ") {
			print "pick", val("target"), val("chosen"), val("outcome")
		}' "$WP_TRACE_INST/trace"
}

# pick_share PICKS AWK-CONDITION: the % of PICKS (probe_picks' lines) for
# which the condition holds ($1 target, $2 chosen, $3 outcome, $4 prev);
# fails if there are fewer than 10.
pick_share() {
	awk "$2 { k++ } END { if (NR < 10) exit 1; print int(k * 100 / NR) }" <<<"$1" ||
		fail "fewer than 10 traced picks of the wakee"
}

# stat_of POLICY KEY: one value of stats/POLICY.
stat_of() { wp_read "stats/$1" | awk -v k="$2" '$1 == k { print $2 }'; }
# counter KEY: a module-wide counter (the counters file; empty when absent).
counter() { wp_read counters | awk -v k="$1" '$1 == k { print $2 }'; }
# in_list WORD LIST: WORD is one of LIST's words.
in_list() { [[ " $2 " == *" $1 "* ]]; }

# Install the exit handler unless sourced by the runner itself.
if [ -z "${WP_LIB_NO_TRAP:-}" ]; then
	trap _wp_on_exit EXIT
fi
