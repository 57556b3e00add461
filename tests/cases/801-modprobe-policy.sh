#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: boot-time choice: modprobe policy=idlemask, the shipped modprobe.d example, its tunables one-liner, modules-load.d, a bad policy refused
# requires: root vm module-release ctl topo=llc2
. "$WP_TESTS/cases/8xx-admin-lib.sh"
admin_private_ns "$0" "$@"
. "$WP_TESTS/lib.sh"

rel=$(uname -r)
conf=$WP_ROOT/packaging/modprobe.d/wakeplace.conf
[ -f "$conf" ] || fail "$conf missing"

admin_rw "/lib/modules/$rel" /etc/modprobe.d /etc/modules-load.d
at_exit admin_unload
rm -f /etc/modprobe.d/wakeplace.conf /etc/modules-load.d/wakeplace.conf

# The module where `make install` puts it.  A full `depmod -a` reads every
# module of the kernel through the guest's 9p root (minutes under TCG; 802
# runs it, as make install does): this case is about modprobe.d, so the
# index of its private overlay gets wakeplace alone.
install -D -m 0644 "$WP_KO_RELEASE" "/lib/modules/$rel/extra/wakeplace.ko"
admin_time depmod depmod "$rel" "/lib/modules/$rel/extra/wakeplace.ko" ||
	fail "depmod failed"
assert_eq "$(modinfo -n wakeplace)" "/lib/modules/$rel/extra/wakeplace.ko" "modprobe finds extra/"

# 1. On the command line; remember idlemask's default max_tries.
must modprobe wakeplace policy=idlemask
assert_eq "$(wp_read policy)" idlemask "modprobe wakeplace policy=idlemask"
assert_eq "$(cat /sys/module/wakeplace/parameters/policy)" idlemask "parameters/policy"
def=$(wp_read policies/idlemask/max_tries)
assert_ne "$def" 8 "default max_tries (the one-liner below sets 8)"
must modprobe -r wakeplace

# 2. The shipped example as /etc/modprobe.d/wakeplace.conf: policy=idlemask.
cp "$conf" /etc/modprobe.d/wakeplace.conf
must modprobe wakeplace
assert_eq "$(wp_read policy)" idlemask "policy from modprobe.d"
assert_eq "$(wp_read policies/idlemask/max_tries)" "$def" "max_tries untouched without the install line"
must modprobe -r wakeplace
# The command line comes after modprobe.d and wins.
must modprobe wakeplace policy=noscan
assert_eq "$(wp_read policy)" noscan "command line over modprobe.d"
must modprobe -r wakeplace

# 3. The documented tunables one-liner: the example's commented install
# line, uncommented, with wakeplacectl at its path in this tree.
line=$(sed -n 's/^#\(install wakeplace .*\)$/\1/p' "$conf")
[ -n "$line" ] || fail "no commented install line in $conf"
line=${line//\/usr\/local\/sbin\/wakeplacectl/$WP_CTL}
log "install line: $line"
printf '%s\n' "$line" >> /etc/modprobe.d/wakeplace.conf
must modprobe wakeplace
assert_eq "$(wp_read policy)" idlemask "policy with the install line"
assert_eq "$(wp_read policies/idlemask/max_tries)" 8 "max_tries set by the install line"
must modprobe -r wakeplace

# 4. At boot: systemd-modules-load reads modules-load.d and goes through
# libkmod, which applies the same options and install line.
sml=
for f in /lib/systemd/systemd-modules-load /usr/lib/systemd/systemd-modules-load; do
	[ -x "$f" ] && { sml=$f; break; }
done
if [ -n "$sml" ]; then
	cp "$WP_ROOT/packaging/modules-load.d/wakeplace.conf" /etc/modules-load.d/
	admin_time modules-load "$sml" /etc/modules-load.d/wakeplace.conf ||
		fail "systemd-modules-load failed"
	wp_loaded || fail "systemd-modules-load did not load wakeplace"
	assert_eq "$(wp_read policy)" idlemask "policy at boot (modules-load.d)"
	assert_eq "$(wp_read policies/idlemask/max_tries)" 8 "max_tries at boot"
	must modprobe -r wakeplace
else
	log "systemd-modules-load not found: boot path not checked"
fi

# 5. wakeplacectl load goes through modprobe too.
must "$WP_CTL" load
assert_eq "$(wp_read policy)" idlemask "wakeplacectl load honours modprobe.d"
must "$WP_CTL" unload

# 6. A bad name refuses the load and says why.
printf 'options wakeplace policy=nosuch\n' > /etc/modprobe.d/wakeplace.conf
must_fail modprobe wakeplace
wp_loaded && fail "loaded with policy=nosuch"
dmesg_since_start | grep -q "wakeplace: unknown policy 'nosuch'" ||
	fail "no 'unknown policy' line in dmesg"
pass "policy=nosuch refused with a dmesg line"
exit 0
