#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: under every policy, wakeups of tasks whose affinity churns stay inside p->cpus_ptr
# requires: module topo=llc2
. "$WP_TESTS/lib.sh"

churn=$WP_ROOT/tests/tools/churn
[ -x "$churn" ] || fail "tests/tools/churn not built"

wp_load
at_exit 'wp_loaded && rmmod wakeplace'
read -ra pols <<<"$(wp_read available_policies | tr -d '[]')"
total=0
for pol in "${pols[@]}"; do
	[ "$pol" = stock ] && continue
	wp_write policy "$pol" || fail "switch to $pol refused"
	r0=$(counter redirected)
	out=$("$churn" -p 4 -n 5000 -s "$RANDOM") || fail "$pol: churn: $out"
	log "$pol: $out, redirected $(( $(counter redirected) - r0 ))"
	assert_match "$out" '^wakeups [0-9]+ violations 0$' "$pol: no wakeup outside the allowed CPUs"
	total=$((total + $(awk '{ print $2 }' <<<"$out")))
done
log "wakeups checked: $total"
assert_eq "$(counter corrected)" 0 "corrected picks"
assert_eq "$(counter reverted)" 0 "automatic reverts"
assert_eq "$(wp_read state)" ok "state"
