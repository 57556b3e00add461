#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: a wrong layout, kernel build or policy name is refused at load: errno, one line naming it, nothing left
# requires: module topo=llc2
# tier: core flavour
. "$WP_TESTS/lib.sh"

tracefs_mount
tr=$TRACEFS

# refused PARAMS... EXPECTED: insmod fails with EINVAL, the kernel log gains
# exactly one wakeplace: line and it contains EXPECTED, nothing is left.
# Every case runs (a failed one is reported, the test fails at the end).
bad=0
refused() {
	( refused_one "$@" ) || bad=$((bad + 1))
}
refused_one() {
	local want=${*: -1} out before lines
	set -- "${@:1:$#-1}"
	before=$(dmesg | wc -l)
	if out=$(insmod "$WP_KO" "$@" 2>&1); then
		rmmod wakeplace
		fail "insmod $* succeeded"
	fi
	log "insmod $*: $out"
	# insmod words EINVAL from init_module as "Invalid parameters".
	[[ $out == *"Invalid argument"* || $out == *"Invalid parameters"* ]] ||
		fail "insmod $*: expected EINVAL: $out"
	# The kernel's own taint notes on a first load are not the module's.
	lines=$(dmesg | tail -n +$((before + 1)) | grep 'wakeplace:' |
		grep -v 'taints kernel\|module verification failed')
	log "dmesg: $lines"
	[ "$(grep -c . <<<"$lines")" = 1 ] ||
		fail "insmod $*: expected one wakeplace: line, got: $lines"
	grep -qF -- "wakeplace: $want" <<<"$lines" ||
		fail "no dmesg line 'wakeplace: $want' after insmod $*"
	wp_loaded && fail "module loaded after a refused insmod"
	[ -e "$(wp_sysfs)" ] && fail "sysfs left after a refused insmod"
	grep -q '^select_task_rq_fair' $tr/enabled_functions &&
		fail "ftrace hook left after a refused insmod"
	pass "refused: insmod $*: $(sed 's/.*wakeplace: //' <<<"$lines")"
}

# Every offset the wakeup path reads, shifted as module/layout.c's
# test_corrupt_layout describes, is refused with the field named.
lay="layout check failed"
refused test_corrupt_layout=runqueues "$lay: runqueues:"
refused test_corrupt_layout=rq_cpu "$lay: rq->cpu:"
refused test_corrupt_layout=rq_curr "$lay: rq->curr:"
refused test_corrupt_layout=rq_idle "$lay: rq->idle:"
refused test_corrupt_layout=rq_cfs "$lay: rq->cfs:"
refused test_corrupt_layout=rq_nr_running "$lay: rq->nr_running:"
refused test_corrupt_layout=rq_ttwu_pending "$lay: rq->ttwu_pending:"
refused test_corrupt_layout=rq_sd "$lay: rq->sd:"
refused test_corrupt_layout=rq_cpu_capacity "$lay: rq->cpu_capacity:"
refused test_corrupt_layout=cfs_h_nr_running "$lay: cfs_rq->h_nr_running:"
refused test_corrupt_layout=cfs_idle_h_nr_running "$lay: cfs_rq->idle_h_nr_running:"
refused test_corrupt_layout=cfs_avg "$lay: cfs_rq->avg:"
refused test_corrupt_layout=cfs_h_load "$lay: cfs_rq->h_load:"
refused test_corrupt_layout=sd_llc "$lay: sd_llc:"
refused test_corrupt_layout=sd_llc_size "$lay: sd_llc_size:"
refused test_corrupt_layout=sd_llc_id "$lay: sd_llc_id:"
refused test_corrupt_layout=sd_llc_shared "$lay: sd_llc_shared:"
refused test_corrupt_layout=sd_asym_cpucapacity "$lay: sd_asym_cpucapacity:"
# Fields the newer kernels have (6.12 on; 7.2 adds sd_balance_shared).
case $(uname -r) in
6.1.*) ;;
*)
	refused test_corrupt_layout=cfs_h_nr_runnable "$lay: cfs_rq->h_nr_runnable:"
	refused test_corrupt_layout=sd_share_id "$lay: sd_share_id:"
	;;
esac
case $(uname -r) in
6.*) ;;
*) refused test_corrupt_layout=sd_balance_shared "$lay: sd_balance_shared:" ;;
esac

# The build identity: a module that cannot tell which kernel build it was
# made for, or was made for another one, is refused.
refused test_corrupt_layout=utsver "cannot check the kernel build: no UTS version recorded"
refused test_corrupt_layout=no_build_id "cannot check the kernel build: no build id recorded"
refused test_corrupt_layout=notes "cannot check the kernel build: no build id read from"
refused test_corrupt_layout=build_id "built for kernel build id 00000000000000000000000000000000deadbeef, running "

refused policy=bogus "unknown policy 'bogus'"
refused shadow=nope "unknown policy 'nope'"

# The running kernel's build id is the one gen-layout recorded.
want=$(sed -n 's/^#define WP_LAYOUT_BUILD_ID "\(.*\)"$/\1/p' \
	"$(dirname "$WP_KO")/module/generated/wp_layout.h" 2>/dev/null)
if [ -n "$want" ]; then
	got=$(od -An -v -tx1 /sys/kernel/notes | tr -d ' \n' |
		grep -o '040000001400000003000000474e5500[0-9a-f]\{40\}' | cut -c33-)
	[ "$got" = "$want" ] || fail "build id: generated $want, /sys/kernel/notes $got"
	pass "build id $want matches /sys/kernel/notes"
fi

[ "$bad" = 0 ] || fail "$bad refusal case(s) failed"

# And a good load still works afterwards.
wp_load
wp_unload
