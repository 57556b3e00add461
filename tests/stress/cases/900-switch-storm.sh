#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: long switch storm (default storm:10000)
# requires: module perf tbench tbench_srv
#
# The long version of tests/cases/700-switch-storm.sh: the same checks, more
# iterations: the default target is 10000, within a time budget of
# 900 s (either may be changed with wpstress=storm:N,storm_s:SECS on the
# guest command line, or WP_STRESS_STORM=N and ..._S=SECS).
. "$WP_TESTS/stress/lib.sh"
st_default storm 10000
st_default storm_s 900
exec bash "$WP_TESTS/cases/700-switch-storm.sh"
