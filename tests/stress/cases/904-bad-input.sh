#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: long sysfs bad input, inputs per file (default fuzz:1000)
# requires: module perf
#
# The long version of tests/cases/704-bad-input.sh: the same checks, more
# iterations: the default target is 1000, within a time budget of
# 360 s (either may be changed with wpstress=fuzz:N,fuzz_s:SECS on the
# guest command line, or WP_STRESS_FUZZ=N and ..._S=SECS).
. "$WP_TESTS/stress/lib.sh"
st_default fuzz 1000
st_default fuzz_s 360
exec bash "$WP_TESTS/cases/704-bad-input.sh"
