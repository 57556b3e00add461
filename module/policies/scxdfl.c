// SPDX-License-Identifier: GPL-2.0
/*
 * scxdfl: the order of sched_ext's built-in idle-CPU selection, on the
 * per-LLC idle masks (no sched_ext needed).  A sync wakeup (the waker is
 * about to sleep) first takes an idle prev that shares the waker's cache,
 * then the waker's CPU if nothing else is queued there.  Otherwise: a
 * whole idle SMT core (prev's own first), prev, an idle SMT sibling of
 * prev, then any idle CPU.  sched_ext goes on to prev's node and then
 * anywhere; like the other policies, this one stays in the target's LLC
 * (the idle state it reads, and the domain wake_affine chose).
 *
 * Unlike idlecore it does not try the target first: wake_affine's choice
 * only says which LLC to search and, through a sync wakeup, whether the
 * waker's CPU may be taken.  Every CPU but the waker's is claimed from the
 * mask with an atomic test-and-clear (or a core with wp_core_claim()) and
 * re-checked, as idlemask does.
 */
#include "../fair.h"
#include "../idle.h"
#include "../stats.h"

static struct wp_tunable scxdfl_tun[] = {
	WP_TUNABLE("max_tries", 1, 64, 4),
};

/*
 * A sync waker's CPU, for its wakee: allowed, active, in the target's LLC,
 * and running nothing but the waker, so the wakee runs as soon as the
 * waker sleeps.  Delayed-dequeue tasks (6.12) are not queued work.
 */
static notrace bool scxdfl_waker_cpu(struct wp_wakeup *w)
{
	int this = w->this_cpu;

	return cpumask_test_cpu(this, w->p->cpus_ptr) && cpu_active(this) &&
	       wp_cpus_share_cache(this, w->target) &&
	       wp_rq_nr_not_delayed(wp_rq(this)) <= 1;
}

static notrace int scxdfl_select(struct wp_wakeup *w)
{
	int tries = READ_ONCE(scxdfl_tun[0].val), prev = w->prev, from, cpu;
	struct wp_llc *llc = wp_llc_of(w->target);
	bool prev_in, smt = sched_smt_active();

	if (!llc) {
		wp_count(WP_C_STALE);
		return WP_HANDBACK;
	}
	prev_in = wp_cpus_share_cache(prev, w->target);
	/* Searches start at prev, as sched_ext's do, when it is ours. */
	from = prev_in ? prev : w->target;

	if (w->sync) {
		if (prev_in && wp_cpus_share_cache(prev, w->this_cpu) &&
		    wp_mask_try(w, llc, prev)) {
			w->outcome = WP_OUT_PREV;
			return prev;
		}
		if (scxdfl_waker_cpu(w)) {
			w->outcome = WP_OUT_LOCAL;
			return w->this_cpu;
		}
	}
	/* A whole idle core; the walk from prev meets prev's core first. */
	if (smt) {
		cpu = wp_mask_pick(w, llc, true, from, tries);
		if (cpu >= 0) {
			w->outcome = cpu == prev ? WP_OUT_PREV : WP_OUT_MASK;
			return cpu;
		}
	}
	if (prev_in) {
		if (wp_mask_try(w, llc, prev)) {
			w->outcome = WP_OUT_PREV;
			return prev;
		}
		cpu = smt ? wp_mask_sibling(w, llc, prev) : -1;
		if (cpu >= 0) {
			w->outcome = WP_OUT_MASK;
			return cpu;
		}
	}
	cpu = wp_mask_pick(w, llc, false, from, tries);
	if (cpu >= 0) {
		w->outcome = WP_OUT_MASK;
		return cpu;
	}
	return wp_sis_none(w, -1);
}

/*
 * For the docs (scripts/gen-docs):
 * search: sched_ext's default order on the idle masks: a sync wakeup
 *	takes an idle cache-affine prev, then the waker's CPU if nothing else
 *	is queued there (outcome `local`); else a whole idle SMT core (prev's
 *	first), prev, prev's idle SMT sibling, any idle CPU of target's LLC
 * idea: sched_ext (scx_select_cpu_dfl)
 * tunable max_tries: candidates claimed and re-checked at most, in the
 *	idle-core and in the idle-CPU walks
 */
struct wakeplace_policy wp_policy_scxdfl = {
	.name = "scxdfl",
	.description = "sched_ext's default order: sync wakeups to prev or the waker's CPU; idle core, prev, prev's sibling, idle CPU",
	.select_cpu = scxdfl_select,
	.needs_idle_state = true,
	.tunables = scxdfl_tun,
	.nr_tunables = ARRAY_SIZE(scxdfl_tun),
};
