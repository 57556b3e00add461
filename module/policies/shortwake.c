// SPDX-License-Identifier: GPL-2.0
/*
 * shortwake: the SIS_SHORT idea.  When the LLC has no idle core, a wakee
 * that runs only briefly, woken by a waker that has run only briefly and is
 * alone on its CPU, is woken on the waker's CPU: searching and migrating
 * costs more than the wakee's short run, and the pair stays cache-hot.
 * Otherwise idlecore's search: an idle core, then an idle CPU.
 *
 * "Briefly" is one stint on a CPU.  The wakee's last run before it slept
 * is the scheduler's own accounting (sum_exec_runtime since it was last
 * picked, brought up to date when it slept).  The waker's run so far comes
 * from this policy's own per-CPU stint, kept at every context switch,
 * since its sum_exec_runtime is only updated at ticks.  Upstream kept an average; a module cannot add
 * one to the task, and one stint is a fair proxy for tasks that wake each
 * other in a tight loop.
 */
#include <linux/sched/clock.h>
#include "../fair.h"
#include "../idle.h"
#include "../stats.h"
#include "../stint.h"

enum { SHORT_US, MAX_TRIES };

static struct wp_tunable shortwake_tun[] = {
	/* The kernel's min_granularity / 8 at 8 CPUs and more. */
	[SHORT_US] = WP_TUNABLE("short_us", 1, 1000000, 375),
	[MAX_TRIES] = WP_TUNABLE("max_tries", 1, 64, 4),
};

static DEFINE_PER_CPU(struct wp_stint, shortwake_stint);

/*
 * No context_switch call can run here (the policy is in no slot): a past
 * use's stints would be stale, so every CPU starts with none (long).
 */
static int shortwake_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		*per_cpu_ptr(&shortwake_stint, cpu) = (struct wp_stint){};
	return 0;
}

static notrace void shortwake_switch(bool preempt, struct task_struct *prev,
				     struct task_struct *next,
				     unsigned int prev_state)
{
	wp_stint_switch(this_cpu_ptr(&shortwake_stint),
			wp_stint_runnable(preempt, prev_state), prev, next,
			local_clock());
}

/*
 * How long current's stint on this CPU has lasted: from its switch-in, or
 * from the one before a preemption it came back from (large before this
 * CPU's first switch).  The scheduler's sum_exec_runtime of current reads
 * about 0 for a task that has not yet seen a tick or an enqueue.
 */
static __always_inline u64 shortwake_ran_for(void)
{
	return local_clock() - this_cpu_ptr(&shortwake_stint)->in_ts;
}

/* The sleeping wakee's last stint. */
static __always_inline u64 wp_last_stint(const struct task_struct *t)
{
	return READ_ONCE(t->se.sum_exec_runtime) -
	       READ_ONCE(t->se.prev_sum_exec_runtime);
}

/*
 * Wake on this CPU?  Only a CFS waker in task context has a stint, and
 * only where the kernel would consider the waker's CPU (wake_wide did not
 * object).
 */
static notrace bool shortwake_local(struct wp_wakeup *w)
{
	u64 lim = (u64)READ_ONCE(shortwake_tun[SHORT_US].val) * NSEC_PER_USEC;
	int this = w->this_cpu;

	if (!w->affine || !in_task() || is_idle_task(current) ||
	    (current->policy != SCHED_NORMAL && current->policy != SCHED_BATCH))
		return false;
	if (shortwake_ran_for() >= lim || wp_last_stint(w->p) >= lim)
		return false;
	/* Alone: the wakee only waits for the waker to sleep. */
	if (wp_rq_nr_not_delayed(wp_rq(this)) > 1)
		return false;
	return cpumask_test_cpu(this, w->p->cpus_ptr) && cpu_active(this) &&
	       wp_cpus_share_cache(this, w->target);
}

static notrace int shortwake_select(struct wp_wakeup *w)
{
	int tries = READ_ONCE(shortwake_tun[MAX_TRIES].val), cpu;
	struct wp_llc *llc = wp_llc_of(w->target);
	bool smt = sched_smt_active();

	if (!llc) {
		wp_count(WP_C_STALE);
		return WP_HANDBACK;
	}
	/* Without SMT every idle CPU is an idle core: one walk, before local. */
	cpu = wp_mask_search(w, llc, smt, tries);
	if (cpu >= 0)
		return cpu;
	if (shortwake_local(w)) {
		w->outcome = WP_OUT_LOCAL;
		return w->this_cpu;
	}
	if (smt) {
		cpu = wp_mask_search(w, llc, false, tries);
		if (cpu >= 0)
			return cpu;
	}
	return wp_sis_none(w, -1);
}

/*
 * For the docs (scripts/gen-docs):
 * search: an idle core (as `idlecore`); if none, a wakee whose last run
 *	and a waker whose current run are both under `short_us`, the waker
 *	alone on its CPU, wakes on the waker's CPU (outcome `local`); else
 *	any idle CPU
 * idea: SIS_SHORT (Chen Yu)
 * tunable short_us: a wakee whose last run and a waker whose current run
 *	are shorter than this are short, in microseconds
 * tunable max_tries: as idlecore's, for the idle-core and the idle-CPU
 *	searches
 */
struct wakeplace_policy wp_policy_shortwake = {
	.name = "shortwake",
	.description = "no idle core: a short wakee of a short waker wakes on the waker's CPU; else idlecore",
	.select_cpu = shortwake_select,
	.init = shortwake_init,
	.context_switch = shortwake_switch,
	.needs_idle_state = true,
	.tunables = shortwake_tun,
	.nr_tunables = ARRAY_SIZE(shortwake_tun),
};
