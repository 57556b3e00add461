#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: perf records wakeplace:select_cpu events and perf script prints them
# requires: module perf topo=llc2
. "$WP_TESTS/lib.sh"

wp_load policy=idlemask
at_exit 'wp_loaded && rmmod wakeplace'
tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs nodev $tr 2>/dev/null
[ -r $tr/events/wakeplace/select_cpu/format ] ||
	fail "no tracefs event wakeplace/select_cpu"
perf record -q -B -N -e wakeplace:select_cpu -o "$WP_OUT/perf.data" -- \
	perf bench sched messaging -g 1 -l 20 >/dev/null 2>&1 ||
	fail "perf record failed"
perf script -i "$WP_OUT/perf.data" > "$WP_OUT/script.txt" 2>/dev/null
n=$(grep -c 'wakeplace:select_cpu: policy=idlemask pid=[0-9]* prev=[0-9]* target=[0-9]* chosen=[0-9]* outcome=[a-z]* scanned=[0-9]*' "$WP_OUT/script.txt")
log "$(head -2 "$WP_OUT/script.txt")"
assert_gt "$n" 10 "events printed by perf script"
stat=$(perf stat -e 'wakeplace:*' -x, -- perf bench sched pipe -l 2000 2>&1 >/dev/null |
	awk -F, '/wakeplace:select_cpu/ { print $1 }')
assert_gt "${stat:-0}" 0 "perf stat counts wakeplace:select_cpu"
