// SPDX-License-Identifier: GPL-2.0
/*
 * idlemask: target, prev, then the per-LLC idle mask searched from target,
 * wrapping; the CPU is claimed atomically and re-checked.  The idle mask
 * lives on its own cache line, so a pick reads about one remote runqueue
 * (the one it re-checks) whatever the size of the LLC.
 */
#include "../idle.h"
#include "../stats.h"

static struct wp_tunable idlemask_tun[] = {
	WP_TUNABLE("max_tries", 1, 64, 4),
};

static notrace int idlemask_select(struct wp_wakeup *w)
{
	int t = w->target, prev = w->prev, cpu;
	struct wp_llc *llc = wp_llc_of(t);

	if (!llc) {
		wp_count(WP_C_STALE);
		return WP_HANDBACK;
	}
	if (wp_mask_try(w, llc, t)) {
		w->outcome = WP_OUT_TARGET;
		return t;
	}
	if (prev != t && wp_cpus_share_cache(prev, t) &&
	    wp_mask_try(w, llc, prev)) {
		w->outcome = WP_OUT_PREV;
		return prev;
	}
	cpu = wp_mask_pick(w, llc, llc->idle, t,
			   READ_ONCE(idlemask_tun[0].val));
	if (cpu >= 0) {
		w->outcome = WP_OUT_MASK;
		return cpu;
	}
	w->outcome = WP_OUT_FALLBACK;
	return t;
}

struct wakeplace_policy wp_policy_idlemask = {
	.name = "idlemask",
	.description = "per-LLC idle mask: target, prev, first idle CPU from target; claim and verify",
	.select_cpu = idlemask_select,
	.needs_idle_state = true,
	.tunables = idlemask_tun,
	.nr_tunables = ARRAY_SIZE(idlemask_tun),
};
