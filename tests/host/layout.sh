#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/btf-layout.awk on a small hand-written BTF dump (offsets, sizes
# through typedefs, qualifiers and arrays, alternative field names, per-CPU
# variables, a missing member, the first of two same-named structs), then
# scripts/gen-layout on every target kernel whose image is in /boot: every
# key found, sizes as the module expects, the build identity recorded (UTS
# version, GNU build id; a notes blob without a build id is refused).
# Prints TAP.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
AWK=$ROOT/scripts/btf-layout.awk
TMP=$(mktemp -d /tmp/wp-layout.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=tests/tap.sh
. "$ROOT/tests/tap.sh"
ok() { tap_pass "$*"; }
nok() { tap_fail "$*"; }
diag() { tap_diag; }

# A dump in bpftool's raw format: tabs before members, names in quotes
# (with spaces for base types), key=value after the name.
tab=$'\t'
cat > "$TMP/btf.txt" <<EOF
[1] INT 'long unsigned int' size=8 bits_offset=0 nr_bits=64 encoding=(none)
[2] INT 'unsigned int' size=4 bits_offset=0 nr_bits=32 encoding=(none)
[3] TYPEDEF 'u32' type_id=2
[4] VOLATILE '(anon)' type_id=3
[5] STRUCT 'task_struct' size=9000 vlen=0
[6] PTR '(anon)' type_id=5
[7] ARRAY '(anon)' type_id=1 index_type_id=2 nr_elems=8
[8] STRUCT 'cfs_rq' size=512 vlen=2
${tab}'h_nr_queued' type_id=3 bits_offset=160
${tab}'avg' type_id=7 bits_offset=1024
[9] FUNC_PROTO '(anon)' ret_type_id=0 vlen=1
${tab}'rq' type_id=6
[10] STRUCT 'rq' size=3200 vlen=4
${tab}'nr_running' type_id=4 bits_offset=32
${tab}'cfs' type_id=8 bits_offset=1024
${tab}'curr' type_id=6 bits_offset=20480
${tab}'cpu' type_id=2 bits_offset=25600
[11] STRUCT 'rq' size=16 vlen=1
${tab}'curr' type_id=1 bits_offset=64
[12] FUNC 'select_task_rq_fair' type_id=9 linkage=static
[13] VAR 'runqueues' type_id=10, linkage=global
[14] DATASEC '.data..percpu' size=4096 vlen=2
${tab}type_id=99 offset=0 size=4 (VAR 'sd_llc_size')
${tab}type_id=13 offset=1024 size=3200 (VAR 'runqueues')
EOF
want="NR:rq:nr_running CFS:rq:cfs CURR:rq:curr CPU:rq:cpu"
want="$want HNR:cfs_rq:h_nr_running,h_nr_queued AVG:cfs_rq:avg"
want="$want GONE:rq:no_such_field RQS:%percpu:runqueues"
want="$want LLC:%percpu:sd_llc_size NOVAR:%percpu:sd_llc"
cat > "$TMP/expect" <<'EOF'
NR 4 4 nr_running
CFS 128 512 cfs
CURR 2560 8 curr
CPU 3200 4 cpu
HNR 20 4 h_nr_queued
AVG 128 64 avg
GONE
RQS 1024 3200 runqueues
LLC 0 4 sd_llc_size
NOVAR
EOF
for a in awk mawk gawk "busybox awk"; do
	command -v "${a%% *}" >/dev/null || continue
	[ "$a" = "busybox awk" ] && ! busybox awk 'BEGIN{}' 2>/dev/null && continue
	if $a -v want="$want" -f "$AWK" "$TMP/btf.txt" > "$TMP/got" 2>&1 &&
	   cmp -s "$TMP/expect" "$TMP/got"; then
		ok "btf-layout.awk ($a): offsets, sizes, alternatives, per-CPU, missing"
	else
		nok "btf-layout.awk ($a): offsets, sizes, alternatives, per-CPU, missing"
		diff "$TMP/expect" "$TMP/got" | diag
	fi
done

# gen-layout refuses a BTF that lacks a required member, with the key.
if command -v bpftool >/dev/null; then
	: > "$TMP/empty.btf"
	if WP_BTF=$TMP/empty.btf "$ROOT/scripts/gen-layout" x "$TMP/x.h" 2> "$TMP/err"; then
		nok "gen-layout fails on an unreadable BTF"
	else
		ok "gen-layout fails on an unreadable BTF: $(head -1 "$TMP/err")"
	fi
	[ -e "$TMP/x.h" ] && nok "gen-layout left an output after failing"
fi

# Raw ELF notes as /sys/kernel/notes holds them: u32 namesz, descsz, type
# (little-endian), then name and descriptor padded to 4 bytes.
note() { # NAME TYPE DESC_HEX
	local name=$1 type=$2 desc=$3 nsz dsz
	nsz=$((${#name} + 1)) dsz=$((${#desc} / 2))
	le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
	printf "$(le32 $nsz)$(le32 $dsz)$(le32 $type)"
	printf '%s\0' "$name"
	head -c $(((4 - nsz % 4) % 4)) /dev/zero
	printf "$(sed 's/../\\x&/g' <<<"$desc")"
	head -c $(((4 - dsz % 4) % 4)) /dev/zero
}
id=0123456789abcdef0123456789abcdef01234567
{ note Xen 6 6c696e757800; note GNU 1 00000000; note Linux 3 abcdef; note GNU 3 $id; } \
	> "$TMP/notes"
note Xen 3 00112233445566778899aabbccddeeff00112233 > "$TMP/notes-none"

# Every target kernel with an image: all keys present, a plausible header.
nkeys=$(sed -n '/^want="$/,/^"$/p' "$ROOT/scripts/gen-layout" | grep -c :)
kernels=$(cat /var/lib/wakeplace/kernels 2>/dev/null)
[ -n "$kernels" ] || kernels=$(cd /boot && ls vmlinuz-6.1.* vmlinuz-6.12.* 2>/dev/null | sed 's/^vmlinuz-//')
found=0
for rel in $kernels; do
	[ -r "/boot/vmlinuz-$rel" ] || continue
	command -v bpftool >/dev/null || break
	found=1
	if "$ROOT/scripts/gen-layout" "$rel" "$TMP/$rel.h" 2> "$TMP/err"; then
		keys=$(grep -c '^#define WP_OFF_' "$TMP/$rel.h")
		utsver=$(sed -n 's/^#define WP_LAYOUT_UTSVER "\(.*\)"$/\1/p' "$TMP/$rel.h")
		bid=$(sed -n 's/^#define WP_LAYOUT_BUILD_ID "\(.*\)"$/\1/p' "$TMP/$rel.h")
		if [ "$keys" = "$nkeys" ] && [[ $utsver == *Debian* ]] &&
		   [[ $bid =~ ^[0-9a-f]{40}$ ]] &&
		   grep -q "^#define WP_LAYOUT_RELEASE \"$rel\"" "$TMP/$rel.h"; then
			ok "gen-layout $rel: $nkeys offsets, release, UTS version ($utsver), build id $bid"
		else
			nok "gen-layout $rel: $keys offsets of $nkeys, UTS version '$utsver', build id '$bid'"
			diag < "$TMP/$rel.h"
		fi
	else
		nok "gen-layout $rel failed"
		diag < "$TMP/err"
	fi
done
# The build id parser: the GNU note of type 3, after notes of other
# owners and types; none there is a refusal, with no output left.
for rel in $kernels; do
	[ "$found" = 1 ] || break
	if WP_NOTES=$TMP/notes "$ROOT/scripts/gen-layout" "$rel" "$TMP/n.h" 2> "$TMP/err" &&
	   grep -q "^#define WP_LAYOUT_BUILD_ID \"$id\"$" "$TMP/n.h"; then
		ok "gen-layout: build id from a notes blob (WP_NOTES)"
	else
		nok "gen-layout: build id from a notes blob (WP_NOTES)"
		diag < "$TMP/err"; grep BUILD_ID "$TMP/n.h" 2>/dev/null | diag
	fi
	if WP_NOTES=$TMP/notes-none "$ROOT/scripts/gen-layout" "$rel" "$TMP/none.h" 2> "$TMP/err"; then
		nok "gen-layout refuses notes without a GNU build id"
	elif [ -e "$TMP/none.h" ]; then
		nok "gen-layout left an output after refusing notes without a build id"
	else
		ok "gen-layout refuses notes without a GNU build id: $(head -1 "$TMP/err")"
	fi
	break
done
[ "$found" = 1 ] || tap_skip "gen-layout on target kernels" "no target kernel image or bpftool"

tap_done
