# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the reliability suite (tests/cases/7*.sh and their long
# versions in tests/stress/cases/), sourced after tests/lib.sh.
#
# Iteration counts and time budgets: a case asks st_param KEY SHORT (the
# count) and st_param KEY_s SHORT (its budget in seconds: under TCG the
# time an iteration takes varies a lot with the host's load, so a loop
# stops at the count or when the budget is used up, and reports how far it
# got; never a failure).  The short values are what `make check` runs; the
# long ones come from tests/stress/cases (st_default) or from the guest's
# kernel command line, wpstress=KEY:N,KEY_s:SECS (tests/stress/run
# STRESS=...), and WP_STRESS_<KEY> in the environment overrides both.
#
# Results: st_init NAME TARGET BUDGET starts a record, st_start the clock,
# st_more says whether to go on; st_bad MSG counts a failure and
# goes on; st_iter / st_checked count iterations and wakeups whose
# placement was checked; st_finish fails the test if anything was bad.  The
# record is written at exit, whatever happened, to $WP_OUT/stress.rec as
# one line "test=NAME iterations=N target=N budget=S failures=N checked=N
# note=TEXT", which tests/stress/run turns into its table.

WP_S=${WP_SYSFS:-/sys/kernel/wakeplace}
export WP_PARAMS=/sys/module/${WP_MODNAME:-wakeplace}/parameters

