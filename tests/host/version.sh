#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lane: tree (tests/check runs it beside no other tree-writing test)
#
# One source for the version (VERSION) and the supported kernels
# (module/kernels): every copy scripts/gen-version makes says what they say.
# The module's generated headers (WP_VERSION, and the compile-time refusal of
# other kernels, preprocessed against fake <linux/version.h>), the built
# modules' modinfo version, wakeplacectl -V and its flavour table (status
# under a faked uname), the installed man page, dkms.conf (the committed one
# and the one DKMS gets), packaging/dkms-build's refusal, the DKMS source
# tree, and no stray hard-coded copy in the code.  TAP output.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

# shellcheck source=tests/tap.sh
. tests/tap.sh
tap_short_names	# ok, not_ok, skip, check (CMD's output shows on failure)

tmp=$(mktemp -d /tmp/wp-version-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
gen=scripts/gen-version

# ---- the sources ---------------------------------------------------------------
if ver=$($gen version 2>&1); then
	ok "VERSION is one line MAJOR.MINOR.PATCH ($ver)"
else
	not_ok "VERSION is one line MAJOR.MINOR.PATCH" "$ver"
	ver=none
fi
if kernels=$($gen kernels 2>&1); then
	ok "module/kernels lists MAJOR.MINOR series: ${kernels//$'\n'/ }"
else
	not_ok "module/kernels lists MAJOR.MINOR series" "$kernels"
	kernels=
fi
text=$($gen kernels-text)

# Series next to the supported ones and not supported: after each its next
# minor and its minor times ten (6.2 and 6.10 after 6.1: a prefix match
# must not take them), then 5.10 and 99.0; those the list does not hold.
others=()
for c in $(for k in $kernels; do echo "${k%.*}.$((${k#*.} + 1)) ${k}0"; done) 5.10 99.0; do
	grep -qxF "$c" <<<"$kernels" || [[ " ${others[*]} " == *" $c "* ]] || others+=("$c")
done

# The generator refuses what it cannot read and then writes nothing.
mkdir -p "$tmp/bad/scripts" "$tmp/bad/module" "$tmp/bad/out"
cp $gen "$tmp/bad/scripts/"
echo keep > "$tmp/bad/out/version.h"
badgen() { # VERSION KERNELS: gen-version ctl on those sources must fail
	printf '%b' "$1" > "$tmp/bad/VERSION"
	printf '%b' "$2" > "$tmp/bad/module/kernels"
	! "$tmp/bad/scripts/gen-version" ctl "$tmp/bad/out/version.h" 2>/dev/null &&
		[ "$(cat "$tmp/bad/out/version.h")" = keep ]
}
check "gen-version refuses a malformed VERSION or module/kernels, writes nothing" eval '
	badgen "1.2\n" "6.1\n" && badgen "1.2.3\n1.2.4\n" "6.1\n" && badgen "v1.2.3\n" "6.1\n" &&
	badgen "1.2.3\n" "6.1\n6.1\n" && badgen "1.2.3\n" "6\n" && badgen "1.2.3\n" "# none\n" &&
	! badgen "1.2.3\n" "6.1 # a comment\n\n6.12\n"'

# ---- the module ------------------------------------------------------------------
$gen module "$tmp/mod" 2>&1 || not_ok "gen-version module"
check "module: generated WP_VERSION is \"$ver\"" \
	grep -qx "#define WP_VERSION[[:space:]]*\"$ver\"" "$tmp/mod/wp_version.h"
check "module/wakeplace.h and compat.h take the generated headers" eval '
	grep -q "^#include \"generated/wp_version.h\"" module/wakeplace.h &&
	grep -q "^#include \"generated/wp_kernels.h\"" module/compat.h'
# preproc MAJOR MINOR: WP_FLAVOUR as the module sees it on that kernel.
preproc() {
	mkdir -p "$tmp/k$1.$2/linux"
	printf '#define LINUX_VERSION_MAJOR %s\n#define LINUX_VERSION_PATCHLEVEL %s\n' "$1" "$2" \
		> "$tmp/k$1.$2/linux/version.h"
	printf '#include "wp_kernels.h"\nflavour=WP_FLAVOUR\n' |
		gcc -E -P -I"$tmp/k$1.$2" -I"$tmp/mod" - 2>&1
}
if command -v gcc >/dev/null; then
	for k in $kernels; do
		check "module: builds on Linux $k with flavour \"$k\"" eval '
			out=$(preproc ${k%.*} ${k#*.}) && grep -qx "flavour=\"$k\"" <<<"$out" || { echo "$out"; false; }'
	done
	for k in "${others[@]}"; do
		check "module: refuses Linux $k: #error \"wakeplace supports Linux $text only\"" eval '
			! out=$(preproc ${k%.*} ${k#*.}) &&
			grep -q "#error \"wakeplace supports Linux $text only\"" <<<"$out" || { echo "$out"; false; }'
	done
else
	skip "module: the compile-time kernel check" "no gcc"
fi
kos=()
for k in $kernels; do
	for ko in build/"$k".*/wakeplace.ko; do [ -f "$ko" ] && kos+=("$ko"); done
done
if [ ${#kos[@]} = 0 ]; then
	skip "built modules carry version $ver" "no build/<release>/wakeplace.ko (make module)"
fi
for ko in "${kos[@]}"; do
	check "$ko: modinfo version $ver, flavour from module/kernels" eval '
		[ "$(modinfo -F version "$ko")" = "$ver" ] &&
		cmp "$(dirname "$ko")/module/generated/wp_kernels.h" "$tmp/mod/wp_kernels.h"'
done

# ---- wakeplacectl ----------------------------------------------------------------------
if make -s -C ctl >"$tmp/make.out" 2>&1; then
	ok "make -C ctl builds the tool and the man page"
	ctl=ctl/wakeplacectl
	check "wakeplacectl -V: \"wakeplacectl $ver\"" eval '
		[ "$(WAKEPLACE_SYSFS=$tmp/none $ctl -V | sed -n 1p)" = "wakeplacectl $ver" ]'
	check "wakeplacectl -j -V: \"version\": \"$ver\"" eval '
		WAKEPLACE_SYSFS=$tmp/none $ctl -j -V | grep -q "\"version\": *\"$ver\""'
	# The flavour table, through `status` on a kernel whose release a
	# preloaded uname() fakes (the module is not loaded: the table decides).
	cat > "$tmp/uname.c" <<-'EOF'
	#define _GNU_SOURCE
	#include <stdio.h>
	#include <stdlib.h>
	#include <string.h>
	#include <sys/utsname.h>
	#include <dlfcn.h>

	int uname(struct utsname *u)
	{
		int (*real)(struct utsname *) = dlsym(RTLD_NEXT, "uname");
		int r = real(u);

		if (!r && getenv("WP_FAKE_RELEASE"))
			snprintf(u->release, sizeof(u->release), "%s", getenv("WP_FAKE_RELEASE"));
		return r;
	}
	EOF
	if gcc -shared -fPIC -o "$tmp/uname.so" "$tmp/uname.c" -ldl 2>"$tmp/cc.out"; then
		status() { # RELEASE
			WP_FAKE_RELEASE=$1 LD_PRELOAD=$tmp/uname.so WAKEPLACE_SYSFS=$tmp/none \
				$ctl status 2>&1
		}
		for k in $kernels; do
			check "wakeplacectl status: Linux $k.0-1-amd64 is supported" eval '
				out=$(status $k.0-1-amd64); grep -qx "kernel: *$k.0-1-amd64 (supported)" <<<"$out" || { echo "$out"; false; }'
		done
		for k in "${others[@]}"; do
			check "wakeplacectl status: Linux $k.0-1-amd64 is not (\"supports $text kernels\")" eval '
				out=$(status $k.0-1-amd64)
				grep -qx "kernel: *$k.0-1-amd64 (not supported: the module supports $text kernels)" <<<"$out" || { echo "$out"; false; }'
		done
	else
		skip "wakeplacectl status: the flavour table" "cannot build a uname() shim: $(head -1 "$tmp/cc.out")"
	fi
else
	not_ok "make -C ctl builds the tool and the man page" "$(cat "$tmp/make.out")"
fi

# ---- the man page ------------------------------------------------------------------------
check "ctl/wakeplacectl.8 has no version of its own (.TH source \"wakeplace\")" \
	grep -Eq '^\.TH WAKEPLACECTL 8 "[^"]*" "wakeplace" ' ctl/wakeplacectl.8
if make -s -C ctl install DESTDIR="$tmp/inst" PREFIX=/usr >"$tmp/inst.out" 2>&1; then
	# shellcheck disable=SC2034 # read by the eval'd check below
	man=$tmp/inst/usr/share/man/man8/wakeplacectl.8
	check "the installed man page says \"wakeplace $ver\" and is otherwise the source" eval '
		grep -Eq "^\.TH WAKEPLACECTL 8 \"[^\"]*\" \"wakeplace $ver\" " "$man" &&
		[ "$(diff ctl/wakeplacectl.8 "$man" | grep -c "^[<>]")" = 2 ]'
else
	not_ok "make -C ctl install DESTDIR=..." "$(cat "$tmp/inst.out")"
fi
cp ctl/wakeplacectl.8 "$tmp/man.8"
sed -i 's/^\(\.TH .*\)"wakeplace"/\1"wakeplace 9.9.9"/' "$tmp/man.8"
check "gen-version man refuses a page that carries its own version" \
	eval '! $gen man "$tmp/man.8" - >/dev/null 2>&1'

# ---- dkms.conf, dkms-build, the DKMS tree ------------------------------------------------------
check "the committed dkms.conf is what gen-version makes of it" eval '
	$gen dkms-conf dkms.conf - | diff dkms.conf -'
dkconf() { # FILE VAR: a dkms.conf value as DKMS reads it
	kernelver=x bash -c '. "$1"; eval "echo \"\${$0}\""' "$2" "$1"
}
check "dkms.conf: PACKAGE_VERSION $ver" eval '[ "$(dkconf ./dkms.conf PACKAGE_VERSION)" = "$ver" ]'
kre=$(dkconf ./dkms.conf BUILD_EXCLUSIVE_KERNEL)
# Each series in Debian's flavours too: generic, cloud, rt.
check "dkms.conf: BUILD_EXCLUSIVE_KERNEL ($kre) takes the listed series in every flavour, not ${others[*]}" eval '
	for k in $kernels; do for r in $k.0-1-amd64 $k.95+deb12-amd64 $k.0-57-cloud-amd64 $k.95+deb12-rt-amd64; do
		[[ $r =~ $kre ]] || { echo "refuses $r"; exit 1; }; done; done
	for k in "${others[@]}"; do for r in $k.0-1-amd64 $k.0-1-cloud-amd64 $k.5+deb13-rt-amd64; do
		[[ $r =~ $kre ]] && { echo "takes $r"; exit 1; }; done; done; true'

fakehdr() { # DIR MAJOR MINOR: headers enough for dkms-build --check
	mkdir -p "$1/include/generated/uapi/linux"
	: > "$1/Makefile"
	printf '#define LINUX_VERSION_CODE %d\n#define LINUX_VERSION_MAJOR %s\n#define LINUX_VERSION_PATCHLEVEL %s\n' \
		$(($2 * 65536 + $3 * 256)) "$2" "$3" > "$1/include/generated/uapi/linux/version.h"
	printf 'CONFIG_DEBUG_INFO_BTF=y\nCONFIG_FUNCTION_TRACER=y\nCONFIG_DYNAMIC_FTRACE=y\n' > "$1/.config"
}
buildcheck() { # SERIES: dkms-build --check's exit status and output
	fakehdr "$tmp/h$1" "${1%.*}" "${1#*.}"
	WP_KDIR=$tmp/h$1 bash packaging/dkms-build --check "$1.0-0-none" 2>&1
}
for k in $kernels; do
	check "dkms-build: Linux $k passes the series check" eval '
		rc=0; out=$(buildcheck $k) || rc=$?; [ $rc != 77 ] || { echo "$out"; false; }'
done
for k in "${others[@]}"; do
	check "dkms-build: refuses Linux $k (77, \"wakeplace supports $text\")" eval '
		rc=0; out=$(buildcheck $k) || rc=$?
		[ $rc = 77 ] && [ "$out" = "wakeplace: $k.0-0-none: not supported: Linux $k; wakeplace supports $text" ] || { echo "exit $rc: $out"; false; }'
done

if ! command -v dkms >/dev/null; then
	skip "the DKMS source tree: VERSION, module/kernels, the generator, a generated dkms.conf" "dkms not installed"
elif [ "$(id -u)" != 0 ]; then
	skip "the DKMS source tree: VERSION, module/kernels, the generator, a generated dkms.conf" "not root"
else
	# Registers the sources, then skips the only (headerless) kernel.
	dk=$tmp/dkms
	rc=0
	# shellcheck disable=SC2034 # read by the eval'd check below
	WP_DKMS_ROOT=$dk packaging/dkms-install 5.10.0-0-none > "$tmp/dkms.out" 2>&1 || rc=$?
	src=$dk/src/wakeplace-$ver
	check "dkms-install registers $src with VERSION, module/kernels, the generator" eval '
		[ $rc = 1 ] && grep -q "^wakeplace $ver: sources in $src" "$tmp/dkms.out" &&
		cmp VERSION "$src/VERSION" && cmp module/kernels "$src/module/kernels" &&
		cmp $gen "$src/$gen" || { echo "exit $rc"; cat "$tmp/dkms.out"; ls -R "$src" | head -20; false; }'
	check "the DKMS tree's dkms.conf is generated from the sources" eval '
		$gen dkms-conf dkms.conf - | diff - "$src/dkms.conf"'
	k=$(head -n 1 <<<"$kernels")
	# make -n still runs the recipe line with $(MAKE): a kernel tree that
	# builds nothing.
	mkdir -p "$tmp/kdir"
	printf '%%:\n\t@:\n' > "$tmp/kdir/Makefile"
	check "the DKMS tree has every prerequisite of make module (make -n)" \
		make -n -C "$src" KVER="$k.0-0-none" KDIR="$tmp/kdir" module
	WP_DKMS_ROOT=$dk packaging/dkms-install --remove >/dev/null 2>&1
fi

# ---- no stray copy ----------------------------------------------------------------------------
# The code says neither the version nor the list: only VERSION, module/kernels
# and what gen-version writes (dkms.conf is checked above).  docs/ and the
# tests' fixtures hold examples, not facts the code uses.
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	# shellcheck disable=SC2034 # read by the eval'd check below
	code=(':!docs/' ':!tests/' ':!ctl/test-lib.sh' ':!VERSION' ':!module/kernels'
	      ':!dkms.conf' ":!$gen" ':!*.md')
	check "no file of the code hard-codes the version $ver" eval '
		! git grep -nF -e "$ver" -- "${code[@]}"'
	slash=$(paste -sd/ - <<<"$kernels")
	table=$(sed 's/.*/"&"/' <<<"$kernels" | paste -sd, - | sed 's/,/, /g')
	pipe=$(paste -sd'|' - <<<"$kernels")
	# Comments may name a kernel ("renamed between 6.1 and 6.12"); a
	# message, a table or a pattern may not.
	check "no file of the code hard-codes the kernel list (supports $text, $slash, $pipe, $table)" eval '
		! git grep -nF -e "supports $text" -e "supports Linux $text" -e "$slash" -e "$pipe" \
			-e "$table" -- "${code[@]}"'
else
	skip "no stray hard-coded version or kernel list" "not a git checkout"
fi

tap_done
