#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: bench workload oltp (sysbench oltp_read_only on a private MariaDB): tps
# requires: bench sysbench mariadbd mariadb-install-db mariadb topo=llc2
. "$WP_TESTS/lib.sh"
. "${WP_BENCH:-$WP_ROOT/bench-scripts}/guest-case.sh"

bench_run oltp tps -c 2 -l 0.5 -T 2 -s 2000
ls -d "$WP_TMP"/wp-oltp.* >/dev/null 2>&1 && fail "temporary datadir left in $WP_TMP"
pgrep -x mariadbd >/dev/null && fail "mariadbd still running"
pass "server stopped and datadir removed"
