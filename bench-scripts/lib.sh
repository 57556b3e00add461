# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers shared by the workload wrappers (sourced, not executed).
#
# Every wrapper takes the common options
#	-t SECONDS	run time (default 10)
#	-l LEVEL	load level, a fraction of the online CPUs (default 1)
#	-c COUNT	stop after COUNT intervals or iterations
# and prints "<unix_time> <workload> <metric> <value>" lines on stdout.

WP_BENCH_DIR=${WP_BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
WP_T=10
WP_L=1
WP_C=0

wp_err() { printf '%s: %s\n' "${WP_NAME:-workload}" "$*" >&2; }
wp_die() { wp_err "$*"; exit 2; }

wp_ncpu() { getconf _NPROCESSORS_ONLN; }

# wp_scale LEVEL: round(LEVEL x online CPUs), at least 1.
wp_scale() {
	awk -v l="$1" -v n="$(wp_ncpu)" 'BEGIN {
		v = int(l * n + 0.5); if (v < 1) v = 1; print v }'
}

# Validate the common options' values.
wp_check_common() {
	[[ $WP_T =~ ^[0-9]+([.][0-9]+)?$ ]] && awk -v t="$WP_T" 'BEGIN { exit !(t > 0) }' ||
		wp_die "bad -t '$WP_T': positive seconds expected"
	[[ $WP_L =~ ^[0-9]*([.][0-9]+)?$ && -n $WP_L ]] &&
		awk -v l="$WP_L" 'BEGIN { exit !(l > 0) }' ||
		wp_die "bad -l '$WP_L': positive fraction of CPUs expected"
	[[ $WP_C =~ ^[0-9]+$ ]] || wp_die "bad -c '$WP_C': count expected"
}

# wp_emit METRIC VALUE: one output line stamped now.
wp_emit() {
	printf '%s %s %s %s\n' "${EPOCHREALTIME/,/.}" "$WP_NAME" "$1" "$2"
}

# Current time in seconds as a float, and float comparisons.
wp_now() { printf '%s\n' "${EPOCHREALTIME/,/.}"; }
wp_lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
wp_add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f\n", a + b }'; }

# Path of one of our C programs; dies if it was not built.
wp_prog() {
	local p="$WP_BENCH_DIR/bin/$1"
	[ -x "$p" ] || wp_die "$p not built: run 'make -C $WP_BENCH_DIR'"
	printf '%s\n' "$p"
}

wp_need() {
	command -v "$1" >/dev/null 2>&1 ||
		wp_die "'$1' not found (Debian package: ${2:-$1})"
}

# Is something listening on 127.0.0.1:PORT?
wp_port_busy() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A private temporary directory under $WP_OUT (if writable) or /tmp,
# removed by the caller's cleanup.
wp_tmpdir() {
	local base=${WP_TMP:-/tmp}
	mktemp -d "$base/wp-$WP_NAME.XXXXXX"
}

wp_common_usage() {
	cat <<EOF
common options:
  -t SECONDS  run time (default 10); every run is bounded in time
  -l LEVEL    load level as a fraction of the online CPUs (default 1)
  -c COUNT    stop after COUNT intervals or iterations
  -h          this help
output: one line per interval or iteration, "<unix_time> <workload> <metric> <value>"
EOF
}

# Call after option parsing: with -c but no -t, COUNT decides, bounded by
# a generous 600 s.
wp_finish_opts() {
	if [ "$WP_C" != 0 ] && [ -z "${WP_T_SET:-}" ]; then
		WP_T=600
	fi
	wp_check_common
}
