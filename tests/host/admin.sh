#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lane: tree (tests/check runs it beside no other tree-writing test)
#
# The admin-facing parts on the host: dkms.conf and packaging/dkms-build's
# refusals, a real DKMS build for every supported installed kernel in a
# sandbox (WP_DKMS_ROOT: nothing outside it changes), `make install` and
# `make uninstall` with DESTDIR, the modprobe.d example, and the sysfs ABI
# document against the module's sources.  TAP output.  The same things in
# a VM, with modprobe: tests/cases/80*.sh.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. "$top/tests/names.sh"

# shellcheck source=tests/tap.sh
. tests/tap.sh
tap_short_names	# ok, not_ok, skip, check (CMD's output shows on failure)

tmp=$(mktemp -d /tmp/wp-admin-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ver=$(scripts/gen-version version)

# Supported kernels installed here (headers present).
kernels=()
if [ -r /var/lib/wakeplace/kernels ]; then
	while read -r r; do kernels+=("$r"); done < /var/lib/wakeplace/kernels
else
	for d in /lib/modules/*/kernel; do
		[ -d "$d" ] && kernels+=("$(basename "$(dirname "$d")")")
	done
fi
supported=()
for r in "${kernels[@]}"; do
	[ -d "/lib/modules/$r/build/include" ] && supported+=("$r")
done

# ---- dkms.conf -------------------------------------------------------------
check "dkms.conf PACKAGE_VERSION equals VERSION ($ver)" \
	grep -qx "PACKAGE_VERSION=\"$ver\"" dkms.conf
dkconf() { # RELEASE VAR: a dkms.conf value as DKMS reads it
	kernelver=$1 bash -c '. ./dkms.conf; eval "echo \"\${$0}\""' "$2"
}
check "dkms.conf: module built in build/<release>/ by packaging/dkms-build" \
	eval '[ "$(dkconf 6.1.0-57-amd64 "BUILT_MODULE_LOCATION[0]")" = build/6.1.0-57-amd64/ ] &&
	      [ "$(dkconf 6.1.0-57-amd64 "MAKE[0]")" = "bash packaging/dkms-build 6.1.0-57-amd64" ] &&
	      [ "$(dkconf x BUILT_MODULE_NAME)" = wakeplace ] && [ "$(dkconf x AUTOINSTALL)" = yes ]'
only_61_612() { # REGEX: matches the 6.1 and 6.12 releases, no other
	[[ 6.1.0-57-amd64 =~ $1 ]] && [[ 6.12.95+deb12-amd64 =~ $1 ]] &&
	[[ 6.1.0-99-cloud-amd64 =~ $1 ]] && ! [[ 6.11.2-amd64 =~ $1 ]] &&
	! [[ 6.10.0-1-amd64 =~ $1 ]] && ! [[ 5.10.0-30-amd64 =~ $1 ]] &&
	! [[ 6.16.3+deb13-amd64 =~ $1 ]]
}
check "dkms.conf: BUILD_EXCLUSIVE_KERNEL takes 6.1 and 6.12 releases only" \
	only_61_612 "$(dkconf x BUILD_EXCLUSIVE_KERNEL)"

# ---- packaging/dkms-build --check ------------------------------------------
if [ ${#supported[@]} = 0 ]; then
	skip "dkms-build --check accepts the installed kernels" "no kernel with headers"
fi
for r in "${supported[@]}"; do
	check "dkms-build --check accepts $r" bash packaging/dkms-build --check "$r"
done

fakehdr() { # DIR MAJOR MINOR [CONFIG_LINES]: fake headers
	mkdir -p "$1/include/generated/uapi/linux"
	: > "$1/Makefile"
	printf '#define LINUX_VERSION_CODE %d\n#define LINUX_VERSION_MAJOR %s\n#define LINUX_VERSION_PATCHLEVEL %s\n' \
		$(($2 * 65536 + $3 * 256)) "$2" "$3" > "$1/include/generated/uapi/linux/version.h"
	printf '%b' "${4:-CONFIG_DEBUG_INFO_BTF=y\nCONFIG_FUNCTION_TRACER=y\nCONFIG_DYNAMIC_FTRACE=y\n}" > "$1/.config"
}
refusal() { # DESC EXPECTED_RC PATTERN RELEASE [WP_KDIR]
	local rc=0 out
	out=$(WP_KDIR=${5:-} bash packaging/dkms-build --check "$4" 2>&1) || rc=$?
	if [ "$rc" = "$2" ] && [[ $out == *"$3"* ]] && [[ $out == "wakeplace: $4: "* ]] &&
	   [ "$(printf '%s\n' "$out" | wc -l)" = 1 ]; then
		ok "$1"
	else
		not_ok "$1" "exit $rc (want $2), output: $out"
	fi
}
fakehdr "$tmp/h65" 6 5
refusal "dkms-build refuses Linux 6.5 (exit 77, one line)" 77 "supports $(scripts/gen-version kernels-text)" 6.5.0-1-amd64 "$tmp/h65"
fakehdr "$tmp/hnobtf" 6 1 'CONFIG_FUNCTION_TRACER=y\nCONFIG_DYNAMIC_FTRACE=y\n'
refusal "dkms-build refuses a kernel built without BTF (exit 77)" 77 CONFIG_DEBUG_INFO_BTF 6.1.0-1-custom "$tmp/hnobtf"
fakehdr "$tmp/hnoftrace" 6 12 'CONFIG_DEBUG_INFO_BTF=y\nCONFIG_FUNCTION_TRACER=y\n'
refusal "dkms-build refuses a kernel without dynamic ftrace (exit 77)" 77 CONFIG_DYNAMIC_FTRACE 6.12.0-1-custom "$tmp/hnoftrace"
refusal "dkms-build: no headers is something to install (exit 1)" 1 "apt-get install linux-headers-6.1.0-0-none" 6.1.0-0-none
fakehdr "$tmp/hnoimg" 6 1
refusal "dkms-build: no BTF source for a kernel not running and without /boot image (exit 1)" 1 "no BTF" 6.1.0-0-noimage "$tmp/hnoimg"

# ---- DKMS in a sandbox --------------------------------------------------------
if ! command -v dkms >/dev/null; then
	skip "DKMS builds and installs for every supported kernel" "dkms not installed (scripts/setup)"
elif [ "$(id -u)" != 0 ]; then
	skip "DKMS builds and installs for every supported kernel" "not root"
elif [ ${#supported[@]} = 0 ]; then
	skip "DKMS builds and installs for every supported kernel" "no kernel with headers"
else
	dk=$tmp/dkms
	dkopts=(--sourcetree "$dk/src" --dkmstree "$dk/tree" --installtree "$dk/modules")
	rc=0
	t0=$SECONDS
	WP_DKMS_ROOT=$dk packaging/dkms-install "${supported[@]}" 5.10.0-0-none \
		> "$tmp/dkms.out" 2>&1 || rc=$?
	echo "# dkms-install for ${supported[*]}: $((SECONDS - t0)) s"
	good=1
	for r in "${supported[@]}"; do
		grep -q "^installed  $r " "$tmp/dkms.out" || good=0
		ko=$(ls "$dk/modules/$r/updates/dkms/"wakeplace.ko* 2>/dev/null | head -1)
		if [ -z "$ko" ] || [[ $(modinfo -F vermagic "$ko") != "$r "* ]] ||
		   [ "$(modinfo -F version "$ko")" != "$ver" ]; then
			good=0
			echo "# $r: module '$ko' missing or wrong vermagic/version"
		fi
	done
	grep -q "^skipped    5.10.0-0-none  .*linux-headers" "$tmp/dkms.out" || good=0
	if [ "$rc" = 0 ] && [ "$good" = 1 ]; then
		ok "DKMS builds and installs for ${supported[*]}, skips a kernel without headers"
	else
		not_ok "DKMS builds and installs for ${supported[*]}" "exit $rc" "$(cat "$tmp/dkms.out")"
	fi
	installed_each() { # STATUS: dkms status says installed for each kernel
		local r
		for r in "${supported[@]}"; do
			grep -q "^wakeplace/$ver, $r, x86_64: installed" <<<"$1" || { echo "$1"; return 1; }
		done
	}
	check "dkms status: installed for each" \
		installed_each "$(dkms status -m wakeplace "${dkopts[@]}" 2>/dev/null)"
	# DKMS' own refusal (BUILD_EXCLUSIVE) for an unsupported release.
	fakehdr "$tmp/h65b" 6 5
	rc=0
	dkms build -m wakeplace -v "$ver" -k 6.5.0-1-amd64 --kernelsourcedir "$tmp/h65b" \
		"${dkopts[@]}" > "$tmp/excl.out" 2>&1 || rc=$?
	check "dkms build for Linux 6.5 stops at BUILD_EXCLUSIVE (exit 77)" \
		eval '[ $rc = 77 ] && grep -q "BUILD_EXCLUSIVE" "$tmp/excl.out"'
	rc=0
	WP_DKMS_ROOT=$dk packaging/dkms-install 5.10.0-0-none > "$tmp/none.out" 2>&1 || rc=$?
	check "dkms-install with no installable kernel exits 1" \
		eval '[ $rc = 1 ] && grep -q "not installed for any kernel" "$tmp/none.out"'
	rc=0
	WP_DKMS_ROOT=$dk packaging/dkms-install --remove > "$tmp/rm.out" 2>&1 || rc=$?
	check "dkms-install --remove unregisters and removes the sources" \
		eval '[ $rc = 0 ] && [ ! -e "$dk/src/wakeplace-$ver" ] && [ ! -e "$dk/tree/wakeplace/$ver" ] &&
		      [ -z "$(find "$dk/modules" -name "wakeplace.ko*")" ]'
fi

# ---- make install / uninstall with DESTDIR -----------------------------------
if [ ${#supported[@]} = 0 ]; then
	skip "make install DESTDIR" "no kernel with headers"
else
	r=${supported[0]}
	d=$tmp/destdir
	rc=0
	make -s --no-print-directory KVER="$r" DESTDIR="$d" install > "$tmp/inst.out" 2>&1 || rc=$?
	files=(
		"lib/modules/$r/extra/wakeplace.ko"
		usr/local/sbin/wakeplacectl
		usr/local/share/man/man8/wakeplacectl.8
		usr/local/share/bash-completion/completions/wakeplacectl
		usr/local/share/doc/wakeplace/README.md
		usr/local/share/doc/wakeplace/admin.md
		usr/local/share/doc/wakeplace/sysfs-kernel-wakeplace
		usr/local/share/doc/wakeplace/sysfs-module-wakeplace
		usr/local/share/doc/wakeplace/examples/modprobe.d-wakeplace.conf
		usr/local/share/doc/wakeplace/examples/modules-load.d-wakeplace.conf
		usr/local/share/doc/wakeplace/examples/cgroups.conf
		usr/local/lib/systemd/system/wakeplace-auto.service
		usr/local/lib/systemd/system/wakeplace-cgroups.service
	)
	miss=()
	for f in "${files[@]}"; do [ -f "$d/$f" ] || miss+=("$f"); done
	check "make install DESTDIR=... KVER=$r installs module, tool, man page, completion, docs" \
		eval '[ $rc = 0 ] && [ ${#miss[@]} = 0 ] || { echo "exit $rc, missing: ${miss[*]}"; cat "$tmp/inst.out"; false; }'
	check "make install: release flavour, built for $r" eval '
		[[ $(modinfo -F vermagic "$d/lib/modules/$r/extra/wakeplace.ko") == "$r "* ]] &&
		! modinfo -F parm "$d/lib/modules/$r/extra/wakeplace.ko" | grep -q "^test_"'
	check "make install: the auto unit starts the installed wakeplacectl" \
		grep -qx "ExecStart=/usr/local/sbin/wakeplacectl auto --daemon" "$d/usr/local/lib/systemd/system/wakeplace-auto.service"
	check "make install: the cgroups unit applies with the installed wakeplacectl" eval '
		u=$d/usr/local/lib/systemd/system/wakeplace-cgroups.service &&
		grep -qx "ExecStart=/usr/local/sbin/wakeplacectl apply --wait [0-9]* /etc/wakeplace/cgroups.conf" "$u" &&
		grep -qx "ExecReload=/usr/local/sbin/wakeplacectl apply /etc/wakeplace/cgroups.conf" "$u"'
	check "make install with DESTDIR leaves depmod to the packager" grep -q "depmod skipped" "$tmp/inst.out"
	# What modprobe would do with the installed tree.
	if depmod -b "$d" "$r" 2>/dev/null; then
		check "modprobe resolves wakeplace in the installed tree" eval '
			modprobe -d "$d" -S "$r" -n -v wakeplace 2>&1 |
				grep -q "insmod $d/lib/modules/$r/extra/wakeplace.ko"'
		rm -f "$d/lib/modules/$r"/modules.*
	else
		skip "modprobe resolves wakeplace in the installed tree" "depmod -b failed"
	fi
	rc=0
	make -s --no-print-directory KVER="$r" DESTDIR="$d" uninstall > "$tmp/uninst.out" 2>&1 || rc=$?
	check "make uninstall removes every installed file" \
		eval '[ $rc = 0 ] && [ -z "$(find "$d" -type f)" ] || { echo "exit $rc"; find "$d" -type f; false; }'
	rc=0
	make -s --no-print-directory KVER="$r" WP_TEST=1 DESTDIR="$tmp/d2" install > "$tmp/inst2.out" 2>&1 || rc=$?
	check "make install refuses the test flavour" \
		eval '[ $rc != 0 ] && grep -q "refusing to install a test build" "$tmp/inst2.out" && [ -z "$(find "$tmp/d2" -type f 2>/dev/null)" ]'
fi

# ---- the modprobe.d example ---------------------------------------------------
conf=packaging/modprobe.d/wakeplace.conf
check "modprobe reads the example: options wakeplace policy=idlemask" eval '
	modprobe -C "$conf" --showconfig 2>/dev/null | grep -qx "options wakeplace policy=idlemask"'
# It points to the module's own list rather than copying it: no comment
# names a policy but idlemask (the one it sets) and stock (the default).
check "the example points to the policy list instead of copying it" eval '
	grep -q "^#.*\`wakeplacectl policy list\`" "$conf" &&
	grep -q "^#.*/sys/kernel/wakeplace/available_policies" "$conf" &&
	for p in $(src_policies stock idlemask); do
		! grep -q "^#.*\b$p\b" "$conf" || { echo "lists $p"; exit 1; }
	done'
check "the example's tunables one-liner keeps modprobe.d options and the command line" \
	grep -q '^#install wakeplace /sbin/modprobe --ignore-install wakeplace \$CMDLINE_OPTS && .*wakeplacectl tune ' "$conf"

# ---- docs/sysfs-kernel-wakeplace against the sources --------------------------
abi=docs/sysfs-kernel-wakeplace
whats=$(sed -n 's/^What:[[:space:]]*//p' "$abi")
has_what() { grep -qxF "$1" <<<"$whats"; }
missing=()
for a in $(sed -n 's/.*__ATTR\(_RO\|_WO\)\?(\([a-z_]*\).*/\2/p' module/sysfs.c); do
	case $a in reset) p=/sys/kernel/wakeplace/stats/reset ;; *) p=/sys/kernel/wakeplace/$a ;; esac
	has_what "$p" || missing+=("$p")
