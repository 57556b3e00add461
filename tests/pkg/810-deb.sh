#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: apt install of the wakeplace-dkms and wakeplacectl .debs builds the module with DKMS; modprobe and wakeplacectl work; an upgrade keeps the admin's modprobe.d; apt purge leaves nothing of ours
# requires: root vm apt dkms dpkg bpftool jq topo=llc2
# tier: package (make check-deb; not in make check: two DKMS builds under TCG take 20-35 min)
. "$WP_TESTS/cases/8xx-admin-lib.sh"
admin_private_ns "$0" "$@"
. "$WP_TESTS/lib.sh"

rel=$(uname -r)
rel_re=$(admin_re "$rel")
ver=$("$WP_ROOT/scripts/gen-version" version)
[ -n "$ver" ] || fail "cannot read VERSION"
# make check-deb's build stage (WP_BUILD_DEBS=1) makes both (make deb, and make deb
# WP_DEB_VERSION=<next patch level> DEB_DIR=build/deb-upgrade).
debs=$WP_ROOT/build/deb
up=$WP_ROOT/build/deb-upgrade
[ -f "$debs/wakeplace-dkms_${ver}_all.deb" ] ||
	skip "no $debs/wakeplace-dkms_${ver}_all.deb (make deb)"
nd=$(ls "$up"/wakeplace-dkms_*_all.deb 2>/dev/null | head -n 1)
[ -n "$nd" ] || skip "no upgrade packages in $up (make deb WP_DEB_VERSION=... DEB_DIR=$up)"
next=${nd##*/wakeplace-dkms_}
next=${next%_all.deb}
[ "$next" != "$ver" ] || fail "the upgrade packages are version $ver too"
[ -d "/lib/modules/$rel/build/include" ] || skip "no headers for $rel in the guest"
# DKMS builds under TCG take minutes and do not depend on the topology.
[ "${WP_TOPO:-}" = smt ] && skip "the packages are checked in the llc2 guest of each kernel"

# dpkg, apt, DKMS and the packages write in /usr, /etc and /var: overlays
# that vanish with this case's namespace.
admin_rw /usr /etc /var
# /lib/modules holds the running kernel only, with its metadata but none of
# its modules: DKMS' postinst builds for the running kernel and for the
# newest one that has a directory there (a second build would double the
# minutes), and every depmod then takes a second instead of minutes
# through the 9p root (8xx-admin-lib.sh, admin_slim_modules).
mods=$(mktemp -d /run/wp-mods.XXXXXX) || fail "mktemp"
mount -t tmpfs wp-mods "$mods" || fail "cannot mount a tmpfs on $mods"
mkdir "$mods/$rel"
for f in modules.order modules.builtin modules.builtin.modinfo build source; do
	[ -e "/lib/modules/$rel/$f" ] && cp -P "/lib/modules/$rel/$f" "$mods/$rel/"
done
mount --bind "$mods" /usr/lib/modules || fail "cannot mount $mods on /usr/lib/modules"
depmod "$rel" || fail "depmod of the slim tree failed"
log "/lib/modules: $(ls /lib/modules) ($(ls "/lib/modules/$rel" | tr '\n' ' '))"
# man-db's trigger re-indexes every page through the 9p root: minutes
# under TCG for nothing this case checks.
rm -f /var/lib/man-db/auto-update
at_exit admin_unload

# files: what is on disk in the writable trees, one path a line: what the
# overlays' upper layers hold (all that changed since admin_rw) and the
# module tree.
files() {
	local mp opts upper
	while read -r _ mp _ opts _; do
		upper=$(tr , '\n' <<<"$opts" | sed -n 's/^upperdir=//p')
		[ -d "$upper" ] || continue
		find "$upper" -mindepth 1 | sed "s,^$upper,$mp,"
	done < <(grep '^wp-admin-ovl ' /proc/self/mounts)
	find /lib/modules/ -mindepth 1
} 
ours() { grep -i wakeplace; }

modinfo -n wakeplace >/dev/null 2>&1 &&
	fail "a wakeplace module is already installed: $(modinfo -n wakeplace)"
dpkg-query -W wakeplace-dkms wakeplacectl >/dev/null 2>&1 &&
	fail "wakeplace packages are already known to dpkg"
files | sort >"$WP_OUT/files.before"

apt_do() { # LABEL APT-ARGS...
	local label=$1
	shift
	admin_time "$label" env DEBIAN_FRONTEND=noninteractive \
		apt -y -o Dpkg::Use-Pty=0 --no-install-recommends "$@"
}

# pkg_state PKG: "Status Version" as dpkg knows it
pkg_state() { dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null; }

# --- install ------------------------------------------------------------------------------
apt_do install install "$debs/wakeplace-dkms_${ver}_all.deb" \
	"$debs"/wakeplacectl_"${ver}"_*.deb || fail "apt install of the .debs failed"
for p in wakeplace-dkms wakeplacectl; do
	assert_eq "$(pkg_state $p)" "install ok installed $ver" "dpkg state of $p"
done
st=$(dkms status -m wakeplace -k "$rel" 2>/dev/null)
log "dkms status: $st"
assert_match "$st" "^wakeplace/${ver//./\\.}, $rel_re, x86_64: installed" "dkms status after install"
ko=$(modinfo -n wakeplace) || fail "modinfo cannot find the DKMS module"
assert_match "$ko" "^/(usr/)?lib/modules/$rel_re/updates/dkms/wakeplace\.ko" "module path"
assert_eq "$(modinfo -F version wakeplace)" "$ver" "module version"
# Merged /usr: PATH may find it as /sbin/wakeplacectl, the same file.
assert_eq "$(readlink -f "$(command -v wakeplacectl)")" /usr/sbin/wakeplacectl "wakeplacectl on PATH"
[ -f /lib/systemd/system/wakeplace-auto.service ] || fail "the unit is not installed"
[ -e /etc/systemd/system/multi-user.target.wants/wakeplace-auto.service ] &&
	fail "the package enabled wakeplace-auto.service"
[ -f /usr/share/doc/wakeplacectl/examples/modprobe.d-wakeplace.conf ] ||
	fail "no modprobe.d example"
pass "installed: $ko"

must modprobe wakeplace policy=idlemask
wp_loaded || fail "modprobe returned but wakeplace is not loaded"
assert_eq "$(wp_read policy)" idlemask "policy after modprobe policy=idlemask"
js=$(wakeplacectl -j status) || fail "wakeplacectl status failed: $js"
assert_eq "$(jq -r .state <<<"$js")" ok "wakeplacectl status: state"
assert_eq "$(jq -r .policy <<<"$js")" idlemask "wakeplacectl status: policy"
assert_eq "$(jq -r .version <<<"$js")" "$ver" "wakeplacectl status: module version"
must modprobe -r wakeplace
wp_loaded && fail "still loaded after modprobe -r"

# --- upgrade -----------------------------------------------------------------------------
# The admin's boot-time configuration, from the shipped examples, with a
# policy other than the example's.
must cp /usr/share/doc/wakeplacectl/examples/modprobe.d-wakeplace.conf /etc/modprobe.d/wakeplace.conf
must sed -i 's/^options wakeplace policy=idlemask$/options wakeplace policy=prevfirst/' \
	/etc/modprobe.d/wakeplace.conf
grep -qx 'options wakeplace policy=prevfirst' /etc/modprobe.d/wakeplace.conf ||
	fail "the example no longer has the options line this case edits"
must cp /usr/share/doc/wakeplacectl/examples/modules-load.d-wakeplace.conf /etc/modules-load.d/wakeplace.conf
sum_before=$(md5sum /etc/modprobe.d/wakeplace.conf /etc/modules-load.d/wakeplace.conf)

apt_do upgrade install "$up/wakeplace-dkms_${next}_all.deb" \
	"$up"/wakeplacectl_"${next}"_*.deb || fail "apt install of the $next .debs failed"
for p in wakeplace-dkms wakeplacectl; do
	assert_eq "$(pkg_state $p)" "install ok installed $next" "dpkg state of $p after the upgrade"
done
st=$(dkms status -m wakeplace 2>/dev/null)
log "dkms status: $st"
assert_match "$st" "^wakeplace/${next//./\\.}, $rel_re, x86_64: installed" "dkms status after the upgrade"
[ "$(grep -c . <<<"$st")" = 1 ] || fail "more than the new version registered with DKMS: $st"
[ -e "/usr/src/wakeplace-$ver" ] && fail "/usr/src/wakeplace-$ver left after the upgrade"
assert_eq "$(modinfo -F version wakeplace)" "$next" "module version after the upgrade"
assert_eq "$(md5sum /etc/modprobe.d/wakeplace.conf /etc/modules-load.d/wakeplace.conf)" \
	"$sum_before" "the admin's modprobe.d and modules-load.d files after the upgrade"
# What the boot-time configuration is for: a plain modprobe (as
# systemd-modules-load runs it) loads the new module with its policy.
must modprobe wakeplace
assert_eq "$(wp_read policy)" prevfirst "policy of a plain modprobe after the upgrade"
js=$(wakeplacectl -j status) || fail "wakeplacectl status failed: $js"
assert_eq "$(jq -r .state <<<"$js")" ok "wakeplacectl status after the upgrade: state"
assert_eq "$(jq -r .version <<<"$js")" "$next" "wakeplacectl status after the upgrade: version"
must modprobe -r wakeplace
pass "upgraded to $next, configuration kept"

# --- purge -----------------------------------------------------------------------------------
apt_do purge purge wakeplacectl wakeplace-dkms || fail "apt purge failed"
for p in wakeplace-dkms wakeplacectl; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' &&
		fail "$p still installed after purge"
done
modinfo -n wakeplace >/dev/null 2>&1 && fail "still installed after purge: $(modinfo -n wakeplace)"
[ -e /var/lib/dkms/wakeplace ] && fail "DKMS tree left: $(find /var/lib/dkms/wakeplace | head -n 5)"
compgen -G '/usr/src/wakeplace-*' >/dev/null && fail "sources left: $(echo /usr/src/wakeplace-*)"
# The admin's files are theirs: they stay.
cmp -s <(md5sum /etc/modprobe.d/wakeplace.conf /etc/modules-load.d/wakeplace.conf) <(echo "$sum_before") ||
	fail "purge touched the admin's modprobe.d or modules-load.d file"
files | sort >"$WP_OUT/files.after"
comm -13 "$WP_OUT/files.before" "$WP_OUT/files.after" >"$WP_OUT/files.new"
log "new on disk after install, upgrade and purge: $(wc -l <"$WP_OUT/files.new") paths (files.new)"
left=$(ours <"$WP_OUT/files.new" | grep -vxF -e /etc/modprobe.d/wakeplace.conf \
	-e /etc/modules-load.d/wakeplace.conf)
[ -z "$left" ] || fail "left on disk after purge: $(head -n 20 <<<"$left")"
pass "purged: nothing of ours left ($(ours <"$WP_OUT/files.before" | wc -l) before, none after)"
exit 0
