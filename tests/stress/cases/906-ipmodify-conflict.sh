#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: long IPMODIFY conflict cycles (default conflict:20)
# requires: module perf
#
# The long version of tests/cases/706-ipmodify-conflict.sh: the same checks
# (a non-stock load refused with EBUSY, a stock load beside the other owner
# attaching nothing and its policy/shadow writes refused with EBUSY), more
# iterations: the default target is 20, within a time budget of
# 720 s (either may be changed with wpstress=conflict:N,conflict_s:SECS on the
# guest command line, or WP_STRESS_CONFLICT=N and ..._S=SECS).
. "$WP_TESTS/stress/lib.sh"
st_default conflict 20
st_default conflict_s 720
exec bash "$WP_TESTS/cases/706-ipmodify-conflict.sh"
