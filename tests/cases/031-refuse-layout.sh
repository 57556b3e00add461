#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: a wrong layout or policy name is refused at load: errno, one line, nothing left
# requires: module topo=llc2
. "$WP_TESTS/lib.sh"

tracefs_mount
tr=$TRACEFS

# refused PARAMS... EXPECTED_DMESG
refused() {
	local want=${*: -1} out
	set -- "${@:1:$#-1}"
	out=$(insmod "$WP_KO" "$@" 2>&1) && fail "insmod $* succeeded"
	log "insmod $*: $out"
	# insmod words EINVAL from init_module as "Invalid parameters".
	[[ $out == *"Invalid argument"* || $out == *"Invalid parameters"* ]] ||
		fail "insmod $*: expected EINVAL: $out"
	dmesg_tail 5 | grep -q "wakeplace: $want" ||
		fail "no dmesg line 'wakeplace: $want' after insmod $*"
	wp_loaded && fail "module loaded after a refused insmod"
	[ -e "$(wp_sysfs)" ] && fail "sysfs left after a refused insmod"
	grep -q '^select_task_rq_fair' $tr/enabled_functions &&
		fail "ftrace hook left after a refused insmod"
	pass "refused: insmod $*"
}

refused test_corrupt_layout=rq_cpu "layout check failed"
refused test_corrupt_layout=runqueues "layout check failed"
refused test_corrupt_layout=rq_curr "layout check failed"
refused test_corrupt_layout=rq_idle "layout check failed"
refused policy=bogus "unknown policy 'bogus'"
refused shadow=nope "unknown policy 'nope'"

# And a good load still works afterwards.
wp_load
wp_unload
