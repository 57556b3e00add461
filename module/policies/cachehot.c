// SPDX-License-Identifier: GPL-2.0
/*
 * cachehot: the SIS_CACHE idea.  When a task sleeps after running less
 * than short_us, its CPU is kept for it for hot_us: its own wakeup goes
 * back there if the CPU is idle, and other wakees' searches pass over it
 * while the reservation lasts.
 */
#include <linux/sched/clock.h>
#include "../fair.h"
#include "../idle.h"

enum { HOT_US, SHORT_US };

static struct wp_tunable cachehot_tun[] = {
	[HOT_US] = WP_TUNABLE("hot_us", 1, 1000000, 2000),
	[SHORT_US] = WP_TUNABLE("short_us", 1, 1000000, 500),
};

/*
 * The sched_switch probe keeps the reservations; it reads the knobs on
 * every switch, so they are published when set, never from a pick.
 */
static void cachehot_publish(void)
{
	wp_idle_set_reserve(READ_ONCE(cachehot_tun[HOT_US].val),
			    READ_ONCE(cachehot_tun[SHORT_US].val));
}

/* The idle state is already running (needs_idle_state). */
static int cachehot_init(void)
{
	cachehot_publish();
	return 0;
}

static void cachehot_exit(void)
{
	wp_idle_set_reserve(0, 0);
}

static notrace bool cachehot_usable(struct wp_wakeup *w, int cpu, u64 now)
{
	return !wp_idle_reserved_for_other(cpu, w->p, now) &&
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
	    wp_idle_reserved_for(prev, w->p, now) &&
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
	.exit = cachehot_exit,
	.tunables_changed = cachehot_publish,
	.needs_idle_state = true,
	.tunables = cachehot_tun,
	.nr_tunables = ARRAY_SIZE(cachehot_tun),
};
