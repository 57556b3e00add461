// SPDX-License-Identifier: GPL-2.0
/*
 * idlemask: target, prev, then the per-LLC idle mask searched from target,
 * wrapping; the CPU is claimed atomically and re-checked.  The idle mask
 * lives on its own cache line, so a pick reads about one remote runqueue
 * (the one it re-checks) whatever the size of the LLC.  A wakeup that
 * finds nothing idle goes to the target; with the tunable spread, when
 * another wakee is already on its way there, to a CPU of the LLC with none
 * on its way, so that the wakees of a burst do not queue behind each
 * other (off by default: they queue behind other tasks instead, and
 * waited longer in docs/perf.md's runs).
 */
#include "../fair.h"
#include "../idle.h"
#include "../stats.h"

static struct wp_tunable idlemask_tun[] = {
	WP_TUNABLE("max_tries", 1, 64, 4),
	WP_TUNABLE("spread", 0, 64, 0),
};
static DEFINE_PER_CPU(struct wp_spread_hits, idlemask_hits);

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
	return wp_mask_fallback(w, llc, READ_ONCE(idlemask_tun[1].val),
				&idlemask_hits);
}

/* policies/idlemask/counters: the fallbacks' inbound and spread. */
static ssize_t idlemask_counters(char *buf)
{
	return wp_spread_show(&idlemask_hits, buf);
}

/*
 * For the docs (scripts/gen-docs):
 * search: target, prev, then the first idle CPU of a per-LLC idle mask
 *	from target; claim and re-check; nothing idle: the target, or with
 *	`spread` a CPU of the LLC with no wakee on its way
 * idea: Aubrey Li's idle cpumask, sched_ext's claim
 * tunable max_tries: idle-mask candidates claimed and re-checked at most
 * tunable spread: when nothing is idle and the target already has a wakee
 *	on its way, CPUs of the LLC examined (after prev and the waker's CPU;
 *	CPUs the wakee may not use are not counted) for one with none on its
 *	way and at most one task; 0: the target (the kernel's fallback)
 */
struct wakeplace_policy wp_policy_idlemask = {
	.name = "idlemask",
	.description = "per-LLC idle mask: target, prev, first idle CPU from target; claim and verify",
	.select_cpu = idlemask_select,
	.needs_idle_state = true,
	.tunables = idlemask_tun,
	.nr_tunables = ARRAY_SIZE(idlemask_tun),
	.counters_show = idlemask_counters,
};
