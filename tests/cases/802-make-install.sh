#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: make install puts the module in extra/ (depmod), wakeplacectl, man page and completion in /usr/local; modprobe loads it; make uninstall removes all
# requires: root vm module-release ctl make topo=llc2
. "$WP_TESTS/cases/8xx-admin-lib.sh"
admin_private_ns "$0" "$@"
. "$WP_TESTS/lib.sh"

rel=$(uname -r)
rel_re=$(admin_re "$rel")
# Two full depmod runs through the guest's 9p root take minutes under TCG
# and nothing here depends on the CPU topology: once per kernel.
[ "${WP_TOPO:-}" = smt ] && skip "make install is checked in the llc2 guest of each kernel"
# The tree is read-only in the guest: make writes build/ and ctl/ through
# an overlay, as it would in the admin's own checkout.
admin_rw "$WP_ROOT" /usr/local
admin_slim_modules "$rel"
at_exit admin_unload
modinfo -n wakeplace >/dev/null 2>&1 &&
	fail "a wakeplace module is already installed: $(modinfo -n wakeplace)"

admin_time install make -C "$WP_ROOT" --no-print-directory install ||
	fail "make install failed"

files=(
	"/lib/modules/$rel/extra/wakeplace.ko"
	/usr/local/sbin/wakeplacectl
	/usr/local/share/man/man8/wakeplacectl.8
	/usr/local/share/bash-completion/completions/wakeplacectl
	/usr/local/share/doc/wakeplace/sysfs-kernel-wakeplace
	/usr/local/share/doc/wakeplace/examples/modprobe.d-wakeplace.conf
	/usr/local/share/doc/wakeplace/examples/modules-load.d-wakeplace.conf
)
for f in "${files[@]}"; do
	[ -f "$f" ] || fail "make install did not install $f"
done
pass "all files installed"
[ -x /usr/local/sbin/wakeplacectl ] || fail "wakeplacectl not executable"
assert_eq "$(modinfo -n wakeplace)" "/lib/modules/$rel/extra/wakeplace.ko" "depmod ran: modprobe finds extra/"
assert_match "$(modinfo -F vermagic wakeplace)" "^$rel_re " "vermagic of the installed module"
[ -n "$(modinfo -F parm wakeplace | grep '^test_fault')" ] &&
	fail "make install installed the test flavour"
bash -c '. /usr/local/share/bash-completion/completions/wakeplacectl && complete -p wakeplacectl' \
	>/dev/null || fail "the completion does not register for wakeplacectl"
grep -q '^\.TH WAKEPLACECTL 8' /usr/local/share/man/man8/wakeplacectl.8 ||
	fail "man page is not wakeplacectl(8)"

must modprobe wakeplace policy=idlemask
out=$(/usr/local/sbin/wakeplacectl status 2>&1) || fail "installed wakeplacectl status failed: $out"
assert_match "$out" "idlemask" "installed wakeplacectl sees the policy"
must /usr/local/sbin/wakeplacectl unload
wp_loaded && fail "still loaded after wakeplacectl unload"

admin_time uninstall make -C "$WP_ROOT" --no-print-directory uninstall ||
	fail "make uninstall failed"
for f in "${files[@]}"; do
	[ -e "$f" ] && fail "make uninstall left $f"
done
[ -e /usr/local/share/doc/wakeplace ] && fail "make uninstall left the doc directory"
modinfo -n wakeplace >/dev/null 2>&1 && fail "modinfo still finds $(modinfo -n wakeplace)"
must_fail modprobe wakeplace
pass "uninstalled"
exit 0
