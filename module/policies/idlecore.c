// SPDX-License-Identifier: GPL-2.0
/*
 * idlecore: a whole idle core first (the per-LLC idle-core mask, as
 * sched_ext's default does), then any idle CPU: an idle core gives the
 * wakee a core of its own instead of an SMT sibling of a busy CPU.
 * Without SMT every idle CPU is an idle core.
 */
#include "../idle.h"
#include "../stats.h"

static struct wp_tunable idlecore_tun[] = {
	WP_TUNABLE("max_tries", 1, 64, 4),
};

static notrace int idlecore_select(struct wp_wakeup *w)
{
	int t = w->target, prev = w->prev, cpu;
	int tries = READ_ONCE(idlecore_tun[0].val);
	struct wp_llc *llc = wp_llc_of(t);

	if (!llc) {
		wp_count(WP_C_STALE);
		return WP_HANDBACK;
	}
	/* Target, or prev, when its whole core is idle. */
	if (test_bit(t, llc->core) && wp_mask_try(w, llc, t)) {
		w->outcome = WP_OUT_TARGET;
		return t;
	}
	if (prev != t && wp_cpus_share_cache(prev, t) &&
	    test_bit(prev, llc->core) && wp_mask_try(w, llc, prev)) {
		w->outcome = WP_OUT_PREV;
		return prev;
	}
	cpu = wp_mask_pick(w, llc, llc->core, t, tries);
	if (cpu >= 0) {
		w->outcome = WP_OUT_MASK;
		return cpu;
	}
	/* No idle core: an idle CPU, target and prev first. */
	if (wp_mask_try(w, llc, t)) {
		w->outcome = WP_OUT_TARGET;
		return t;
	}
	if (prev != t && wp_cpus_share_cache(prev, t) &&
	    wp_mask_try(w, llc, prev)) {
		w->outcome = WP_OUT_PREV;
		return prev;
	}
	cpu = wp_mask_pick(w, llc, llc->idle, t, tries);
	if (cpu >= 0) {
		w->outcome = WP_OUT_MASK;
		return cpu;
	}
	w->outcome = WP_OUT_FALLBACK;
	return t;
}

struct wakeplace_policy wp_policy_idlecore = {
	.name = "idlecore",
	.description = "idle cores first (idle-core mask), then idle CPUs; claim and verify",
	.select_cpu = idlecore_select,
	.needs_idle_state = true,
	.tunables = idlecore_tun,
	.nr_tunables = ARRAY_SIZE(idlecore_tun),
};
