# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the core-claim cases (113, 118).  Not a case itself (the
# runner takes NNN-name.sh only); sourced after tests/lib.sh and
# tests/stress/lib.sh, with idlecore loaded.

# core_claim_load WANT BOUND: two pipe ping-pongs and a small messaging
# group, run until WANT more core claims or BOUND seconds (a bound, not a
# speed requirement).  Then: some claims, none while a sibling of the
# claimed CPU was not idle (core_claim_busy), no corrected pick; failures
# go to st_bad.  Sets CLAIMS to the claims made meanwhile.
core_claim_load() {
	local want=$1 bound=$2 claims0 busy0 busy
	claims0=$(counter core_claims)
	busy0=$(counter core_claim_busy)
	wl_start pipe1 perf bench sched pipe -l 2000
	wl_start pipe2 perf bench sched pipe -l 2000
	wl_start msg perf bench sched messaging -g 1 -l 5
	wl_wait
	st_start
	# shellcheck disable=SC2317 # called by wait_until
	_enough() { [ "$(counter core_claims)" -ge $((claims0 + want)) ]; }
	wait_until "$bound" _enough
	wl_stop
	CLAIMS=$(( $(counter core_claims) - claims0 ))
	busy=$(( $(counter core_claim_busy) - busy0 ))
	log "core claims $CLAIMS, claimed while a sibling was busy $busy, claim_lost $(stat_of idlecore claim_lost), stale_hint $(stat_of idlecore stale_hint), mask picks $(stat_of idlecore mask)"
	[ "$CLAIMS" -gt 0 ] || st_bad "the load made no core claim"
	[ "$busy" = 0 ] || st_bad "$busy of $CLAIMS core claims while a sibling was not idle"
	[ "$(counter corrected)" = 0 ] || st_bad "corrected picks: $(counter corrected)"
}
