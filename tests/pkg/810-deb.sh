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

# The box the packages are installed on.  Debian 12's userland (the
# guest's root) builds for 6.1 and 6.12; sid's 7.2 headers need sid's
# compiler and C library, as on any sid machine, and live in the sid root
# (scripts/buildroot).  For such a kernel the case installs into that root,
# chrooted: sid's apt, dpkg, DKMS, gcc and headers, what an admin of a sid
# box has when they type apt install ./*.deb.  box is "" for the guest's
# own root.
box=
sid=${WP_BUILDROOT:-/var/lib/wakeplace/sid}
case $(readlink -f "/lib/modules/$rel/build") in
"$sid"/*) box=$sid ;;
esac
# on CMD...: run CMD on the box (a clean environment in the sid root, as
# a login there would have).
on() {
	if [ -n "$box" ]; then
		chroot "$box" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 "$@"
	else
		"$@"
	fi
}
if [ -n "$box" ]; then
	for t in apt dpkg dkms gcc make bpftool; do
		on sh -c "command -v $t" >/dev/null ||
			fail "$t is not in the sid root $box (make deps installs it there)"
	done
fi

# dpkg, apt, DKMS and the packages write in /usr, /etc and /var: overlays
# that vanish with this case's namespace.
admin_rw "$box/usr" "$box/etc" "$box/var"
if [ -n "$box" ]; then
	# What a booted sid box has: /proc, /sys (the running kernel's BTF,
	# the layout's source), /dev, empty /tmp and /run; the .debs appear
	# read-only under /mnt, where buildroot run puts the checkout.
	mount -t proc proc "$box/proc" || fail "cannot mount /proc in $box"
	mount --rbind /sys "$box/sys" || fail "cannot bind /sys in $box"
	mount --rbind /dev "$box/dev" || fail "cannot bind /dev in $box"
	for d in tmp run; do
		mount -t tmpfs "wp-$d" "$box/$d" || fail "cannot mount a tmpfs on $box/$d"
	done
	mount --bind -o ro "$WP_ROOT/build" "$box/mnt" || fail "cannot bind $WP_ROOT/build on $box/mnt"
	debs=/mnt/deb
	up=/mnt/deb-upgrade
	log "installing into the sid root $box (chroot): $(on dpkg-query -W -f='${Version}' dkms | sed 's/^/dkms /')"
fi
# /lib/modules holds the running kernel only, with its metadata but none of
# its modules: DKMS' postinst builds for the running kernel and for the
# newest one that has a directory there (a second build would double the
# minutes), and every depmod then takes a second instead of minutes
# through the 9p root (8xx-admin-lib.sh, admin_slim_modules).
mods=$(mktemp -d /run/wp-mods.XXXXXX) || fail "mktemp"
mount -t tmpfs wp-mods "$mods" || fail "cannot mount a tmpfs on $mods"
mkdir "$mods/$rel"
# The build and source links are relative: the copies resolve on the box.
for f in modules.order modules.builtin modules.builtin.modinfo build source; do
	[ -e "$box/lib/modules/$rel/$f" ] && cp -P "$box/lib/modules/$rel/$f" "$mods/$rel/"
done
# And one of the kernel's own modules, as any real tree has: sid's DKMS
# (3.2) deletes modules.dep and the other depmod files when a removal
# leaves modules.dep empty ("a kernel no longer installed"), and then skips
# depmod at the next install; the upgrade's removal of the old version
# would do that to a tree holding wakeplace alone.
for m in "$box/lib/modules/$rel/kernel/lib/"*.ko*; do
	[ -f "$m" ] || continue
	mkdir -p "$mods/$rel/kernel/lib" && cp "$m" "$mods/$rel/kernel/lib/" ||
		fail "cannot copy $m into the slim tree"
	break
done
mount --bind "$mods" "$box/usr/lib/modules" || fail "cannot mount $mods on $box/usr/lib/modules"
on depmod "$rel" || fail "depmod of the slim tree failed"
on test -d "/lib/modules/$rel/build/include" || fail "the slim tree's build link does not resolve on the box"
log "/lib/modules: $(ls "$box/lib/modules") ($(ls "$box/lib/modules/$rel" | tr '\n' ' '))"
# man-db's trigger re-indexes every page through the 9p root: minutes
# under TCG for nothing this case checks.
rm -f "$box/var/lib/man-db/auto-update"
at_exit admin_unload

# files: what is on disk in the writable trees, one path a line as seen
# on the box: what the overlays' upper layers hold (all that changed since
# admin_rw) and the module tree.
files() {
	local mp opts upper
	while read -r _ mp _ opts _; do
		upper=$(tr , '\n' <<<"$opts" | sed -n 's/^upperdir=//p')
		[ -d "$upper" ] || continue
		find "$upper" -mindepth 1 | sed "s,^$upper,${mp#"$box"},"
	done < <(grep '^wp-admin-ovl ' /proc/self/mounts)
	find "$box/lib/modules/" -mindepth 1 | sed "s,^$box/,/,"
}
ours() { grep -i wakeplace; }

on modinfo -n wakeplace >/dev/null 2>&1 &&
	fail "a wakeplace module is already installed: $(on modinfo -n wakeplace)"
on dpkg-query -W wakeplace-dkms wakeplacectl >/dev/null 2>&1 &&
	fail "wakeplace packages are already known to dpkg"
files | sort >"$WP_OUT/files.before"

apt_do() { # LABEL APT-ARGS...
	local label=$1
	shift
	admin_time "$label" on env DEBIAN_FRONTEND=noninteractive \
		apt -y -o Dpkg::Use-Pty=0 --no-install-recommends "$@"
}

# pkg_state PKG: "Status Version" as dpkg knows it
pkg_state() { on dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null; }

# --- install ------------------------------------------------------------------------------
# The .debs by their paths on the box (the glob runs here).
box_paths() { local f; for f in "$@"; do echo "${f#"$box"}"; done; }
mapfile -t ctl < <(box_paths "$box$debs/wakeplacectl_${ver}_"*.deb)
apt_do install install "$debs/wakeplace-dkms_${ver}_all.deb" "${ctl[@]}" || fail "apt install of the .debs failed"
for p in wakeplace-dkms wakeplacectl; do
	assert_eq "$(pkg_state $p)" "install ok installed $ver" "dpkg state of $p"
done
st=$(on dkms status -m wakeplace -k "$rel" 2>/dev/null)
log "dkms status: $st"
assert_match "$st" "^wakeplace/${ver//./\\.}, $rel_re, x86_64: installed" "dkms status after install"
ko=$(on modinfo -n wakeplace) || fail "modinfo cannot find the DKMS module"
assert_match "$ko" "^/(usr/)?lib/modules/$rel_re/updates/dkms/wakeplace\.ko" "module path"
assert_eq "$(on modinfo -F version wakeplace)" "$ver" "module version"
# Merged /usr: PATH may find it as /sbin/wakeplacectl, the same file.
assert_eq "$(on sh -c 'readlink -f "$(command -v wakeplacectl)"')" /usr/sbin/wakeplacectl "wakeplacectl on PATH"
[ -f "$box/lib/systemd/system/wakeplace-auto.service" ] || fail "the unit is not installed"
[ -e "$box/etc/systemd/system/multi-user.target.wants/wakeplace-auto.service" ] &&
	fail "the package enabled wakeplace-auto.service"
[ -f "$box/lib/systemd/system/wakeplace-cgroups.service" ] || fail "the cgroups unit is not installed"
[ -e "$box/etc/systemd/system/multi-user.target.wants/wakeplace-cgroups.service" ] &&
	fail "the package enabled wakeplace-cgroups.service"
[ -e "$box/etc/wakeplace/cgroups.conf" ] && fail "the package wrote /etc/wakeplace/cgroups.conf"
[ -f "$box/usr/share/doc/wakeplacectl/examples/cgroups.conf" ] || fail "no cgroups.conf example"
[ -f "$box/usr/share/doc/wakeplacectl/examples/modprobe.d-wakeplace.conf" ] ||
	fail "no modprobe.d example"
pass "installed: $ko"

must on modprobe wakeplace policy=idlemask
wp_loaded || fail "modprobe returned but wakeplace is not loaded"
assert_eq "$(wp_read policy)" idlemask "policy after modprobe policy=idlemask"
js=$(on wakeplacectl -j status) || fail "wakeplacectl status failed: $js"
assert_eq "$(jq -r .state <<<"$js")" ok "wakeplacectl status: state"
assert_eq "$(jq -r .policy <<<"$js")" idlemask "wakeplacectl status: policy"
assert_eq "$(jq -r .version <<<"$js")" "$ver" "wakeplacectl status: module version"
must on modprobe -r wakeplace
wp_loaded && fail "still loaded after modprobe -r"

# --- upgrade -----------------------------------------------------------------------------
# The admin's boot-time configuration, from the shipped examples, with a
# policy other than the example's.
ex=$box/usr/share/doc/wakeplacectl/examples
must cp "$ex/modprobe.d-wakeplace.conf" "$box/etc/modprobe.d/wakeplace.conf"
must sed -i 's/^options wakeplace policy=idlemask$/options wakeplace policy=prevfirst/' \
	"$box/etc/modprobe.d/wakeplace.conf"
grep -qx 'options wakeplace policy=prevfirst' "$box/etc/modprobe.d/wakeplace.conf" ||
	fail "the example no longer has the options line this case edits"
# The sid root is a minbase debootstrap, without systemd's
# /etc/modules-load.d; the admin of such a box makes it.
must mkdir -p "$box/etc/modules-load.d"
must cp "$ex/modules-load.d-wakeplace.conf" "$box/etc/modules-load.d/wakeplace.conf"
# conf_sums: the admin's two files, by their paths on the box.
conf_sums() { (cd "$box/" && md5sum etc/modprobe.d/wakeplace.conf etc/modules-load.d/wakeplace.conf); }
sum_before=$(conf_sums)

mapfile -t ctl < <(box_paths "$box$up/wakeplacectl_${next}_"*.deb)
apt_do upgrade install "$up/wakeplace-dkms_${next}_all.deb" "${ctl[@]}" || fail "apt install of the $next .debs failed"
for p in wakeplace-dkms wakeplacectl; do
	assert_eq "$(pkg_state $p)" "install ok installed $next" "dpkg state of $p after the upgrade"
done
st=$(on dkms status -m wakeplace 2>/dev/null)
log "dkms status: $st"
assert_match "$st" "^wakeplace/${next//./\\.}, $rel_re, x86_64: installed" "dkms status after the upgrade"
[ "$(grep -c . <<<"$st")" = 1 ] || fail "more than the new version registered with DKMS: $st"
[ -e "$box/usr/src/wakeplace-$ver" ] && fail "/usr/src/wakeplace-$ver left after the upgrade"
if ! on modinfo -n wakeplace >/dev/null 2>&1; then
	# Seen on 7.2 in the sid root (dkms 3.2.2): DKMS said it installed
	# and ran depmod, yet modinfo found nothing.  What is there:
	log "after the upgrade: $(on find "/lib/modules/$rel" -name 'wakeplace*' | tr '\n' ' ')"
	log "modules.dep: $(on grep -h wakeplace "/lib/modules/$rel/modules.dep" | tr '\n' ' ')"
	log "mounts: $(grep -F "$box/usr/lib/modules" /proc/self/mounts | tr '\n' ' ')"
fi
assert_eq "$(on modinfo -F version wakeplace)" "$next" "module version after the upgrade"
assert_eq "$(conf_sums)" \
	"$sum_before" "the admin's modprobe.d and modules-load.d files after the upgrade"
# What the boot-time configuration is for: a plain modprobe (as
# systemd-modules-load runs it) loads the new module with its policy.
must on modprobe wakeplace
assert_eq "$(wp_read policy)" prevfirst "policy of a plain modprobe after the upgrade"
js=$(on wakeplacectl -j status) || fail "wakeplacectl status failed: $js"
assert_eq "$(jq -r .state <<<"$js")" ok "wakeplacectl status after the upgrade: state"
assert_eq "$(jq -r .version <<<"$js")" "$next" "wakeplacectl status after the upgrade: version"
must on modprobe -r wakeplace
pass "upgraded to $next, configuration kept"

# --- purge -----------------------------------------------------------------------------------
apt_do purge purge wakeplacectl wakeplace-dkms || fail "apt purge failed"
for p in wakeplace-dkms wakeplacectl; do
	on dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' &&
		fail "$p still installed after purge"
done
on modinfo -n wakeplace >/dev/null 2>&1 && fail "still installed after purge: $(on modinfo -n wakeplace)"
[ -e "$box/var/lib/dkms/wakeplace" ] && fail "DKMS tree left: $(find "$box/var/lib/dkms/wakeplace" | head -n 5)"
compgen -G "$box/usr/src/wakeplace-*" >/dev/null && fail "sources left: $(echo "$box"/usr/src/wakeplace-*)"
# The admin's files are theirs: they stay.
cmp -s <(conf_sums) <(echo "$sum_before") ||
	fail "purge touched the admin's modprobe.d or modules-load.d file"
files | sort >"$WP_OUT/files.after"
comm -13 "$WP_OUT/files.before" "$WP_OUT/files.after" >"$WP_OUT/files.new"
log "new on disk after install, upgrade and purge: $(wc -l <"$WP_OUT/files.new") paths (files.new)"
left=$(ours <"$WP_OUT/files.new" | grep -vxF -e /etc/modprobe.d/wakeplace.conf \
	-e /etc/modules-load.d/wakeplace.conf)
[ -z "$left" ] || fail "left on disk after purge: $(head -n 20 <<<"$left")"
pass "purged: nothing of ours left ($(ours <"$WP_OUT/files.before" | wc -l) before, none after)"
exit 0
