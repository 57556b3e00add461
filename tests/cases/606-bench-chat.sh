#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: bench workload chat (VolanoMark-like rooms over loopback): msgs_per_s
# requires: bench topo=llc2
. "$WP_TESTS/lib.sh"
. "${WP_BENCH:-$WP_ROOT/bench-scripts}/guest-case.sh"

bench_need_bin chat
bench_run chat msgs_per_s -t 3 -l 0.5 -u 5
pgrep -f "$WP_BENCH/bin/chat" >/dev/null && fail "chat processes left behind"
pass "no chat process left"
