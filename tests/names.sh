# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The policy and outcome names as the module's sources list them, for
# tests that need "the expected list": module/policies/list.h (one
# WP_POLICY(name) line per policy) and module/outcomes.h (one X(value,
# ENUM, name, ...) entry per outcome).  A guest test compares them with
# what the loaded module reports, so a policy the module drops still
# fails; the host's fake sysfs trees are built from them.  Sourced by
# tests/lib.sh and ctl/test-lib.sh, not run.

_WP_SRC_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# src_policies [EXCEPT...]: the policies of list.h but EXCEPT, in its
# order, on one line; fails (prints nothing) if none can be read.
src_policies() {
	awk -F'[()]' -v skip=" $* " '/^WP_POLICY\(/ && index(skip, " " $2 " ") == 0 {
			s = s (s == "" ? "" : " ") $2 }
		END { if (s == "") exit 1; print s }' \
		"$_WP_SRC_TOP/module/policies/list.h"
}

# src_outcomes: the outcome names of outcomes.h, in counter order, on one
# line; fails (prints nothing) if none can be read.
src_outcomes() {
	awk -F', *' '/^[ \t]*X\([0-9]+,/ { s = s (s == "" ? "" : " ") $3 }
		END { if (s == "") exit 1; print s }' \
		"$_WP_SRC_TOP/module/outcomes.h"
}

# src_tunables POLICY: the tunables of module/policies/POLICY.c as a fresh
# module lists them: "name default min max" per WP_TUNABLE("name", min,
# max, default) entry, in their order (nothing for a policy without).
src_tunables() {
	local f="$_WP_SRC_TOP/module/policies/$1.c"
	[ -r "$f" ] || return 0
	sed -n 's/.*WP_TUNABLE("\([a-z_0-9]*\)", *\([0-9]*\), *\([0-9]*\), *\([0-9]*\)).*/\1 \4 \2 \3/p' "$f"
}
