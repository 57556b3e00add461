#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: with 64 or more CPUs (an idle mask of several words), idlecore claims whole cores beyond the first word and across words, never while a sibling is busy, and its picks stay in allowed, active CPUs
# requires: module perf smt
# tier: scale
#
# A core's siblings numbered x86's way (cpu and cpu + the number of cores)
# have their idle bits in different 64-bit words from 33 cores on, and a
# claim that needed them in one word never took those cores whole.  QEMU
# numbers siblings 2k and 2k + 1, so in smt72 no core spans words: the
# probe then starts in the last word (CPU 64 on), where the search for a
# whole core wraps; a guest (or host) with x86 numbering starts it on the
# first core that spans words instead (tests/unit/coremask covers that
# numbering on the host).
#
# 1. wakeprobe, waker and prev on CPU W (its core half busy): idlecore
#    puts at least 75% of the wakeups on another, whole idle core, and
#    claims cores meanwhile (core_claims grows).
# 2. Two pipe ping-pongs and a messaging group over all CPUs, until 1000
#    core claims or 120 s (a bound, not a speed requirement): claims are
#    made, none while a sibling was busy (core_claim_busy stays 0), and no
#    pick is outside the wakee's allowed or the active CPUs (corrected).
. "$WP_TESTS/lib.sh"
. "$WP_TESTS/stress/lib.sh"
require_smt
n=$(nr_cpus)
[ "$n" -ge 64 ] || skip "$n CPUs: the idle mask is one word"
probe=$WP_ROOT/tests/tools/wakeprobe
[ -x "$probe" ] || fail "tests/tools/wakeprobe not built"

# The cores whose siblings' bits are in different words, and the CPUs of
# the last word.
span=() last=()
while read -r core; do
	sibs=$(cpulist_expand "$core")
	words=$(for c in $sibs; do echo $((c / 64)); done | sort -u | wc -l)
	first=${sibs%% *}
	[ "$words" -gt 1 ] && span+=("$first")
	[ $((first / 64)) = $(((n - 1) / 64)) ] && last+=("$first")
done < <(cores)
log "$n CPUs, $(nr_cores) cores; cores spanning words: ${#span[@]}; siblings of cpu0: $(smt_siblings 0)"
if [ "${#span[@]}" -gt 0 ]; then
	W=${span[0]}
	log "x86 numbering: probing from cpu$W, siblings $(smt_siblings "$W")"
else
	[ "${#last[@]}" -ge 2 ] || skip "fewer than 2 whole cores in the last word"
	W=${last[0]}
	log "no core spans words: probing from cpu$W in the last word, siblings $(smt_siblings "$W")"
fi
sib=" $(cpulist_expand "$(smt_siblings "$W")") "

st_init core_claims_big 1 0
wp_load policy=idlecore
at_exit 'wp_loaded && rmmod wakeplace'

# 1. From a half-busy core to another whole idle core.
claims0=$(counter core_claims)
out=$("$probe" -w "$W" -p "$W" -n 40) || fail "wakeprobe failed"
claims=$(( $(counter core_claims) - claims0 ))
log "wakeprobe: $(tr '\n' ' ' <<<"$out"); core claims meanwhile $claims"
other=0
while read -r key cpu count; do
	[ "$key" = cpu ] && [[ $sib != *" $cpu "* ]] && other=$((other + count))
done <<<"$out"
trials=$(awk '$1 == "trials" { print $2 }' <<<"$out")
[ "${trials:-0}" -gt 0 ] || fail "wakeprobe reported no trials"
[ $((other * 100 / trials)) -ge 75 ] ||
	st_bad "$other of $trials wakeups from cpu$W's half-busy core went to another core (want >= 75%)"
[ "$claims" -gt 0 ] || st_bad "no core claim while probing from cpu$W"

# 2. A wakeup load over all CPUs.
claims0=$(counter core_claims)
busy0=$(counter core_claim_busy)
wl_start pipe1 perf bench sched pipe -l 2000
wl_start pipe2 perf bench sched pipe -l 2000
wl_start msg perf bench sched messaging -g 1 -l 5
wl_wait
st_start
_enough() { [ "$(counter core_claims)" -ge $((claims0 + 1000)) ]; }
wait_until 120 _enough
wl_stop

claims=$(( $(counter core_claims) - claims0 ))
busy=$(( $(counter core_claim_busy) - busy0 ))
log "core claims $claims, claimed while a sibling was busy $busy, claim_lost $(stat_of idlecore claim_lost), stale_hint $(stat_of idlecore stale_hint), mask picks $(stat_of idlecore mask)"
[ "$claims" -gt 0 ] || st_bad "the load made no core claim"
[ "$busy" = 0 ] || st_bad "$busy of $claims core claims while a sibling was not idle"
[ "$(counter corrected)" = 0 ] || st_bad "corrected picks: $(counter corrected)"
st_checked "$((trials + claims))"
st_iter
wp_unload
st_finish
