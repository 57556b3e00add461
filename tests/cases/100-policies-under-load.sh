#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: every policy is selectable under load and keeps the invariants
# requires: module perf topo=llc2
# tier: core
. "$WP_TESTS/lib.sh"

wp_load
at_exit 'wp_loaded && rmmod wakeplace'
bg_load -g 1 -l 100

read -ra pols <<<"$(wp_policies)"
assert_eq "${pols[*]}" "$(src_policies)" "available_policies: the policies of list.h"
read -ra outs <<<"$(src_outcomes)"
[ "${#outs[@]}" -gt 0 ] || fail "no outcomes in module/outcomes.h"
for pol in "${pols[@]}"; do
	wp_write policy "$pol" || fail "switch to $pol refused"
	assert_eq "$(wp_read policy)" "$pol" "active policy"
	sleep 1
done
# Back through them once more, quickly, in reverse.
for ((i = ${#pols[@]} - 1; i >= 0; i--)); do
	wp_write policy "${pols[i]}" || fail "switch to ${pols[i]} refused"
done
stop_load

for pol in "${pols[@]}"; do
	[ "$pol" = stock ] && continue
	picks=$(stat_of "$pol" picks)
	sum=0
	for k in "${outs[@]}"; do
		v=$(stat_of "$pol" "$k")
		[ -n "$v" ] || fail "$pol: no outcome row $k in stats/$pol"
		sum=$((sum + v))
	done
	log "$pol: picks $picks, outcomes $sum, remote_lines $(stat_of "$pol" remote_lines)"
	assert_gt "$picks" 0 "$pol placed wakeups"
	assert_eq "$sum" "$picks" "$pol: outcomes add up to picks"
done
assert_eq "$(counter corrected)" 0 "corrected picks"
assert_eq "$(counter reverted)" 0 "automatic reverts"
assert_eq "$(wp_read state)" ok "state"
