#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: with 64 or more CPUs (an idle mask of several words), idlecore claims whole cores beyond the first word and across words, never while a sibling is busy, and its picks stay in allowed, active CPUs
# requires: module perf smt
# tier: scale
#
# A core's siblings numbered x86's way (cpu and cpu + the number of cores)
# have their idle bits in different 64-bit words from 33 cores on, and a
# claim that needed them in one word never took those cores whole.  QEMU
# numbers siblings 2k and 2k + 1, so in smt72 no core spans words; there
# the cores to find are those of the last word (CPU 64 on), found from
# CPU 0 by a walk over the others.  tests/unit/coremask covers x86's
# numbering on the host; on a guest or host that has it, this test looks
# for the cores that span words and fails without the cross-word claim.
#
# 1. wakeprobe, waker and prev on W, the first CPU of the first core not
#    to find, so W's core is half busy; the next such core, H, is made
#    half busy by a spinner on its highest sibling.  The wakee may use
#    W's core, H and the cores to find (wakeprobe -A under taskset): a
#    search for any idle CPU from W meets an idle sibling of W or of H
#    before the cores to find, so only a search for whole idle cores puts
#    it there.  At least 75% of the wakeups land there, and core_claims
#    grows.  (When every core is one to find, as with x86 numbering from
#    64 cores, W is in one of them, there is no H, and only the claims
#    tell, weakly: the guest's own wakeups claim cores too, ~500 during
#    the probe on smt72.  A whole guest of spinners is too much for TCG.)
#    With cores beyond the first word out of reach (a module changed to
#    that end, smt72), 0 of 40 wakeups landed on one, 39 on W's sibling.
# 2. Two pipe ping-pongs and a messaging group over all CPUs, until 1000
#    core claims or 120 s (a bound, not a speed requirement): claims are
#    made, none while a sibling was busy (core_claim_busy stays 0), and no
#    pick is outside the wakee's allowed or the active CPUs (corrected).
. "$WP_TESTS/lib.sh"
. "$WP_TESTS/stress/lib.sh"
. "$WP_TESTS/cases/11x-core-lib.sh"
require_smt
require_cmd taskset
n=$(nr_cpus)
[ "$n" -ge 64 ] || skip "$n CPUs: the idle mask is one word"
probe=$WP_ROOT/tests/tools/wakeprobe
[ -x "$probe" ] || fail "tests/tools/wakeprobe not built"

# Each core as its expanded CPU list; which span words, which are all in
# the last word.
span=() last=() rest=()
while read -r core; do
	sibs=$(cpulist_expand "$core")
	words=$(for c in $sibs; do echo $((c / 64)); done | sort -u)
	if [ "$(wc -l <<<"$words")" -gt 1 ]; then
		span+=("$sibs")
	elif [ "$words" = $(((n - 1) / 64)) ]; then
		last+=("$sibs")
	else
		rest+=("$sibs")
	fi
done < <(cores)
log "$n CPUs, $(nr_cores) cores: ${#span[@]} spanning words, ${#last[@]} in the last word; siblings of cpu0: $(smt_siblings 0)"
if [ "${#span[@]}" -gt 0 ]; then
	find=("${span[@]}")
	rest+=("${last[@]}")
	log "x86 numbering: the cores to find span words"
else
	find=("${last[@]}")
	log "no core spans words: the cores to find are in the last word"
fi
if [ "${#rest[@]}" -gt 0 ]; then
	read -ra wcore <<<"${rest[0]}"
else
	read -ra wcore <<<"${find[0]}"
	find=("${find[@]:1}")
fi
[ "${#find[@]}" -ge 1 ] || skip "no whole core to find"
W=${wcore[0]}
allowed="${wcore[*]} ${find[*]}"
spin=()
if [ "${#rest[@]}" -gt 1 ]; then
	read -ra h <<<"${rest[1]}"
	spin=(-s "${h[-1]}")
	allowed="$allowed ${h[*]}"
fi
targets=" ${find[*]} "
log "waker and prev cpu$W (core ${wcore[*]}), spinner ${spin[*]:-none}, cores to find: ${find[*]}"

st_init core_claims_big 1 0
wp_load policy=idlecore
at_exit 'wp_loaded && rmmod wakeplace'

# 1. From W's half-busy core, past H's, to a whole idle core to find.
claims0=$(counter core_claims)
out=$(taskset -c "${allowed// /,}" "$probe" -A -w "$W" -p "$W" "${spin[@]}" -n 40) ||
	fail "wakeprobe failed"
claims=$(( $(counter core_claims) - claims0 ))
log "wakeprobe: $(tr '\n' ' ' <<<"$out"); core claims meanwhile $claims"
found=0
while read -r key cpu count; do
	[ "$key" = cpu ] && [[ $targets == *" $cpu "* ]] && found=$((found + count))
done <<<"$out"
trials=$(awk '$1 == "trials" { print $2 }' <<<"$out")
[ "${trials:-0}" -gt 0 ] || fail "wakeprobe reported no trials"
[ $((found * 100 / trials)) -ge 75 ] ||
	st_bad "$found of $trials wakeups from cpu$W went to a whole idle core to find (want >= 75%)"
[ "$claims" -gt 0 ] || st_bad "no core claim while probing from cpu$W"

# 2. A wakeup load over all CPUs.
core_claim_load 1000 120
st_checked "$((trials + CLAIMS))"
st_iter
wp_unload
st_finish
