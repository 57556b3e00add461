# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the 8xx admin cases (install, DKMS, modprobe.d).  Not a case
# itself (the runner takes NNN-name.sh only).  A case does, before lib.sh:
#
#   . "$WP_TESTS/cases/8xx-admin-lib.sh"; admin_private_ns "$0" "$@"
#
# which re-executes it in a private mount namespace: every overlay it then
# mounts with admin_rw vanishes when it exits, so later cases in the same
# guest see the system unchanged, whatever this one did.

# admin_private_ns SCRIPT ARGS...: re-exec SCRIPT in a new mount namespace.
admin_private_ns() {
	[ -n "${WP_ADMIN_NS:-}" ] && return 0
	command -v unshare >/dev/null || {
		echo "SKIP: unshare (util-linux) not installed" >&2
		exit 4
	}
	WP_ADMIN_NS=1 exec unshare --mount --propagation private bash "$@"
}

# admin_re RELEASE: RELEASE as a literal in an extended regex (its dots
# and the "+" of 6.12.95+deb12-amd64 escaped).
admin_re() {
	local r=${1//./\\.}
	printf '%s\n' "${r//+/\\+}"
}

# admin_rw DIR...: make each DIR writable for this case only: an overlay
# whose upper layer is in a tmpfs of this namespace (the guest's / is the
# host's, shared read-only or through virtme's own overlays).
_admin_tmpfs=
admin_rw() {
	local d n
	if [ -z "$_admin_tmpfs" ]; then
		_admin_tmpfs=$(mktemp -d /run/wp-admin.XXXXXX) ||
			fail "cannot create a directory in /run"
		mount -t tmpfs wp-admin "$_admin_tmpfs" ||
			fail "cannot mount a tmpfs on $_admin_tmpfs"
	fi
	for d in "$@"; do
		[ -d "$d" ] || mkdir -p "$d" 2>/dev/null ||
			fail "$d does not exist and cannot be created"
		n=$(mktemp -d "$_admin_tmpfs/ovl.XXXXXX")
		mkdir "$n/upper" "$n/work"
		mount -t overlay wp-admin-ovl \
			-o "lowerdir=$d,upperdir=$n/upper,workdir=$n/work" "$d" ||
			fail "cannot mount a writable overlay on $d"
		touch "$d/.wp-admin-probe" && rm -f "$d/.wp-admin-probe" ||
			fail "$d is still not writable under the overlay"
	done
	log "writable for this case: $*"
}

# admin_slim_modules RELEASE: in this case's namespace, /lib/modules/RELEASE
# becomes a writable tmpfs with the kernel's module metadata (modules.order,
# modules.builtin*) and its build/source links but none of its ~4000
# modules.  What the case installs is then indexed by a depmod -a that takes
# a second: over the guest's 9p root, under TCG, each depmod -a of the full
# tree took 2-3 minutes, and make install, make uninstall, dkms install and
# dkms remove each run one.  WP_ADMIN_FULL_TREE=1 keeps the full tree (as a
# writable overlay) for a run that can afford it.
admin_slim_modules() {
	local rel=$1 d=/lib/modules/$1 t f
	if [ "${WP_ADMIN_FULL_TREE:-0}" = 1 ]; then
		admin_rw "$d"
		return
	fi
	[ -d "$d" ] || fail "$d does not exist"
	t=$(mktemp -d /run/wp-slim.XXXXXX) || fail "cannot create a directory in /run"
	mount -t tmpfs wp-slim "$t" || fail "cannot mount a tmpfs on $t"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -f "$d/$f" ] && cp "$d/$f" "$t/"
	done
	for f in build source; do
		[ -L "$d/$f" ] && cp -P "$d/$f" "$t/"
	done
	mount --bind "$t" "$d" || fail "cannot mount the slim module tree on $d"
	depmod "$rel" || fail "depmod of the slim tree failed"
	log "/lib/modules/$rel: kernel metadata only ($(ls "$d" | tr '\n' ' '))"
}

# admin_time LABEL CMD...: run CMD, log how long it took (TCG figures for
# the report), return its status.  Output goes to $WP_OUT/LABEL.log.
admin_time() {
	local label=$1 t0=$SECONDS rc=0
	shift
	"$@" > "$WP_OUT/$label.log" 2>&1 || rc=$?
	log "$label: $((SECONDS - t0)) s (exit $rc): $*"
	sed 's/^/#   /' "$WP_OUT/$label.log" | tail -n 25 >&2
	return "$rc"
}

# admin_unload: rmmod wakeplace if loaded (fails the case if that fails).
admin_unload() {
	wp_loaded || return 0
	rmmod wakeplace || fail "rmmod wakeplace failed"
}
