// SPDX-License-Identifier: GPL-2.0
/*
 * prevsmt: after the cheap checks, prev's SMT siblings before the LLC scan
 * (van Riel): the wakee keeps its L1/L2 when its old core has an idle
 * thread.  The rest is the kernel's search.
 */
#include "../fair.h"

static notrace int prevsmt_select(struct wp_wakeup *w)
{
	struct sched_domain *sd;
	int i, held;

	i = wp_sis_fast_checks(w, &held);
	if (i >= 0)
		return i;
	sd = wp_sd_llc(w->target);
	if (sd && wp_cpus_share_cache(w->prev, w->target)) {
		i = wp_select_idle_smt(w, sd, w->prev);
		if (i >= 0) {
			w->outcome = WP_OUT_SCAN;
			return i;
		}
	}
	if (sd) {
		bool core = sched_smt_active() && wp_test_idle_cores(w->target);
		int nr = wp_sis_util_depth(w->target);

		if (nr > 1) {
			i = wp_select_idle_cpu(w, sd, core, w->target, nr);
			if (i >= 0) {
				w->outcome = WP_OUT_SCAN;
				return i;
			}
		}
	}
	return wp_sis_none(w, held);
}

/*
 * For the docs (scripts/gen-docs):
 * idea: van Riel
 */
struct wakeplace_policy wp_policy_prevsmt = {
	.name = "prevsmt",
	.description = "prev's SMT siblings before the LLC scan",
	.select_cpu = prevsmt_select,
};
