/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wakeplace:select_cpu, one event per pick of a non-stock policy:
 * perf record -e wakeplace:select_cpu, perf stat -e 'wakeplace:*'.
 * remote and cost_ns make one pick's cost visible per task; cost_ns is 0
 * for picks the sampling (sample_period) did not time.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM wakeplace

#if !defined(WP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define WP_TRACE_H

#include <linux/tracepoint.h>
#include "compat.h"
#include "outcomes.h"

/*
 * enum wp_outcome, named as in the stats files: by value, as outcomes.h
 * gives them, so that the format file's print fmt needs no enum map.
 */
#define WP_OUT_SYM(v, e, n, c, t, d)	{ v, #n }
#define wp_print_outcome(x)	__print_symbolic(x, WP_OUTCOMES(WP_OUT_SYM))
/* A latency row: an outcome, or 8, unplaced (WP_LAT_UNPLACED, latency.h). */
#define wp_print_row(x)		__print_symbolic(x, WP_OUTCOMES(WP_OUT_SYM), \
						 { 8, "unplaced" })

TRACE_EVENT(select_cpu,

	TP_PROTO(const char *policy, pid_t pid, int prev, int target,
		 int chosen, int outcome, unsigned int scanned,
		 unsigned int remote, u64 cost_ns),

	TP_ARGS(policy, pid, prev, target, chosen, outcome, scanned, remote,
		cost_ns),

	TP_STRUCT__entry(
		__string(policy, policy)
		__field(pid_t, pid)
		__field(int, prev)
		__field(int, target)
		__field(int, chosen)
		__field(int, outcome)
		__field(unsigned int, scanned)
		__field(unsigned int, remote)
		__field(u64, cost_ns)
	),

	TP_fast_assign(
		WP_TRACE_ASSIGN_STR(policy, policy);
		__entry->pid = pid;
		__entry->prev = prev;
		__entry->target = target;
		__entry->chosen = chosen;
		__entry->outcome = outcome;
		__entry->scanned = scanned;
		__entry->remote = remote;
		__entry->cost_ns = cost_ns;
	),

	TP_printk("policy=%s pid=%d prev=%d target=%d chosen=%d outcome=%s scanned=%u remote=%u cost_ns=%llu",
		  __get_str(policy), __entry->pid, __entry->prev,
		  __entry->target, __entry->chosen,
		  wp_print_outcome(__entry->outcome),
		  __entry->scanned, __entry->remote,
		  (unsigned long long)__entry->cost_ns)
);

/*
 * wakeplace:wakeup_latency, one event per tracked wakeup (latency_sample),
 * when the task is switched in: which policy placed it, how, where, where
 * it ran and how long it waited.  placed is -1 if the task never showed
 * up in sched_wakeup.  Stock's wakeups have outcome handback; wakeups no
 * policy placed (latency.c) have outcome unplaced, for every policy.
 */
TRACE_EVENT(wakeup_latency,

	TP_PROTO(const char *policy, pid_t pid, int prev, int placed,
		 int ran_on, int outcome, int stacked, u64 latency_ns),

	TP_ARGS(policy, pid, prev, placed, ran_on, outcome, stacked,
		latency_ns),

	TP_STRUCT__entry(
		__string(policy, policy)
		__field(pid_t, pid)
		__field(int, prev)
		__field(int, placed)
		__field(int, ran_on)
		__field(int, outcome)
		__field(int, stacked)
		__field(u64, latency_ns)
	),

	TP_fast_assign(
		WP_TRACE_ASSIGN_STR(policy, policy);
		__entry->pid = pid;
		__entry->prev = prev;
		__entry->placed = placed;
		__entry->ran_on = ran_on;
		__entry->outcome = outcome;
		__entry->stacked = stacked;
		__entry->latency_ns = latency_ns;
	),

	TP_printk("policy=%s pid=%d prev=%d placed=%d ran_on=%d outcome=%s stacked=%d latency_ns=%llu",
		  __get_str(policy), __entry->pid, __entry->prev,
		  __entry->placed, __entry->ran_on,
		  wp_print_row(__entry->outcome),
		  __entry->stacked, (unsigned long long)__entry->latency_ns)
);

#endif /* WP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
