#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: idlecore prefers a whole idle core to the idle SMT sibling of a busy CPU
# requires: module smt
# tier: core
. "$WP_TESTS/lib.sh"
require_smt

probe=$WP_ROOT/tests/tools/wakeprobe
[ -x "$probe" ] || fail "tests/tools/wakeprobe not built"

# The waker's core is half busy (the waker itself); another core is idle.
W=$(online_cpus | awk '{ print $1 }')
sib=$(cpulist_expand "$(smt_siblings "$W")")
other=
for c in $(online_cpus); do
	[[ " $sib " == *" $c "* ]] && continue
	[[ " $(cpulist_expand "$(cpus_of_llc "$W")") " == *" $c "* ]] || continue
	other="$other $(cpulist_expand "$(smt_siblings "$c")")"
done
other=$(tr ' ' '\n' <<<"$other" | sort -un | xargs)
[ -n "$other" ] || skip "no second core in the waker's LLC"
log "waker CPU $W, its siblings: $sib; CPUs of other cores: $other"

wp_load policy=idlecore
at_exit 'wp_loaded && rmmod wakeplace'
out=$("$probe" -w "$W" -p "$W" -n 40) || fail "wakeprobe failed"
log "idlecore: $(tr '\n' ' ' <<<"$out")"
in_other=0
while read -r key cpu count; do
	[ "$key" = cpu ] && [[ " $other " == *" $cpu "* ]] && in_other=$((in_other + count))
done <<<"$out"
n=$(awk '$1 == "trials" { print $2 }' <<<"$out")
assert_ge $((in_other * 100 / n)) 75 "% of wakeups on an idle core"
