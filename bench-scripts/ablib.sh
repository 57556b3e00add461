# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers shared by ab and switchback (sourced).

WP_SYSFS=${WP_SYSFS:-/sys/kernel/wakeplace}

ab_log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
ab_die() { ab_log "error: $*"; exit 2; }

# ------------------------------------------------------ measurement ---
# The module measures nothing at load (latency_sample 0: stock then runs
# no probe).  ab_measure_on switches it on for this run (1, unless a
# sample is already set) and remembers the value it found;
# ab_measure_restore, from the script's EXIT trap, puts that value back.
# No module, or one without latency tracking: nothing to do.
# WP_MODULE_FIGURES=0 (bench-scripts/cgroup, whose configurations are not
# all policy names) leaves the measurement as it is and takes none of the
# module's figures (ab_wp_reset fails).
AB_LAT_SAVED=""
ab_measure_on() {
	local f=$WP_SYSFS/latency_sample v
	[ "${WP_MODULE_FIGURES:-1}" != 0 ] || return 0
	[ -z "$AB_LAT_SAVED" ] && [ -w "$f" ] || return 0
	v=$(cat "$f" 2>/dev/null) || return 0
	[ "$v" = 0 ] || return 0
	if { echo 1 >"$f"; } 2>/dev/null; then
		AB_LAT_SAVED=$v
	else
		ab_log "could not switch the measurement on ($f)"
	fi
}
ab_measure_restore() {
	[ -n "$AB_LAT_SAVED" ] || return 0
	{ echo "$AB_LAT_SAVED" >"$WP_SYSFS/latency_sample"; } 2>/dev/null ||
		ab_log "could not restore latency_sample $AB_LAT_SAVED"
	AB_LAT_SAVED=""
}

# ------------------------------------------------------------ json ---

