#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The userspace workload programs of bench-scripts (rr, chat, wakelat) run
# briefly on the host: line format, metrics present, sane values,
# histograms consistent with the counts; the wrappers' option handling;
# the C sources compile warning-free.  TAP.
set -u
. "$(dirname "$(readlink -f "$0")")/../../bench-scripts/test-lib.sh"

B=$BENCH/bin
LINE_RE='^[0-9]+\.[0-9]+ [A-Za-z0-9_.-]+ [A-Za-z0-9_.]+ [^ ,]+$'

# fmt_ok FILE LABEL: every line is "<time> LABEL <metric> <value>", time
# close to now, values numeric except hist.
fmt_ok() {
	awk -v re="$LINE_RE" -v lab="$2" -v now="$(date +%s)" '
		$0 !~ re { print "bad line: " $0; bad = 1; next }
		$2 != lab { print "label: " $0; bad = 1 }
		$1 < now - 120 || $1 > now + 120 { print "time: " $0; bad = 1 }
		$3 != "hist" && $4 !~ /^[0-9]+(\.[0-9]+)?$/ { print "value: " $0; bad = 1 }
		$3 == "hist" && $4 !~ /^L6ns(;[0-9]+:[0-9]+)*$/ { print "hist: " $0; bad = 1 }
		END { if (NR == 0) { print "no output"; bad = 1 } exit bad }' "$1"
}

# vals FILE METRIC: the metric's values, one per line.
vals() { awk -v m="$2" '$3 == m { print $4 }' "$1"; }

# rate_vs_hist FILE RATE_METRIC: from the second interval on, the total
# count of the interval's histogram must equal rate x interval length (the
# time between consecutive hist lines), within 3%.
rate_vs_hist() {
	awk -v m="$2" '$3 == m { r[++nr] = $4 }
		$3 == "hist" { n = split($4, f, ";"); s = 0
			for (i = 2; i <= n; i++) { split(f[i], kv, ":"); s += kv[2] }
			c[++nh] = s; t[nh] = $1 }
		END {
			if (nh < 2 || nr != nh) { print "intervals:", nr, nh; exit 1 }
			for (i = 2; i <= nh; i++) {
				e = r[i] * (t[i] - t[i - 1]); d = e - c[i]; if (d < 0) d = -d
				if (!(c[i] > 0) || d > 0.03 * c[i] + 20) {
					print "interval", i, "rate x time", e, "hist count", c[i]; bad = 1
				}
			}
			exit bad
		}' "$1"
}

# ---- warning-free build ---------------------------------------------------------
# wpstats links the JSON writer it shares with wakeplacectl (lib/).
for p in rr chat wakelat wpstats; do
	extra=()
	[ "$p" = wpstats ] && extra=(-I"$BENCH/../lib" "$BENCH/../lib/json.c")
	check "$p.c builds with -std=gnu11 -Wall -Wextra -Werror -O2" \
		gcc -std=gnu11 -Wall -Wextra -Werror -O2 -pthread \
			-o "$TMPD/$p" "$BENCH/src/$p.c" "${extra[@]}" -lm
done

# ---- rr ---------------------------------------------------------------------------
"$B/rr" -p 2 -t 3.5 >"$TMPD/rr.out" 2>"$TMPD/rr.err"
check "rr: exit 0" eval "[ $? = 0 ]"
check "rr: line format" fmt_ok "$TMPD/rr.out" rr
check "rr: 3 intervals, each with tps p50_us p99_us hist" \
	eval '[ "$(vals "$TMPD/rr.out" tps | wc -l)" = 3 ] && [ "$(vals "$TMPD/rr.out" hist | wc -l)" = 3 ] &&
	      [ "$(vals "$TMPD/rr.out" p50_us | wc -l)" = 3 ] && [ "$(vals "$TMPD/rr.out" p99_us | wc -l)" = 3 ]'
check "rr: tps > 0 in every interval" \
	eval 'for v in $(vals "$TMPD/rr.out" tps); do t_cmp "$v" gt 0 || exit 1; done'
check "rr: 0 < p50 <= p99" \
	eval 'paste <(vals "$TMPD/rr.out" p50_us) <(vals "$TMPD/rr.out" p99_us) |
	      awk "{ if (!(\$1 > 0 && \$1 <= \$2)) bad = 1 } END { exit bad }"'
