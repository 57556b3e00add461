#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lane: tree (tests/check runs it beside no other tree-writing test)
#
# make deb: builds wakeplace-dkms and wakeplacectl from the checkout, the
# way an admin does; lintian has nothing to say at its default level; the
# packages hold what they must (the DKMS source tree that
# packaging/dkms-install makes, dkms.conf from VERSION and module/kernels,
# the tool, its page, completion, examples, the unit not enabled) and
# nothing of the build; the version is VERSION's, or WP_DEB_VERSION's.
# Installing them is the guest test 810-deb.sh.  TAP output.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

# shellcheck source=tests/tap.sh
. tests/tap.sh
tap_short_names

for t in dpkg-buildpackage dh dh_dkms lintian; do
	command -v $t >/dev/null || { tap_skip_all "$t not installed (scripts/setup installs it)"; exit 0; }
done

tmp=$(mktemp -d /tmp/wp-deb-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ver=$(scripts/gen-version version)
arch=$(dpkg --print-architecture)
out=$tmp/deb
t0=$SECONDS
check "make deb builds both packages ($ver)" \
	make --no-print-directory deb DEB_DIR="$out"
tap_diag "make deb: $((SECONDS - t0)) s"
dkms_deb=$out/wakeplace-dkms_${ver}_all.deb
ctl_deb=$out/wakeplacectl_${ver}_$arch.deb
check "the packages are in DEB_DIR, nothing next to the checkout" eval '
	[ -f "$dkms_deb" ] && [ -f "$ctl_deb" ] && [ ! -e "$out/src" ] &&
	! ls "$top"/../wakeplace*_"$ver"_* 2>/dev/null'
[ -f "$dkms_deb" ] && [ -f "$ctl_deb" ] || tap_bail "no packages to check"

# lintian warns that it runs as root (tests/check runs as root): not a finding.
lrc=0
lint=$(lintian "$out"/*.changes 2>&1) || lrc=$?
lint=$(grep -v '^running with root privileges' <<<"$lint")
tap_diag "lintian (exit $lrc): ${lint:-no tag}"
# shellcheck disable=SC2034 # read by the eval'd check below
check "lintian: no error, no warning" eval '[ $lrc = 0 ] && [ -z "$lint" ] || { echo "$lint"; false; }'

field() { dpkg-deb -f "$1" "$2"; }
files() { dpkg-deb -c "$1" | awk '{ print $6 }' | sed 's,^\./,/,'; }
check "wakeplace-dkms: Architecture all, version $ver, depends on dkms and bpftool" eval '
	[ "$(field "$dkms_deb" Architecture)" = all ] &&
	[ "$(field "$dkms_deb" Version)" = "$ver" ] &&
	field "$dkms_deb" Depends | grep -Eq "(^|, )dkms( |,|$)" &&
	field "$dkms_deb" Depends | grep -Eq "(^|, )bpftool(,|$)"'
check "wakeplacectl: Architecture $arch, version $ver" eval '
	[ "$(field "$ctl_deb" Architecture)" = "$arch" ] &&
	[ "$(field "$ctl_deb" Version)" = "$ver" ]'

# The DKMS tree in the package is the one packaging/dkms-install registers.
mkdir -p "$tmp/x" "$tmp/ref"
dpkg-deb -x "$dkms_deb" "$tmp/x/dkms"
dpkg-deb -x "$ctl_deb" "$tmp/x/ctl"
packaging/dkms-install --copy "$tmp/ref/wakeplace-$ver"
check "wakeplace-dkms: /usr/src/wakeplace-$ver is the tree dkms-install makes" \
	diff -r "$tmp/ref/wakeplace-$ver" "$tmp/x/dkms/usr/src/wakeplace-$ver"
check "wakeplace-dkms: its dkms.conf is generated from VERSION and module/kernels" eval '
	scripts/gen-version dkms-conf dkms.conf - | diff - "$tmp/x/dkms/usr/src/wakeplace-$ver/dkms.conf"'
check "wakeplace-dkms: holds only /usr/src/wakeplace-$ver and its doc directory" eval '
	! files "$dkms_deb" | grep -v -e "^/$" -e "^/usr/$" -e "^/usr/src/$" -e "^/usr/share/$" \
		-e "^/usr/share/doc/$" -e "^/usr/src/wakeplace-$ver/" -e "^/usr/share/doc/wakeplace-dkms/"'
check "wakeplace-dkms: no build product or generated file in the source" eval '
	! files "$dkms_deb" | grep -E "\.(o|ko|cmd|mod)$|/generated/|/build/"'
check "wakeplace-dkms: postinst builds with DKMS, prerm removes" eval '
	pi=$(dpkg-deb -I "$dkms_deb" postinst) && pr=$(dpkg-deb -I "$dkms_deb" prerm) &&
	grep -qx "DKMS_NAME=wakeplace" <<<"$pi" && grep -qx "DKMS_VERSION=$ver" <<<"$pi" &&
	grep -q "/usr/lib/dkms/common.postinst" <<<"$pi" &&
	grep -qx "DKMS_VERSION=$ver" <<<"$pr" &&
	grep -q "dkms remove -m \$DKMS_NAME -v \$DKMS_VERSION --all" <<<"$pr"'

want=(/usr/sbin/wakeplacectl /usr/share/man/man8/wakeplacectl.8.gz
	/usr/share/bash-completion/completions/wakeplacectl
	/lib/systemd/system/wakeplace-auto.service
	/lib/systemd/system/wakeplace-cgroups.service
	/usr/share/doc/wakeplacectl/examples/cgroups.conf
	/usr/share/doc/wakeplacectl/examples/modprobe.d-wakeplace.conf
	/usr/share/doc/wakeplacectl/examples/modules-load.d-wakeplace.conf
	/usr/share/doc/wakeplacectl/copyright /usr/share/doc/wakeplacectl/changelog.gz)
for f in "${want[@]}"; do
	check "wakeplacectl: ships $f" eval 'files "$ctl_deb" | grep -qxF "$f"'
done
check "wakeplacectl: nothing under /etc, /usr/src or /lib/modules" eval '
	! files "$ctl_deb" | grep -E "^/(etc|usr/src|lib/modules)/"'
x=$tmp/x/ctl
check "wakeplacectl: the binary says $ver" eval '
	"$x/usr/sbin/wakeplacectl" -V | grep -qF "$ver"'
check "wakeplacectl: the man page says wakeplace $ver" eval '
	zcat "$x/usr/share/man/man8/wakeplacectl.8.gz" | grep -q "^\.TH WAKEPLACECTL 8 .*\"wakeplace $ver\""'
check "wakeplacectl: the unit runs /usr/sbin/wakeplacectl" \
	grep -qx 'ExecStart=/usr/sbin/wakeplacectl auto --daemon' "$x/lib/systemd/system/wakeplace-auto.service"
check "wakeplacectl: wakeplace-cgroups runs /usr/sbin/wakeplacectl apply, only with /etc/wakeplace/cgroups.conf" eval '
	u=$x/lib/systemd/system/wakeplace-cgroups.service &&
	grep -qx "ExecStart=/usr/sbin/wakeplacectl apply --wait [0-9]* /etc/wakeplace/cgroups.conf" "$u" &&
	grep -qx "ExecReload=/usr/sbin/wakeplacectl apply /etc/wakeplace/cgroups.conf" "$u" &&
	grep -qx "ConditionPathExists=/etc/wakeplace/cgroups.conf" "$u"'
# --no-enable: postinst enables the unit again only where the admin had
# (inside "debian-installed"); --no-start: it starts nothing.
check "wakeplacectl: the maintainer scripts neither enable nor start the units" eval '
	pi=$(dpkg-deb -I "$ctl_deb" postinst) &&
	grep -q "deb-systemd-helper debian-installed .wakeplace-auto.service." <<<"$pi" &&
	grep -q "deb-systemd-helper debian-installed .wakeplace-cgroups.service." <<<"$pi" &&
	! grep -q "deb-systemd-invoke" <<<"$pi" || { echo "$pi"; false; }'
check "changelog: version $ver, from VERSION" eval '
	zcat "$x/usr/share/doc/wakeplacectl/changelog.gz" | head -n 1 | grep -qx "wakeplace ($ver) unstable; urgency=medium"'

# Another version: the packages and the sources they carry say it.
next=${ver%.*}.$((${ver##*.} + 1))
t0=$SECONDS
check "make deb WP_DEB_VERSION=$next" \
	make --no-print-directory deb DEB_DIR="$tmp/next" WP_DEB_VERSION="$next"
tap_diag "make deb WP_DEB_VERSION=$next: $((SECONDS - t0)) s"
# shellcheck disable=SC2034 # read by the eval'd check below
nd=$tmp/next/wakeplace-dkms_${next}_all.deb
check "WP_DEB_VERSION: wakeplace-dkms $next carries /usr/src/wakeplace-$next saying $next" eval '
	[ "$(field "$nd" Version)" = "$next" ] && dpkg-deb -x "$nd" "$tmp/x/next" &&
	[ "$(cat "$tmp/x/next/usr/src/wakeplace-$next/VERSION")" = "$next" ] &&
	grep -qx "PACKAGE_VERSION=\"$next\"" "$tmp/x/next/usr/src/wakeplace-$next/dkms.conf"'
check "WP_DEB_VERSION leaves the checkout's VERSION alone" eval '[ "$(scripts/gen-version version)" = "$ver" ]'

tap_done
