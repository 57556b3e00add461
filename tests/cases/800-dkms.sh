#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: make dkms-install builds wakeplace for the running kernel with DKMS; modprobe loads it; --remove removes it
# requires: root vm dkms make bpftool topo=llc2 kernel=6.12
# tier: package (make check-deb, with 810: its DKMS build under TCG took 428 s
# of make check's 6.12 llc2 guest; host admin.sh builds and installs with
# DKMS for every release in make check)
. "$WP_TESTS/cases/8xx-admin-lib.sh"
admin_private_ns "$0" "$@"
. "$WP_TESTS/lib.sh"

rel=$(uname -r)
rel_re=$(admin_re "$rel")
ver=$("$WP_ROOT/scripts/gen-version" version)
[ -n "$ver" ] || fail "cannot read VERSION"
[ -d "/lib/modules/$rel/build/include" ] || skip "no headers for $rel in the guest"
# A DKMS build under TCG takes minutes and does not depend on the CPU
# topology: once per kernel, in its llc2 guest.
[ "${WP_TOPO:-}" = smt ] && skip "the DKMS build is checked in the llc2 guest of each kernel"

admin_rw /usr/src /var/lib/dkms
admin_slim_modules "$rel"
at_exit admin_unload

# A clean start: no wakeplace that modprobe could find.
modinfo -n wakeplace >/dev/null 2>&1 &&
	fail "a wakeplace module is already installed: $(modinfo -n wakeplace)"

# The same command an admin runs (make dkms-install KVER=$rel), from the
# read-only source tree: sources to /usr/src, dkms add, dkms install.
admin_time dkms-install make -C "$WP_ROOT" --no-print-directory \
	KVER="$rel" dkms-install || fail "make dkms-install failed"
grep -q "^installed  $rel " "$WP_OUT/dkms-install.log" ||
	fail "dkms-install did not report the module installed for $rel"

st=$(dkms status -m wakeplace -v "$ver" -k "$rel" 2>/dev/null)
log "dkms status: $st"
assert_match "$st" "^wakeplace/${ver//./\\.}, $rel_re, x86_64: installed" "dkms status"
[ -f "/usr/src/wakeplace-$ver/dkms.conf" ] || fail "no sources in /usr/src/wakeplace-$ver"

ko=$(modinfo -n wakeplace) || fail "modinfo cannot find the installed module"
assert_match "$ko" "^/(usr/)?lib/modules/$rel_re/updates/dkms/wakeplace\.ko" "module path"
assert_eq "$(modinfo -F version wakeplace)" "$ver" "module version"
assert_match "$(modinfo -F vermagic wakeplace)" "^$rel_re " "vermagic"

must modprobe wakeplace policy=idlemask
wp_loaded || fail "modprobe returned but wakeplace is not loaded"
assert_eq "$(wp_read policy)" idlemask "policy after modprobe policy=idlemask"
assert_eq "$(wp_read kernel)" "$rel $(echo "$rel" | cut -d. -f1-2)" "kernel file"
must modprobe -r wakeplace
wp_loaded && fail "still loaded after modprobe -r"

admin_time dkms-remove "$WP_ROOT/packaging/dkms-install" --remove ||
	fail "dkms-install --remove failed"
modinfo -n wakeplace >/dev/null 2>&1 &&
	fail "still installed after --remove: $(modinfo -n wakeplace)"
[ -e "/usr/src/wakeplace-$ver" ] && fail "/usr/src/wakeplace-$ver left behind"
pass "removed"
exit 0
