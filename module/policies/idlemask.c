// SPDX-License-Identifier: GPL-2.0
/*
 * idlemask: target, prev, then the per-LLC idle mask searched from target,
 * wrapping; the CPU is claimed atomically and re-checked.  The idle mask
 * lives on its own cache line, so a pick reads about one remote runqueue
 * (the one it re-checks) whatever the size of the LLC.
 */
#include "../fair.h"
#include "../idle.h"
#include "../stats.h"

static struct wp_tunable idlemask_tun[] = {
	WP_TUNABLE("max_tries", 1, 64, 4),
};

static notrace int idlemask_select(struct wp_wakeup *w)
{
	struct wp_llc *llc = wp_llc_of(w->target);
	int cpu;

	if (!llc) {
		wp_count(WP_C_STALE);
		return WP_HANDBACK;
	}
	cpu = wp_mask_search(w, llc, false,
			     READ_ONCE(idlemask_tun[0].val));
	if (cpu >= 0)
		return cpu;
	return wp_sis_none(w, -1);
}

/*
 * For the docs (scripts/gen-docs):
 * search: target, prev, then the first idle CPU of a per-LLC idle mask
 *	from target; claim and re-check
 * idea: Aubrey Li's idle cpumask, sched_ext's claim
 * tunable max_tries: idle-mask candidates claimed and re-checked at most
 */
struct wakeplace_policy wp_policy_idlemask = {
	.name = "idlemask",
	.description = "per-LLC idle mask: target, prev, first idle CPU from target; claim and verify",
	.select_cpu = idlemask_select,
	.needs_idle_state = true,
	.tunables = idlemask_tun,
	.nr_tunables = ARRAY_SIZE(idlemask_tun),
};
