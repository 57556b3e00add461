#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: bad writes fail with EINVAL and change nothing
# requires: module topo=llc2
. "$WP_TESTS/lib.sh"

wp_load policy=mirror
at_exit 'wp_loaded && rmmod wakeplace'

# refuse FILE VALUE: the write must fail with "Invalid argument".
refuse() {
	local err
	err=$( { printf '%b' "$2" > "$(wp_sysfs "$1")"; } 2>&1) &&
		fail "write of '$2' to $1 succeeded"
	[[ $err == *"Invalid argument"* ]] ||
		fail "write of '$2' to $1: expected EINVAL, got: $err"
}

long=$(printf 'x%.0s' $(seq 1 40))
huge=$(printf 'a%.0s' $(seq 1 5000))
for f in policy shadow; do
	before=$(wp_read $f)
	for v in "bogus" "\n" "$long" "$huge" "mir\x01ror" "mirror\x00" \
		 "\xff\xfe" "mirror stock" " mirror" "MIRROR"; do
		refuse $f "$v"
	done
	assert_eq "$(wp_read $f)" "$before" "$f unchanged after bad writes"
done
assert_match "$(wp_read available_policies)" '\[mirror\]' "active still mirror"

before=$(wp_read policies/bounded/scan_max)
for v in -1 1025 99999999999 abc "4x" "\n" "0x10" "4 4" "\x00"; do
	refuse policies/bounded/scan_max "$v"
done
assert_eq "$(wp_read policies/bounded/scan_max)" "$before" "tunable unchanged"
wp_write policies/bounded/scan_max 8 || fail "valid tunable write refused"
assert_eq "$(wp_read policies/bounded/scan_max)" 8 "tunable written"
grep -q '^scan_max 8 0 1024$' "$(wp_sysfs policies/bounded/tunables)" ||
	fail "tunables file does not show 'scan_max 8 0 1024'"

for v in 0 65537 -5 x "\n"; do
	refuse sample_period "$v"
done
assert_eq "$(wp_read sample_period)" 64 "sample_period unchanged"
for v in bogus 2 "\n" "$long"; do
	refuse stats/reset "$v"
done
wp_write stats/reset all || fail "reset all refused"
wp_write stats/reset mirror || fail "reset mirror refused"
assert_eq "$(wp_read state)" ok "state"
