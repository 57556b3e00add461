#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: long cgroup assignment churn (default cgchurn:10000)
# requires: module topo=llc2
#
# The long version of tests/cases/712-cgroup-churn.sh: the same checks, more
# iterations: the default target is 10000 within a time budget of 900 s
# (wpstress=cgchurn:N,cgchurn_s:SECS on the guest command line, or
# WP_STRESS_CGCHURN=N and ..._S=SECS).
. "$WP_TESTS/stress/lib.sh"
st_default cgchurn 10000
st_default cgchurn_s 900
exec bash "$WP_TESTS/cases/712-cgroup-churn.sh"
