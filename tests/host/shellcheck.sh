#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every shell script of the tree is clean under shellcheck at warning level
# (scripts/lint-shell finds them by their #! or shellcheck shell= line).
# One TAP line; a failure lists the findings.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"

desc="shellcheck -S warning over every shell script"
if ! command -v shellcheck >/dev/null; then
	tap_skip "$desc" "shellcheck not installed (scripts/setup installs it)"
	tap_done
fi
n=$("$top/scripts/lint-shell" -l | wc -l)
tap_result_out "$desc ($n files)" "$top/scripts/lint-shell"
tap_done
