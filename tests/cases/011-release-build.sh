#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: the release build loads, switches and has no test-only knobs
# requires: module topo=llc2
. "$WP_TESTS/lib.sh"

[ -f "$WP_KO_RELEASE" ] || fail "release module not built: $WP_KO_RELEASE"
wp_load_release policy=mirror
at_exit 'wp_loaded && rmmod wakeplace'
assert_eq "$(wp_read policy)" mirror "policy= at load"
# Every test_* parameter is test-only, whatever its name.
p=$(find /sys/module/wakeplace/parameters/ -maxdepth 1 -name 'test_*' -printf '%f\n')
[ -z "$p" ] || fail "release build has test-only parameters: $p"
modinfo -F parm "$WP_KO_RELEASE" | grep -q '^test_' &&
	fail "release module file declares test-only parameters"
pass "no test-only parameters"
modinfo "$WP_KO_RELEASE" | grep -q '^license: *GPL' || fail "module license is not GPL"
wp_unload
