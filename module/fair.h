/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's wakeup path, reimplemented: the skeleton every policy shares
 * (wake_wide, wake_affine) and the pieces of the idle-sibling search that
 * policies reuse.
 */
#ifndef WP_FAIR_H
#define WP_FAIR_H

#include "wakeplace.h"
#include "sched.h"

int wp_fair_init(void);
void wp_fair_exit(void);

int wp_place(struct wakeplace_policy *pol, struct wp_wakeup *w);

/* Pieces of select_idle_sibling(), as the running kernel has them. */
int wp_sis_fast_checks(struct wp_wakeup *w, int *recent);
int wp_sis_kernel(struct wp_wakeup *w);
int wp_sis_none(struct wp_wakeup *w, int held);
int wp_select_idle_cpu(struct wp_wakeup *w, struct sched_domain *sd,
		       bool has_idle_core, int target, int nr);
int wp_select_idle_smt(struct wp_wakeup *w, struct sched_domain *sd, int cpu);
int wp_sis_util_depth(int target);
struct cpumask *wp_scratch_mask(void);

static __always_inline bool wp_test_idle_cores(int cpu)
{
	struct sched_domain_shared *sds = wp_sd_idle_cores_shared(cpu);

	return sds && READ_ONCE(sds->has_idle_cores);
}

#endif /* WP_FAIR_H */
