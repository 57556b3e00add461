#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: rmmod while a non-stock policy places a heavy wakeup load
# requires: module perf topo=llc2
# tier: core flavour
. "$WP_TESTS/lib.sh"

for pol in mirror idlemask; do
	wp_load policy=$pol shadow=mirror
	assert_eq "$(wp_read policy)" $pol "policy= at load"
	bg_load -g 2 -l 1000

	sleep 2
	picks=$(stat_of $pol picks)
	assert_gt "$picks" 0 "$pol placed wakeups before the unload"
	wp_unload
	stop_load
	[ -e "$(wp_sysfs)" ] && fail "sysfs left after rmmod"
done
pass "unloaded twice under load"
