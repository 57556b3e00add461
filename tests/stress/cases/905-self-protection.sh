#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: long self-protection fault cycles (default selfprot:20)
# requires: module perf
#
# The long version of tests/cases/705-self-protection.sh: the same checks, more
# iterations: the default target is 20, within a time budget of
# 480 s (either may be changed with wpstress=selfprot:N,selfprot_s:SECS on the
# guest command line, or WP_STRESS_SELFPROT=N and ..._S=SECS).
. "$WP_TESTS/stress/lib.sh"
st_default selfprot 20
st_default selfprot_s 480
exec bash "$WP_TESTS/cases/705-self-protection.sh"
