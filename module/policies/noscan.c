// SPDX-License-Identifier: GPL-2.0
/*
 * noscan: no LLC scan at all, as before 2.6.33 (docs/history.md): target
 * if idle, else prev if idle and sharing the cache, else target.  At most
 * two remote runqueues read per pick.
 */
#include "../fair.h"

static notrace int noscan_select(struct wp_wakeup *w)
{
	int t = w->target, prev = w->prev;

	if (wp_idle_or_sched_idle(w, t)) {
		w->outcome = WP_OUT_TARGET;
		return t;
	}
	if (prev != t && wp_cpus_share_cache(prev, t) &&
	    wp_idle_or_sched_idle(w, prev)) {
		w->outcome = WP_OUT_PREV;
		return prev;
	}
	return wp_sis_none(w, -1);
}

/*
 * For the docs (scripts/gen-docs):
 * search: target if idle, else prev if idle and sharing cache, else target
 * idea: 2.6.32, before the 2.6.33 regression
 */
struct wakeplace_policy wp_policy_noscan = {
	.name = "noscan",
	.description = "target or prev if idle, no LLC scan (2.6.32 behaviour)",
	.select_cpu = noscan_select,
};
