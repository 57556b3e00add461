#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: long affinity churn, wakeups over all policies (default churn:1000000)
# requires: module
#
# The long version of tests/cases/703-affinity-churn.sh: the same checks, more
# iterations: the default target is 1000000, within a time budget of
# 720 s (either may be changed with wpstress=churn:N,churn_s:SECS on the
# guest command line, or WP_STRESS_CHURN=N and ..._S=SECS).
. "$WP_TESTS/stress/lib.sh"
st_default churn 1000000
st_default churn_s 720
exec bash "$WP_TESTS/cases/703-affinity-churn.sh"
