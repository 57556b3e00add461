#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: idlecore under wakeup-heavy load makes core claims, and never claims a core while one of its SMT siblings is not idle (core_claim_busy stays 0)
# requires: module perf smt
# tier: core
#
# core_claims counts the whole-core picks; core_claim_busy the ones where,
# at claim time, a sibling of the claimed CPU was not idle in the module's
# own idle mask: a core handed out twice (a claim that took only the
# chosen CPU) or read idle while a sibling ran (marks racing).  Before the
# claim was made atomic over the core's siblings, this load saw 2629 of
# 7455 (6.1 smt), and 1 to 3 of ~6000 with a two-mask scheme whose windows
# a descheduled vCPU stretches.  The load is two pipe ping-pongs and a
# small messaging group on 2 cores x 2 threads, so whole cores are often
# idle and several wakers search at once.  It runs until 3000 core claims
# or 60 s (a bound, not a speed requirement).
. "$WP_TESTS/lib.sh"
. "$WP_TESTS/stress/lib.sh"
. "$WP_TESTS/cases/11x-core-lib.sh"
require_smt

st_init core_claims 1 0
wp_load policy=idlecore
at_exit 'wp_loaded && rmmod wakeplace'
core_claim_load 3000 60
st_checked "$CLAIMS"
st_iter
wp_unload
st_finish
