#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: benchmark: policy switch latency under stress-ng (affinity, CPU hotplug, futex, switch, pipe, mq, clone, yield, eventfd) and hackbench; figures, and corrected/reverted/warnings (must be 0)
# requires: module stress-ng perf
#
# Not part of make check: a benchmark, it fails only when a switch or the
# module breaks, never on a figure.  Run it with
#   WP_EXTRA_CASES=tests/stress/bench TESTS=950 KERNELS=6.1 TOPOS=llc2 tests/check
# A loop writes every policy name in turn to policy for SECS seconds
# (default 90; wpswitchlat=SECS on the guest command line, WP_VM_APPEND)
# and reports p50/p90/max of the write's wall time and of the time until
# the policy is in effect (the write, then the hook file leaving
# "attaching": the attach goes on after a write that waited
# attach_wait_ms), with the mean of each phase from last_switch (lock,
# hook wait, init, publish on the writer's path; the attach itself; grace
# period and teardown of the old policy, deferred).  wpstacks=1 on the
# guest command line also samples the writer's kernel stack (forks a
# sleep every 20 ms: off by default, it loads the guest it measures).
# wpfifo=1 runs the writing loop as SCHED_FIFO 10, so that its wall time
# is the switch's and not its wait for a CPU among the stressors.  If
# build/<release>-base/wakeplace.ko exists (the module of another commit,
# e.g. main), it is measured first, the same way, as "base".  Hackbench
# (perf bench sched messaging) runs all along; a run that ends with a
# corrected pick, a revert or a kernel warning fails.
. "$WP_TESTS/lib.sh"