done
for p in /sys/kernel/wakeplace/stats/\<policy\> \
	 /sys/kernel/wakeplace/policies/\<policy\>/description \
	 /sys/kernel/wakeplace/policies/\<policy\>/tunables \
	 /sys/kernel/wakeplace/policies/\<policy\>/\<tunable\>; do
	has_what "$p" || missing+=("$p")
done
for m in $(sed -n 's/^module_param(\([a-z_]*\),.*/\1/p' module/*.c); do
	grep -qx "What:[[:space:]]*/sys/module/wakeplace/parameters/$m" docs/sysfs-module-wakeplace ||
		missing+=("parameters/$m")
done
check "the ABI documents have a What: for every sysfs file and module parameter" \
	eval '[ ${#missing[@]} = 0 ] || { echo "missing: ${missing[*]}"; false; }'
explains_each() { # KEY...: the ABI document has a line for each
	local k
	for k; do
		grep -Eq "^[[:space:]]+$k([[:space:]]|$)" "$abi" || { echo "missing key $k"; return 1; }
	done
}
mapfile -t keys < <(sed -n 's/^[[:space:]]*\[WP_[A-Z_ +]*\][[:space:]]*= "\([a-z_]*\)",/\1/p' module/stats.c)
mapfile -t outs < <(src_outcomes | tr ' ' '\n')
check "the ABI document explains every counter and statistic (module/stats.c, outcomes.h)" \
	explains_each "${keys[@]}" "${outs[@]}" scan_hist cost_hist
tunables_listed() { # "name min max default" lines: each in the ABI document
	local name min max def
	while read -r name min max def; do
		grep -Eq "^[[:space:]]+[a-z]+[[:space:]]+${name}[[:space:]]+$min\.\.${max}[[:space:]]+$def([[:space:]]|$)" "$abi" ||
			{ echo "missing or wrong: $name $min..$max default $def"; return 1; }
	done <<<"$1"
}
check "the ABI document lists every tunable with its range and default" \
	tunables_listed "$(sed -n 's/.*WP_TUNABLE("\([a-z_]*\)", *\([0-9-]*\), *\([0-9-]*\), *\([0-9-]*\)).*/\1 \2 \3 \4/p' module/policies/*.c)"
check "every ABI entry has What, Date, Contact, Description" awk '
	/^What:/ { if (w) { if (!(d && c && s)) { print "incomplete: " w; bad = 1 } }
		   w = $2; d = c = s = 0; next }
	/^Date:/ { d = 1 } /^Contact:/ { c = 1 } /^Description:/ { s = 1 }
	END { if (w && !(d && c && s)) { print "incomplete: " w; bad = 1 } exit bad }' "$abi" docs/sysfs-module-wakeplace
check "the state reasons in the ABI document are the module's" eval '
	for r in $(grep -ho "wp_trip(\"[^\"]*\")" module/hook.c | sed "s/wp_trip(\"\(.*\)\")/\1/" | tr " " "_"); do
		grep -q "${r//_/ }" "$abi" || { echo "missing reason: ${r//_/ }"; exit 1; }
	done'

tap_done
