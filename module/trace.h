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
		  __print_symbolic(__entry->outcome,
				   { 0, "target" }, { 1, "prev" },
				   { 2, "recent" }, { 3, "scan" },
				   { 4, "mask" }, { 5, "fallback" },
				   { 6, "handback" }, { 7, "local" }),
		  __entry->scanned, __entry->remote,
		  (unsigned long long)__entry->cost_ns)
);

#endif /* WP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
