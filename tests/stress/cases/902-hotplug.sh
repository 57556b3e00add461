#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: long CPU hotplug cycles under load with idlemask/idlecore (default hotplug:50)
# requires: module perf
#
# The long version of tests/cases/702-hotplug.sh: the same checks, more
# iterations: the default target is 50, within a time budget of
# 420 s (either may be changed with wpstress=hotplug:N,hotplug_s:SECS on the
# guest command line, or WP_STRESS_HOTPLUG=N and ..._S=SECS).
. "$WP_TESTS/stress/lib.sh"
st_default hotplug 50
st_default hotplug_s 420
exec bash "$WP_TESTS/cases/702-hotplug.sh"