check "rr: histogram counts = tps x interval (every transaction recorded)" \
	rate_vs_hist "$TMPD/rr.out" tps
"$B/rr" -p 1 -c 1 -t 30 -L rr1 -H >"$TMPD/rr1.out"
check "rr: -c 1 stops after one interval; -L labels; -H drops hist" \
	eval '[ "$(vals "$TMPD/rr1.out" tps | wc -l)" = 1 ] && [ -z "$(vals "$TMPD/rr1.out" hist)" ] && fmt_ok "$TMPD/rr1.out" rr1'
"$B/rr" -p 0 >/dev/null 2>&1
check "rr: -p 0 is refused (exit 2)" eval "[ $? = 2 ]"

# ---- chat -------------------------------------------------------------------------
"$B/chat" -r 2 -u 4 -t 4.5 >"$TMPD/chat.out" 2>"$TMPD/chat.err"
check "chat: exit 0" eval "[ $? = 0 ]"
check "chat: line format, msgs_per_s only" \
	eval 'fmt_ok "$TMPD/chat.out" chat && [ -z "$(awk "\$3 != \"msgs_per_s\"" "$TMPD/chat.out")" ]'
# Four intervals; on a loaded machine the first ones may pass while the
# 16 connections are still being set up, so the last must carry messages.
check "chat: 4 intervals, none negative, the last with msgs_per_s > 0" \
	eval '[ "$(vals "$TMPD/chat.out" msgs_per_s | wc -l)" = 4 ] &&
	      for v in $(vals "$TMPD/chat.out" msgs_per_s); do t_cmp "$v" ge 0 || exit 1; done &&
	      t_cmp "$(vals "$TMPD/chat.out" msgs_per_s | tail -1)" gt 0'
# 1 room of 2 users is a strict ping-pong: each message is one send and one
# receive, so the rate is even-ish and positive; 6 rooms give more traffic
# than 1 only if rooms really run concurrently (not asserted: speed).
"$B/chat" -r 1 -u 2 -c 1 -t 30 -L chat2 >"$TMPD/chat2.out"
check "chat: -c 1, 1 room of 2 users: one positive line" \
	eval '[ "$(vals "$TMPD/chat2.out" msgs_per_s | wc -l)" = 1 ] && t_cmp "$(vals "$TMPD/chat2.out" msgs_per_s)" gt 0'
check "chat: no server process left behind" \
	eval '! pgrep -f "^$B/chat " >/dev/null'
"$B/chat" -u 1 >/dev/null 2>&1
check "chat: 1 user per room is refused (exit 2)" eval "[ $? = 2 ]"

# ---- wakelat ----------------------------------------------------------------------
"$B/wakelat" -m 1 -w 2 -t 3.5 >"$TMPD/wl.out" 2>"$TMPD/wl.err"
check "wakelat: exit 0" eval "[ $? = 0 ]"
check "wakelat: line format" fmt_ok "$TMPD/wl.out" wakelat
check "wakelat: 3 intervals of p50_us p90_us p99_us p999_us rps hist" \
	eval 'for m in p50_us p90_us p99_us p999_us rps hist; do [ "$(vals "$TMPD/wl.out" $m | wc -l)" = 3 ] || exit 1; done'
check "wakelat: 0 < p50 <= p90 <= p99 <= p99.9" \
	eval 'paste <(vals "$TMPD/wl.out" p50_us) <(vals "$TMPD/wl.out" p90_us) <(vals "$TMPD/wl.out" p99_us) <(vals "$TMPD/wl.out" p999_us) |
	      awk "{ if (!(\$1 > 0 && \$1 <= \$2 && \$2 <= \$3 && \$3 <= \$4)) { print; bad = 1 } } END { exit bad }"'
check "wakelat: rps > 0; histogram counts = rps x interval (every wakeup recorded)" \
	rate_vs_hist "$TMPD/wl.out" rps
"$B/wakelat" -m 1 -w 1 -r 2000 -c 1 -t 30 >"$TMPD/wl2.out"
check "wakelat: think time 2 ms with 1 worker caps rps below 500" \
	eval 't_cmp "$(vals "$TMPD/wl2.out" rps)" lt 500 && t_cmp "$(vals "$TMPD/wl2.out" rps)" gt 0'

