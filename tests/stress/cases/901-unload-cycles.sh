#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: long insmod + rmmod cycles under load (default unload:50)
# requires: module perf
#
# The long version of tests/cases/701-unload-cycles.sh: the same checks, more
# iterations: the default target is 50, within a time budget of
# 420 s (either may be changed with wpstress=unload:N,unload_s:SECS on the
# guest command line, or WP_STRESS_UNLOAD=N and ..._S=SECS).
. "$WP_TESTS/stress/lib.sh"
st_default unload 50
st_default unload_s 420
exec bash "$WP_TESTS/cases/701-unload-cycles.sh"