secs=90 stacks=0 fifo=0
for a in $(</proc/cmdline); do
	[[ $a == wpswitchlat=* ]] && secs=${a#wpswitchlat=}
	[[ $a == wpstacks=1 ]] && stacks=1
	[[ $a == wpfifo=1 ]] && fifo=1
done
STRESS=(stress-ng --affinity 1 --cpu-online 1 --futex 1 --switch 1
	--pipe 1 --mq 1 --clone 1 --yield 1 --eventfd 1 --timeout 0 -q)

# stack_sampler PID: every ~20 ms, PID's kernel stack while it is inside
# a write to a sysfs file (kernfs_fop_write_iter), one sample per block of
# lines ending with "--".  Blocked writers show where they wait; a running
# one shows nothing.
stack_sampler() {
	local pid=$1 st
	while [ -d "/proc/$pid" ]; do
		{ st=$(<"/proc/$pid/stack"); } 2>/dev/null
		if [[ $st == *kernfs_fop_write* ]]; then
			printf '%s\n--\n' "$st"
		fi
		sleep 0.02
	done
}

# stack_summary RAW: samples per distinct innermost 5 frames (function
# names only), most first; each sample stands for about 20 ms of a
# write's wall time.
stack_summary() {
	awk '
		$0 == "--" { if (sig != "") n[sig]++; sig = ""; k = 0; next }
		k < 5 { f = $2; sub(/\+.*/, "", f); sig = sig (k ? " < " : "") f; k++ }
		END { for (s in n) printf "%d %s\n", n[s], s }' "$1" | sort -rn
}

# measure LABEL KO: one run; prints the summary line.
measure() {
	local label=$1 ko=$2 pols p t0 t1 t2 n=0 bad=0 f h i
	local -a ms eff
	insmod "$ko" || fail "$label: insmod $ko failed"
	read -r pols < /sys/kernel/wakeplace/available_policies
	pols=${pols//[/}
	pols=${pols//]/}
	local w0
	w0=$(dmesg | grep -c -E 'WARNING:|BUG:|INFO: task .* blocked')
	setsid "${STRESS[@]}" > "$WP_OUT/stress-ng.$label.log" 2>&1 < /dev/null &
	local spid=$!
	bg_load -g 2 -l 20
	sleep 10
	# Where a slow write waits: this shell's kernel stack, sampled.
	local me=$BASHPID sampler=
	: > "$WP_OUT/writer-stacks.$label.raw"
	if [ "$stacks" = 1 ]; then
		stack_sampler "$me" > "$WP_OUT/writer-stacks.$label.raw" &
		sampler=$!
	fi
	local end=$((SECONDS + secs))
	if [ "$fifo" = 1 ]; then
		chrt -f -p 10 "$BASHPID" || fail "$label: chrt -f failed"
	fi
	while [ $SECONDS -lt $end ]; do
		for p in $pols; do
			t0=$EPOCHREALTIME
			if ! { printf '%s' "$p" > /sys/kernel/wakeplace/policy; } 2>/dev/null; then
				bad=$((bad + 1))
				continue
			fi
			t1=$EPOCHREALTIME
			# In effect once the hook has settled (bounded: 120 s).
			for ((i = 0; i < 120000; i++)); do
				h=
				read -r h < /sys/kernel/wakeplace/hook 2>/dev/null
				[ "$h" = attaching ] || break
				sleep 0.001
			done
			t2=$EPOCHREALTIME
			ms+=($(( (${t1/./} - ${t0/./}) / 1000 )))
			eff+=($(( (${t2/./} - ${t0/./}) / 1000 )))
			n=$((n + 1))
			f=/sys/kernel/wakeplace/last_switch
			if [ -r $f ]; then
				mapfile -t ph < $f
				echo "$p ${ms[n - 1]} ${ph[*]}" >> "$WP_OUT/phases.$label.txt"
			fi
			[ $SECONDS -lt $end ] || break
		done
	done
	[ "$fifo" = 1 ] && chrt -o -p 0 "$BASHPID"
	if [ -n "$sampler" ]; then
		kill "$sampler" 2>/dev/null
		wait "$sampler" 2>/dev/null
	fi
	stack_summary "$WP_OUT/writer-stacks.$label.raw" > "$WP_OUT/writer-stacks.$label.txt"
	kill -INT -- "-$spid" 2>/dev/null
	wait_until 120 sh -c "! kill -0 -- -$spid 2>/dev/null" || kill -KILL -- "-$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	stop_load
	# stress-ng --cpu-online may leave CPUs offline.
	for f in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ "$(cat "$f")" = 1 ] || echo 1 > "$f"
	done
	local cor rev unb warn
	cor=$(awk '$1 == "corrected" { print $2 }' /sys/kernel/wakeplace/counters)
	rev=$(awk '$1 == "reverted" { print $2 }' /sys/kernel/wakeplace/counters)
	unb=$(awk '$1 == "unbuilt" { print $2 }' /sys/kernel/wakeplace/counters)
	rmmod wakeplace || fail "$label: rmmod under load failed"
	warn=$(( $(dmesg | grep -c -E 'WARNING:|BUG:|INFO: task .* blocked') - w0 ))
	[ "$bad" = 0 ] || fail "$label: $bad switches failed"
	[ "$n" -gt 0 ] || fail "$label: no switch done"
	local sorted se
	mapfile -t sorted < <(printf '%s\n' "${ms[@]}" | sort -n)
	mapfile -t se < <(printf '%s\n' "${eff[@]}" | sort -n)
	local tag=
	[ "$fifo" = 1 ] && tag=" (writer SCHED_FIFO)"
	local line="$label$tag: $n switches in ${secs}s: write p50 ${sorted[n / 2]} ms p90 ${sorted[n * 9 / 10]} ms max ${sorted[n - 1]} ms; in effect p50 ${se[n / 2]} ms p90 ${se[n * 9 / 10]} ms max ${se[n - 1]} ms; corrected ${cor:-?} reverted ${rev:-?} unbuilt ${unb:--} warnings $warn"
	# Lines "POLICY MS hook_us N init_us N ...": mean and max of each phase.
	if [ -s "$WP_OUT/phases.$label.txt" ]; then
		line+="; phases (us, mean/max): $(awk '{
			for (i = 3; i < NF; i += 2) {
				s[$i] += $(i + 1); if ($(i + 1) > m[$i]) m[$i] = $(i + 1)
				if (!($i in o)) { o[$i] = ++k; name[k] = $i }
			}
		} END {
			for (j = 1; j <= k; j++)
				printf "%s %d/%d ", name[j], s[name[j]] / NR, m[name[j]]
		}' "$WP_OUT/phases.$label.txt")"
	fi
	printf '%s\n' "${ms[@]}" > "$WP_OUT/switch-ms.$label.txt"
	printf '%s\n' "${eff[@]}" > "$WP_OUT/effect-ms.$label.txt"
	echo "$line" >> "$WP_OUT/switchlat.txt"
	log "$line"
	if [ "$stacks" = 1 ]; then
		log "$label: where slow writes waited (samples of ~20 ms, innermost frames first):"
		[ -s "$WP_OUT/writer-stacks.$label.txt" ] ||
			log "  no sample: the writer was never seen blocked (a running task shows no stack)"
		head -8 "$WP_OUT/writer-stacks.$label.txt" | while IFS= read -r f; do
			log "  $f"
		done
	fi
	[ "${cor:-0}" = 0 ] && [ "${rev:-0}" = 0 ] && [ "$warn" = 0 ] ||
		fail "$label: corrected ${cor:-?} reverted ${rev:-?} warnings $warn: $(dmesg | grep -E 'WARNING:|BUG:|reverted|blocked' | tail -3)"
}

base=$WP_ROOT/build/$(uname -r)-base/wakeplace.ko
[ -f "$base" ] && measure base "$base"
measure new "$WP_KO"
pass "switch latency measured (see switchlat.txt)"