# json_str STRING: a JSON string literal.
json_str() {
	local s=$1 out="" c i
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\n'/\\n}
	s=${s//$'\t'/\\t}
	s=${s//$'\r'/\\r}
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		if [[ $c < ' ' ]]; then
			printf -v c '\\u%04x' "'$c"
		fi
		out+=$c
	done
	printf '"%s"' "$out"
}

# json_arr WORD...: a JSON array of strings.
json_arr() {
	local sep="" w
	printf '['
	for w in "$@"; do
		printf '%s' "$sep"
		json_str "$w"
		sep=", "
	done
	printf ']'
}

# json_file_or_null FILE: the file's first line as a string, or null.
json_file_or_null() {
	local v
	if [ -r "$1" ] && v=$(head -n 1 "$1" 2>/dev/null); then
		json_str "$v"
	else
		printf 'null'
	fi
}

# ----------------------------------------------------------- random ---

# A 64-bit LCG in bash arithmetic (wraps modulo 2^64): the same seed gives
# the same order with any bash, unlike $RANDOM.
ab_rng_state=1
ab_rng_seed() { ab_rng_state=$(( $1 ^ 0x5851f42d4c957f2d )); ab_rng_next; }
ab_rng_next() {
	ab_rng_state=$(( ab_rng_state * 6364136223846793005 + 1442695040888963407 ))
	AB_RNG=$(( (ab_rng_state >> 33) & 0x7fffffff ))
}

# ab_round POLICY...: one randomised ABBA round: a seeded random
# permutation followed by its mirror (A B B A, or A C B B C A for three).
ab_round() {
	local p=("$@") i j t n=$#
	for ((i = n - 1; i > 0; i--)); do
		ab_rng_next
		j=$(( AB_RNG % (i + 1) ))
		t=${p[i]} p[i]=${p[j]} p[j]=$t
	done
	AB_ROUND=("${p[@]}")
	for ((i = n - 1; i >= 0; i--)); do
		AB_ROUND+=("${p[i]}")
	done
}

# --------------------------------------------------------- switcher ---

# ab_resolve_switcher [CMD]: set AB_SWITCH (the policy name is appended as
# the last argument).  Order: --switcher, $WP_SWITCH, wakeplacectl in
# PATH, the repository's ctl/wakeplacectl.
ab_resolve_switcher() {
	if [ -n "${1:-}" ]; then
		AB_SWITCH=$1
	elif [ -n "${WP_SWITCH:-}" ]; then
		AB_SWITCH=$WP_SWITCH
	elif command -v wakeplacectl >/dev/null 2>&1; then
		AB_SWITCH="wakeplacectl policy set"
	elif [ -x "$REPO/ctl/wakeplacectl" ]; then
		AB_SWITCH="$(printf '%q' "$REPO/ctl/wakeplacectl") policy set"
	else
		AB_SWITCH="wakeplacectl policy set"
	fi
}

# ab_switch NAME LOG: run the switcher; its output goes to LOG.
ab_switch() {
	local rc
	printf '%s switch %s\n' "${EPOCHREALTIME/,/.}" "$1" >>"$2"
	bash -c "$AB_SWITCH \"\$1\"" wp-switch "$1" >>"$2" 2>&1
	rc=$?
	[ "$rc" = 0 ] || ab_log "switcher '$AB_SWITCH $1' failed (exit $rc)"
	return "$rc"
}

# ----------------------------------------------------------- system ---

# ab_topology_json: online CPUs with core, package, SMT siblings and LLC.
ab_topology_json() {
	local cpu d c llc lvl best online
	online=$(cat /sys/devices/system/cpu/online 2>/dev/null)
	printf '{"online": %s, "cpus": [' "$(json_str "$online")"
	for d in /sys/devices/system/cpu/cpu[0-9]*; do
		cpu=${d##*cpu}
		[ -r "$d/topology/core_id" ] || continue
		[ -r "$d/online" ] && [ "$(cat "$d/online")" = 0 ] && continue
		llc="" best=0
		for c in "$d"/cache/index*; do
			[ -r "$c/level" ] || continue
			[ "$(cat "$c/type")" = Instruction ] && continue
			lvl=$(cat "$c/level")
			if [ "$lvl" -gt "$best" ]; then
				best=$lvl
				llc=$(cat "$c/shared_cpu_list")
			fi
		done
		printf '%s\t{"cpu": %s, "core_id": %s, "package_id": %s, "siblings": %s, "llc_level": %s, "llc_cpus": %s}\n' \
			"$cpu" "$cpu" "$(cat "$d/topology/core_id")" \
			"$(cat "$d/topology/physical_package_id")" \
			"$(json_str "$(cat "$d/topology/thread_siblings_list")")" \
			"$best" "$(json_str "$llc")"
	done | sort -n | cut -f2- | paste -sd, - | sed 's/},{/}, {/g' | tr -d '\n'
	printf ']}'
}

ab_cpu_model() {
	awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo
}

# ab_tunables_json POLICY...: {"policy": {"tunable": value, ...}, ...}
ab_tunables_json() {
	local p sep="" n v isep
	printf '{'
	for p in "$@"; do
		local f="$WP_SYSFS/policies/$p/tunables"
		[ -r "$f" ] || continue
		printf '%s%s: {' "$sep" "$(json_str "$p")"
		isep=""
		while read -r n v _; do
			[ -n "$n" ] || continue
			[[ $v =~ ^-?[0-9]+$ ]] || v=$(json_str "$v")
			printf '%s%s: %s' "$isep" "$(json_str "$n")" "$v"
			isep=", "
		done <"$f"
		printf '}'
		sep=", "
	done
	printf '}'
}

# ab_current_policy: the active policy, empty when the module is absent.
ab_current_policy() {
	cat "$WP_SYSFS/policy" 2>/dev/null
}

# ab_metric_row WORKLOAD METRIC: "better kind unit" from the metrics table.
ab_metric_row() {
	awk -v w="${1%%:*}" -v m="$2" '$1 !~ /^#/ && ($1 == w || $1 == "*") &&
		$2 == m { print $3, $4, ($5 == "" ? "-" : $5); exit }' "$METRICS"
}

# ab_hms SECONDS: 1h02m03s
ab_hms() {
	local s=${1%.*}
	[ -n "$s" ] || s=0
	if [ "$s" -ge 3600 ]; then
		printf '%dh%02dm%02ds' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
	elif [ "$s" -ge 60 ]; then
		printf '%dm%02ds' $((s / 60)) $((s % 60))
	else
		printf '%ds' "$s"
	fi
}

# ab_num NAME VALUE: dies unless VALUE is a non-negative number.
ab_num() {
	[[ $2 =~ ^[0-9]+([.][0-9]+)?$ ]] || ab_die "$1 expects a number, got '$2'"
}
ab_int() {
	[[ $2 =~ ^[0-9]+$ ]] || ab_die "$1 expects an integer, got '$2'"
}

# ------------------------------------------- the module's own figures ---
# Per block, the module's wakeup latency histogram and placement counters
# of the block's policy (docs/sysfs-kernel-wakeplace): reset before the
# block, read after it.  A module without these files (older, or none)
# is skipped silently.

# ab_wp_reset POLICY: reset POLICY's statistics; fails when the module
# does not offer latency_hist/POLICY and stats/POLICY, or refuses.
ab_wp_reset() {
	[ "${WP_MODULE_FIGURES:-1}" != 0 ] || return 1
	[ -r "$WP_SYSFS/latency_hist/$1" ] && [ -r "$WP_SYSFS/stats/$1" ] &&
		[ -w "$WP_SYSFS/stats/reset" ] || return 1
	{ printf '%s\n' "$1" >"$WP_SYSFS/stats/reset"; } 2>/dev/null
}

# ab_wp_snap POLICY DIR: one read of POLICY's stats/ and latency_hist/
# files into DIR/stats/POLICY and DIR/latency_hist/POLICY, a tree of the
# same shape as $WP_SYSFS (WP_SYSFS=DIR ab_wp_rows ... reads it): a
# block's raw record, from which its rows and scale's counts both come.
ab_wp_snap() {
	mkdir -p "$2/stats" "$2/latency_hist" &&
		cat "$WP_SYSFS/stats/$1" >"$2/stats/$1" &&
		cat "$WP_SYSFS/latency_hist/$1" >"$2/latency_hist/$1"
}

# ab_wp_rows PREFIX POLICY...: CSV rows "PREFIX,metric,value" from the
# module's files of the POLICYs that ran in a block: wp_lat (each one's
# "all" histogram, when not empty: wpstats merges a block's), wp_unplaced
# (their unplaced wakeups), wp_tracked and, of their tracked wakeups
# together, wp_stacked_pct wp_missed_pct (missed_idle: stacked while an
# idle CPU was in reach) wp_double_pct wp_moved_pct wp_migr_pct
# wp_migr_llc_pct (when tracked > 0; a counter the module does not have
# is left out).
ab_wp_rows() {
	local pre=$1 p files=()
	shift
	for p in "$@"; do
		[ -r "$WP_SYSFS/latency_hist/$p" ] && [ -r "$WP_SYSFS/stats/$p" ] &&
			files+=("$WP_SYSFS/latency_hist/$p" "$WP_SYSFS/stats/$p")
	done
	[ ${#files[@]} -gt 0 ] || return 0
	awk -v pre="$pre" '
	FILENAME ~ /\/latency_hist\// {
		if ($1 == "all" && $2 ~ /^L6ns(;[0-9]+:[0-9]+)+$/)
			print pre ",wp_lat," $2
		next
	}
	NF >= 2 && $2 ~ /^[0-9]+$/ { v[$1] += $2; has[$1] = 1 }
	END {
		t = v["tracked"]
		if (t) {
			print pre ",wp_tracked," t
			n = split("stacked missed_idle double_picks moved migrated migrated_llc", k, " ")
			split("wp_stacked_pct wp_missed_pct wp_double_pct wp_moved_pct wp_migr_pct wp_migr_llc_pct", m, " ")
			for (i = 1; i <= n; i++)
				if (has[k[i]])
					printf "%s,%s,%.4f\n", pre, m[i], 100 * v[k[i]] / t
		}
		if (has["unplaced"])
			print pre ",wp_unplaced," v["unplaced"]
	}' "${files[@]}" 2>/dev/null
}

# ab_format NAME: dies unless NAME is a table style of wpstats -F.
ab_format() {
	case $1 in
	ours|mmtests|lkp) ;;
	*) ab_die "--format: ours, mmtests or lkp, not '$1'" ;;
	esac
}

# ab_tables OUT ARGS...: OUT/table.txt (ours); with --format other than
# ours also OUT/table-FORMAT.txt (FORMAT, METRICS, baseline, seed ...
# from the caller).  Returns the exit status of the first wpstats (0, 3 regression, other: failure).
ab_tables() {
	local o=$1 rc
	shift
	"$WPSTATS" "$@" "$o/results.csv" >"$o/table.txt" 2>"$o/wpstats.err"
	rc=$?
	# shellcheck disable=SC2154 # format, baseline ...: the caller's options
	if [ "$format" != ours ] && { [ "$rc" = 0 ] || [ "$rc" = 3 ]; }; then
		"$WPSTATS" -F "$format" -m "$METRICS" -b "$baseline" -s "$seed" \
			-B "$resamples" -p "$minpairs" "$o/results.csv" \
			>"$o/table-$format.txt" 2>>"$o/wpstats.err"
	fi
	return "$rc"
}
