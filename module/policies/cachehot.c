// SPDX-License-Identifier: GPL-2.0
/*
 * cachehot: the SIS_CACHE idea.  When a task sleeps after running less
 * than short_us, its CPU is kept for it for hot_us: its own wakeup goes
 * back there if the CPU is idle, and other wakees' searches pass over it
 * while the reservation lasts.
 */
#include <linux/sched/clock.h>
#include "../fair.h"
#include "../stint.h"

enum { HOT_US, SHORT_US };

static struct wp_tunable cachehot_tun[] = {
	[HOT_US] = WP_TUNABLE("hot_us", 1, 1000000, 2000),
	[SHORT_US] = WP_TUNABLE("short_us", 1, 1000000, 500),
};

/*
 * A short sleeper's reservation of its CPU, per CPU.  Wakers on other
 * CPUs read it, so it has a cache line of its own, apart from the stint
 * that its CPU writes on every switch, and it is written only when it
 * changes (a reservation made or used up).  Task pointers are compared,
 * never dereferenced.
 */
struct cachehot_reserve {
	struct task_struct *owner;
	u64 until;
} ____cacheline_aligned;
static DEFINE_PER_CPU_SHARED_ALIGNED(struct cachehot_reserve, cachehot_res);
static DEFINE_PER_CPU(struct wp_stint, cachehot_stint);

/* The knobs in ns, read on every switch: published when set. */
static u64 cachehot_hot_ns __read_mostly;
static u64 cachehot_short_ns __read_mostly;

static void cachehot_publish(void)
{
	WRITE_ONCE(cachehot_short_ns,
		   (u64)READ_ONCE(cachehot_tun[SHORT_US].val) * NSEC_PER_USEC);
	WRITE_ONCE(cachehot_hot_ns,
		   (u64)READ_ONCE(cachehot_tun[HOT_US].val) * NSEC_PER_USEC);
}

/*
 * No context_switch call can run here (the policy is in no slot): start
 * from no stint and no reservation rather than from a past use's.
 */
static int cachehot_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		*per_cpu_ptr(&cachehot_stint, cpu) = (struct wp_stint){};
		*per_cpu_ptr(&cachehot_res, cpu) = (struct cachehot_reserve){};
	}
	cachehot_publish();
	return 0;
}

/* A CFS task going to sleep after a short run: keep its CPU warm. */
static notrace void cachehot_switch(bool preempt, struct task_struct *prev,
				    struct task_struct *next,
				    unsigned int prev_state)
{
	struct cachehot_reserve *r = this_cpu_ptr(&cachehot_res);
	struct wp_stint *st = this_cpu_ptr(&cachehot_stint);
	bool runnable = wp_stint_runnable(preempt, prev_state);
	u64 now = local_clock();

	if (!is_idle_task(prev) && !runnable &&
	    now - st->in_ts < READ_ONCE(cachehot_short_ns)) {
		if (READ_ONCE(r->owner) != prev)
			WRITE_ONCE(r->owner, prev);
		WRITE_ONCE(r->until, now + READ_ONCE(cachehot_hot_ns));
	}
	if (next == READ_ONCE(r->owner))
		WRITE_ONCE(r->owner, NULL);
	wp_stint_switch(st, runnable, prev, next, now);
}

/* Is @cpu kept for a task other than @p right now? */
static __always_inline bool cachehot_reserved_for_other(int cpu,
							struct task_struct *p,
							u64 now)
{
	struct cachehot_reserve *r = per_cpu_ptr(&cachehot_res, cpu);
	struct task_struct *o = READ_ONCE(r->owner);

	return o && o != p && time_before64(now, READ_ONCE(r->until));
}

/* Is @cpu kept for @p right now? */
static __always_inline bool cachehot_reserved_for(int cpu,
						  struct task_struct *p, u64 now)
{
	struct cachehot_reserve *r = per_cpu_ptr(&cachehot_res, cpu);

	return READ_ONCE(r->owner) == p &&
	       time_before64(now, READ_ONCE(r->until));
}

static notrace bool cachehot_usable(struct wp_wakeup *w, int cpu, u64 now)
{
	return !cachehot_reserved_for_other(cpu, w->p, now) &&
	       wp_idle_or_sched_idle(w, cpu);
}

static notrace int cachehot_select(struct wp_wakeup *w)
{
	struct cpumask *cpus = wp_scratch_mask();
	int t = w->target, prev = w->prev, cpu, nr;
	struct sched_domain *sd;
	u64 now = local_clock();

	/* Its own warm CPU first. */
	if (wp_cpus_share_cache(prev, t) &&
	    cachehot_reserved_for(prev, w->p, now) &&
	    wp_idle_or_sched_idle(w, prev)) {
		w->outcome = WP_OUT_PREV;
		return prev;
	}
	if (cachehot_usable(w, t, now)) {
		w->outcome = WP_OUT_TARGET;
		return t;
	}
	if (prev != t && wp_cpus_share_cache(prev, t) &&
	    cachehot_usable(w, prev, now)) {
		w->outcome = WP_OUT_PREV;
		return prev;
	}
	sd = wp_sd_llc(t);
	nr = wp_sis_util_depth(t);
	if (sd && nr > 1) {
		cpumask_and(cpus, sched_domain_span(sd), w->p->cpus_ptr);
		for_each_cpu_wrap(cpu, cpus, t + 1) {
			if (--nr <= 0)
				break;
			w->scanned++;
			if (cachehot_usable(w, cpu, now)) {
				w->outcome = WP_OUT_SCAN;
				return cpu;
			}
		}
	}
	return wp_sis_none(w, -1);
}

/*
 * For the docs (scripts/gen-docs):
 * search: a short sleeper's CPU is reserved for it for `hot_us`
 * idea: SIS_CACHE (Chen Yu)
 * tunable hot_us: how long a short sleeper's CPU stays reserved, in
 *	microseconds
 * tunable short_us: a task that ran less than this before it slept gets
 *	its CPU reserved, in microseconds
 */
struct wakeplace_policy wp_policy_cachehot = {
	.name = "cachehot",
	.description = "keep a short sleeper's CPU reserved for hot_us (SIS_CACHE)",
	.select_cpu = cachehot_select,
	.init = cachehot_init,
	.tunables_changed = cachehot_publish,
	.context_switch = cachehot_switch,
	.tunables = cachehot_tun,
	.nr_tunables = ARRAY_SIZE(cachehot_tun),
};