# threads_of CMD...: run CMD in the background, print the most threads it
# had (sampled for up to 5 s) after it ended.
threads_of() {
	local pid n max=0 i
	"$@" >/dev/null &
	pid=$!
	for ((i = 0; i < 50; i++)); do
		n=$(ls "/proc/$pid/task" 2>/dev/null | wc -l)
		[ "$n" -gt "$max" ] && max=$n
		sleep 0.1
	done
	wait "$pid"
	echo "$max"
}
# main + 1 message thread + 1 worker, then 3 neighbours
check "wakelat -b 3: three more threads than without" \
	eval '[ "$(threads_of "$B/wakelat" -m 1 -w 1 -t 6)" = 3 ] &&
	      [ "$(threads_of "$B/wakelat" -m 1 -w 1 -b 3 -t 6)" = 6 ]'
TIMEFORMAT=%U
u=$({ time "$B/wakelat" -m 1 -w 1 -r 0 -b 2 -t 3 >/dev/null; } 2>&1)
unset TIMEFORMAT
check "wakelat -b 2: the neighbours spin (user CPU time $u s >= 1.5 s in 3 s)" t_cmp "$u" ge 1.5
"$B/wakelat" -b -1 -t 1 >/dev/null 2>&1
check "wakelat: -b -1 is refused (exit 2)" eval "[ $? = 2 ]"

# ---- the percentile of a merged histogram, via wpstats ----------------------------
{
	echo "timestamp,rep,block,policy,workload,level,metric,value"
	awk '$3 == "hist" { printf "%s,1,1,stock,wakelat,1,hist,%s\n", $1, $4 }' "$TMPD/wl.out"
} >"$TMPD/wl.csv"
"$B/wpstats" -j "$TMPD/wl.json" -q "$TMPD/wl.csv"
check "wakelat histograms merge in wpstats: p50 between the interval p50s (±3%)" \
	eval 'p=$(jq -r ".rows[] | select(.metric == \"lat_p50_us\") | .mean" "$TMPD/wl.json");
	      lo=$(vals "$TMPD/wl.out" p50_us | sort -g | head -n 1); hi=$(vals "$TMPD/wl.out" p50_us | sort -g | tail -n 1);
	      t_cmp "$p" ge "$(awk -v v="$lo" "BEGIN { print v * 0.97 }")" && t_cmp "$p" le "$(awk -v v="$hi" "BEGIN { print v * 1.03 }")"'

# ---- wrappers -----------------------------------------------------------------------
W=$BENCH/workloads
"$W/rr" -c 1 -l 0.5 >"$TMPD/w-rr.out"
check "workloads/rr -c 1: tps line" \
	eval 'fmt_ok "$TMPD/w-rr.out" rr && [ "$(vals "$TMPD/w-rr.out" tps | wc -l)" = 1 ]'
"$W/chat" -c 1 -l 0.5 -u 3 >"$TMPD/w-chat.out"
check "workloads/chat -c 1: msgs_per_s line" \
	eval 'fmt_ok "$TMPD/w-chat.out" chat && [ "$(vals "$TMPD/w-chat.out" msgs_per_s | wc -l)" = 1 ]'
"$W/wakelat" -c 1 -l 1 >"$TMPD/w-wl.out"
check "workloads/wakelat -c 1: rps and hist lines" \
	eval 'fmt_ok "$TMPD/w-wl.out" wakelat && [ "$(vals "$TMPD/w-wl.out" rps | wc -l)" = 1 ]'
check "workloads/wakelat -b 2 passes the neighbours on (main + 1 message thread + 1 worker + 2)" \
	eval '[ "$(threads_of "$W/wakelat" -l 0.25 -m 1 -b 2 -t 6)" = 5 ]'
for w in messaging pipe tbench rr oltp chat wakelat; do
	"$W/$w" -l abc >/dev/null 2>"$TMPD/bad.err"
	# shellcheck disable=SC2034 # read by the eval'd check below
	rc=$?
	check "workloads/$w: bad -l is a usage error (exit 2)" \
		eval '[ $rc = 2 ] && grep -q "bad -l" "$TMPD/bad.err"'
done
check "every workload is listed in the metrics table" \
	eval 'for w in messaging pipe tbench rr oltp chat wakelat; do grep -q "^$w " "$BENCH/metrics" || exit 1; done'

t_done