# st_param KEY SHORT: the iteration count for KEY.
st_param() {
	local key=$1 def=$2 env="WP_STRESS_${1^^}" arg item
	if [ -n "${!env:-}" ]; then
		echo "${!env}"
		return
	fi
	for arg in $(</proc/cmdline); do
		[[ $arg == wpstress=* ]] || continue
		local IFS=,
		for item in ${arg#wpstress=}; do
			if [ "${item%%:*}" = "$key" ]; then
				echo "${item#*:}"
				return
			fi
		done
	done
	echo "$def"
}

ST_NAME='' ST_TARGET=0 ST_BUDGET=0 ST_DEADLINE=0 ST_ITER=0 ST_FAIL=0
ST_CHECKED=0 ST_NOTE='' ST_FIRST='' ST_DONE=0

# st_init NAME TARGET BUDGET: a record for NAME, aiming at TARGET iterations
# within BUDGET seconds (0: no limit) counted from st_start.
st_init() {
	ST_NAME=$1 ST_TARGET=$2 ST_BUDGET=${3:-0}
	at_exit st_write
}

# st_start: the budget starts now.
st_start() {
	ST_DEADLINE=0
	[ "$ST_BUDGET" -gt 0 ] && ST_DEADLINE=$((SECONDS + ST_BUDGET))
	log "$ST_NAME: target $ST_TARGET, budget ${ST_BUDGET}s"
}

# st_more: true while below the target and (after the first iteration)
# within the budget.  The budget bounds the time under TCG, it is not a
# speed requirement: fewer iterations are reported, not failed.
st_more() {
	[ "$ST_ITER" -lt "$ST_TARGET" ] || return 1
	[ "$ST_ITER" = 0 ] || [ "$ST_DEADLINE" = 0 ] || [ "$SECONDS" -lt "$ST_DEADLINE" ]
}

# st_left: seconds left of the budget (a large number without one).
st_left() {
	if [ "$ST_DEADLINE" = 0 ]; then
		echo 1000000
	else
		echo $((ST_DEADLINE > SECONDS ? ST_DEADLINE - SECONDS : 1))
	fi
}

st_iter() { ST_ITER=$((ST_ITER + ${1:-1})); }
st_checked() { ST_CHECKED=$((ST_CHECKED + $1)); }
st_note() { ST_NOTE="${ST_NOTE:+$ST_NOTE; }$*"; }

# st_bad MSG: one failure; the test goes on and fails at st_finish.
st_bad() {
	ST_FAIL=$((ST_FAIL + 1))
	[ -n "$ST_FIRST" ] || ST_FIRST=$*
	printf "not ok: %s\n" "$*" >&2
}

st_finish() {
	ST_DONE=1
	if [ "$ST_ITER" -lt "$ST_TARGET" ]; then
		log "$ST_NAME: budget of ${ST_BUDGET}s used up after $ST_ITER of $ST_TARGET"
		st_note "stopped by the ${ST_BUDGET}s budget"
	fi
	[ "$ST_FAIL" = 0 ] || fail "$ST_FAIL failure(s), first: $ST_FIRST"
	pass "$ST_NAME: $ST_ITER iterations, $ST_CHECKED wakeups checked"
}

st_write() {
	local f=$ST_FAIL
	# Ended by fail or a signal before st_finish: at least one failure.
	[ "$ST_DONE" = 1 ] || [ "$f" -gt 0 ] || f=1
	printf 'test=%s iterations=%s target=%s budget=%s failures=%s checked=%s note=%s\n' \
		"$ST_NAME" "$ST_ITER" "$ST_TARGET" "$ST_BUDGET" "$f" \
		"$ST_CHECKED" "$ST_NOTE" \
		> "$WP_OUT/stress.rec"
}

# ------------------------------------------------------------- hotplug ---

CPU_SYS=/sys/devices/system/cpu

# hotplug_init: array HP of the online CPUs that can go offline (cpu0
# has no "online" file on x86), skip without one; every one of them comes
# back online at exit, whatever happens.
hotplug_init() {
	local c
	HP=()
	for c in $(online_cpus); do
		[ -w "$CPU_SYS/cpu$c/online" ] && HP+=("$c")
	done
	[ ${#HP[@]} -gt 0 ] || skip "no hotpluggable CPU"
	at_exit online_all
}

# online_all: every CPU of HP online again.
online_all() {
	local c v
	for c in "${HP[@]}"; do
		read -r v < "$CPU_SYS/cpu$c/online"
		[ "$v" = 1 ] || echo 1 > "$CPU_SYS/cpu$c/online"
	done
}

# hotplug_pick: array OFF, a random non-empty subset of HP.
hotplug_pick() {
	local c
	OFF=()
	while [ ${#OFF[@]} = 0 ]; do
		for c in "${HP[@]}"; do
			((RANDOM % 2)) && OFF+=("$c")
		done
	done
}

# ------------------------------------------------------------ counters ---

# counter KEY: a hook counter (0 when the module is not loaded).
counter() {
	local k v
	[ -r "$WP_S/counters" ] || { echo 0; return; }
	while read -r k v; do
		[ "$k" = "$1" ] && { echo "$v"; return; }
	done < "$WP_S/counters"
	echo 0
}

# stat_of POLICY KEY: one policy statistic.
stat_of() {
	local k v
	while read -r k v; do
		[ "$k" = "$2" ] && { echo "${v%% *}"; return; }
	done < "$WP_S/stats/$1"
	echo 0
}

# sysw FILE VALUE: write without forking; status of the write.
sysw() {
	{ printf '%s' "$2" > "$1"; } 2>/dev/null || return
	case ${1##*/} in
	policy | shadow) [ -e "${1%/*}/hook" ] && wp_hook_settle "${1%/*}" ;;
	esac
	return 0
}

# policies: all names, the active one unbracketed, into array POLS.
read_policies() {
	local a
	read -r a < "$WP_S/available_policies"
	a=${a//[/}
	a=${a//]/}
	read -ra POLS <<<"$a"
	NONSTOCK=()
	for a in "${POLS[@]}"; do
		[ "$a" = stock ] || NONSTOCK+=("$a")
	done
}

# read_tunables: arrays TUN_FILE TUN_MIN TUN_MAX, one entry per tunable.
read_tunables() {
	local p n v lo hi
	TUN_FILE=() TUN_MIN=() TUN_MAX=()
	for p in "${POLS[@]}"; do
		while read -r n v lo hi; do
			[ -n "$n" ] || continue
			TUN_FILE+=("$WP_S/policies/$p/$n")
			TUN_MIN+=("$lo")
			TUN_MAX+=("$hi")
		done < "$WP_S/policies/$p/tunables"
	done
}

# rand_between VAR LO HI: VAR = an integer in [LO, HI] (30 random bits;
# no fork, unlike $(...)).
rand_between() {
	printf -v "$1" %d $(($2 + ((RANDOM << 15 | RANDOM) % ($3 - $2 + 1))))
}

# kmsg_count ERE: lines of the kernel log since the test started.
kmsg_count() {
	dmesg_since_start | grep -cE -- "$1"
}

# ---------------------------------------------------------- workloads ---

# wl_start NAME CMD...: run CMD again and again, each run to completion,
# in its own process group, until wl_stop.  Each run's exit status is
# appended to $WP_OUT/NAME.rc, its output kept in NAME.last (NAME.fail for
# the last failed run).
WL_PIDS=() WL_NAMES=()
wl_start() {
	local name=$1
	shift
	: > "$WP_OUT/$name.rc"
	rm -f "$WP_OUT/wl.stop"
	setsid bash -c 'n=$1; shift
		while [ ! -e "$WP_OUT/wl.stop" ]; do
			"$@" > "$WP_OUT/$n.last" 2>&1
			rc=$?
			echo $rc >> "$WP_OUT/$n.rc"
			[ $rc = 0 ] || cp "$WP_OUT/$n.last" "$WP_OUT/$n.fail"
		done' wl "$name" "$@" < /dev/null &
	WL_PIDS+=("$!")
	WL_NAMES+=("$name")
	at_exit "kill -KILL -- -$! 2>/dev/null"
	log "workload $name: $* (pgid $!)"
}

# wl_diag PGID: what the processes of a stuck workload are doing, and the
# scheduler's view of every CPU.
wl_diag() {
	local p
	date
	for p in $(pgrep -g "$1"); do
		echo "== pid $p: $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)"
		grep -E '^(State|Cpus_allowed_list|voluntary|nonvoluntary)' "/proc/$p/status"
		for t in /proc/"$p"/task/*; do
			echo "-- task ${t##*/}: stat $(cut -d' ' -f3,39 "$t/stat" 2>/dev/null) wchan $(cat "$t/wchan" 2>/dev/null)"
			cat "$t/stack" 2>/dev/null
			grep -E '^(se.exec_start|se.sum_exec_runtime|nr_switches|nr_wakeups |se.nr_migrations)' "$t/sched" 2>/dev/null
		done
	done
	echo "== counters"
	cat "$WP_S/counters" "$WP_S/state" "$WP_S/policy" 2>/dev/null
	echo "== sched debug"
	cat /sys/kernel/debug/sched/debug 2>/dev/null || cat /proc/sched_debug 2>/dev/null
}

# _wl_gone PGID: no live process left in the group (a function, so that
# wait_until evaluates it on every poll).
_wl_gone() { [ -z "$(group_pids "$1")" ]; }

# wl_stop [SECONDS]: let every workload finish its current run (hang guard
# SECONDS, default 900), then check that each ran at least once and that
# every run succeeded.  Failures are st_bad.
wl_stop() {
	local i pid name runs bad
	touch "$WP_OUT/wl.stop"
	for i in "${!WL_PIDS[@]}"; do
		pid=${WL_PIDS[i]} name=${WL_NAMES[i]}
		if ! wait_until "${1:-900}" _wl_gone "$pid"; then
			st_bad "workload $name did not finish its run (hang?)"
			wl_diag "$pid" > "$WP_OUT/$name.hang" 2>&1
			log "workload $name: process states in $name.hang:"
			head -40 "$WP_OUT/$name.hang" | sed 's/^/#   /' >&2
			kill -KILL -- "-$pid" 2>/dev/null
			continue
		fi
		runs=0 bad=0
		while read -r rc; do
			runs=$((runs + 1))
			[ "$rc" = 0 ] || bad=$((bad + 1))
		done < "$WP_OUT/$name.rc"
		log "workload $name: $runs runs, $bad failed"
		[ "$runs" -gt 0 ] || st_bad "workload $name never completed a run"
		[ "$bad" = 0 ] || st_bad "workload $name: $bad of $runs runs failed: $(tail -3 "$WP_OUT/$name.fail" 2>/dev/null | tr '\n' ' ')"
		st_note "$name runs $runs"
	done
	WL_PIDS=() WL_NAMES=()
}

# tbench_server: start tbench_srv (port 7003) in its own process group.
tbench_server() {
	setsid tbench_srv > "$WP_OUT/tbench_srv.log" 2>&1 < /dev/null &
	local srv=$!
	at_exit "kill -TERM -- -$srv 2>/dev/null"
	wait_until 120 eval 'ss -ltn 2>/dev/null | grep -q ":7003 "' ||
		fail "tbench_srv does not listen on 7003"
}

# st_default KEY N: the long count of KEY, unless the environment or the
# kernel command line already gives one (used by tests/stress/cases).
st_default() {
	local env="WP_STRESS_${1^^}" arg
	[ -n "${!env:-}" ] && return
	for arg in $(</proc/cmdline); do
		[[ $arg == wpstress=* ]] || continue
		[[ ,${arg#wpstress=}, == *",$1:"* ]] && return
	done
	export "$env=$2"
}

# wait_stat_gt SECS POLICY KEY BOUND: hang guard until the statistic KEY
# of POLICY exceeds BOUND; 1 on timeout.
_stat_gt() { [ "$(stat_of "$1" "$2")" -gt "$3" ]; }
wait_stat_gt() { wait_until "$1" _stat_gt "$2" "$3" "$4"; }

# wait_counter_gt SECS KEY BOUND: the same for a hook counter.
_counter_gt() { [ "$(counter "$1")" -gt "$2" ]; }
wait_counter_gt() { wait_until "$1" _counter_gt "$2" "$3"; }

# wl_wait: hang guard until every workload has a run going (its loop and
# at least one child alive).
_wl_going() {
	local p n
	for p in "${WL_PIDS[@]}"; do
		n=$(group_pids "$p" | wc -l)
		[ "$n" -ge 2 ] || return 1
	done
}
wl_wait() { wait_until 300 _wl_going || st_bad "workloads did not start"; }
