// SPDX-License-Identifier: GPL-2.0
/*
 * bounded: the kernel's cheap checks (target, prev, kthread stacking,
 * recently used CPU), then a linear scan of the LLC from target + 1 that
 * reads at most scan_max runqueues.
 */
#include "../fair.h"

static struct wp_tunable bounded_tun[] = {
	WP_TUNABLE("scan_max", 0, 1024, 4),
};

static notrace int bounded_select(struct wp_wakeup *w)
{
	struct sched_domain *sd;
	int i, held, max;

	i = wp_sis_fast_checks(w, &held);
	if (i >= 0)
		return i;
	max = READ_ONCE(bounded_tun[0].val);
	sd = wp_sd_llc(w->target);
	if (sd && max) {
		/* The kernel's budget counts one more than it scans. */
		i = wp_select_idle_cpu(w, sd, false, w->target, max + 1);
		if (i >= 0) {
			w->outcome = WP_OUT_SCAN;
			return i;
		}
	}
	return wp_sis_none(w, held);
}

/*
 * For the docs (scripts/gen-docs):
 * search: the kernel's cheap checks (target, prev, recent), then at most
 *	`scan_max` CPUs of the LLC
 * idea: a fixed scan budget
 * tunable scan_max: CPUs of the LLC scanned at most after the kernel's
 *	cheap checks
 */
struct wakeplace_policy wp_policy_bounded = {
	.name = "bounded",
	.description = "the kernel's cheap checks, then a linear LLC scan from target of at most scan_max CPUs",
	.select_cpu = bounded_select,
	.tunables = bounded_tun,
	.nr_tunables = ARRAY_SIZE(bounded_tun),
};
