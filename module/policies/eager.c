// SPDX-License-Identifier: GPL-2.0
/*
 * eager: a hierarchical selector on the per-LLC idle words with eager
 * commit.  Levels, nearest cache first: prev, target, the idle SMT
 * siblings of prev's and target's cores (the core the wakee recently ran
 * on), the target's L2 cluster where the topology has one, then the rest
 * of the LLC.  Each level is a few word operations on the idle mask (its
 * 64-bit words ANDed with the task's allowed CPUs and the level's CPUs,
 * lowest bit first), not a walk over runqueues.  The chosen CPU's bit is
 * cleared by the claim itself (test-and-clear): a burst of wakeups never
 * hands one CPU out twice, and a bit found stale on re-check stays cleared
 * until the CPU really idles again.
 *
 * idlecore looks for a whole idle core before any idle CPU; eager never
 * asks for a whole core: it goes outward from prev, trading an SMT sibling
 * of a busy CPU for a nearer cache.  Its per-level hits are in
 * policies/eager/counters.
 */
#include <linux/sysfs.h>
#include "../compat.h"
#include "../fair.h"
#include "../idle.h"
#include "../stats.h"

/* The levels, in search order, then a pick that found nothing idle. */
enum {
	EAGER_PREV, EAGER_TARGET, EAGER_CORE, EAGER_CLUSTER, EAGER_LLC,
	EAGER_NONE, EAGER_NR
};

static const char * const eager_level[EAGER_NR] = {
	[EAGER_PREV]	= "prev",
	[EAGER_TARGET]	= "target",
	[EAGER_CORE]	= "core",
	[EAGER_CLUSTER]	= "cluster",
	[EAGER_LLC]	= "llc",
	[EAGER_NONE]	= "none",
};

struct eager_hits {
	u64 n[EAGER_NR];
};
static DEFINE_PER_CPU(struct eager_hits, eager_hits);

static struct wp_tunable eager_tun[] = {
	WP_TUNABLE("max_tries", 1, 64, 4),
};

/* A level's hit, counted for real picks only: a shadow changes nothing. */
static __always_inline int eager_hit(struct wp_wakeup *w, int lvl, int cpu)
{
	if (!w->shadow)
		this_cpu_inc(eager_hits.n[lvl]);
	return cpu;
}

/*
 * Claim the lowest CPU of @cand, bits of word @k of the idle mask already
 * ANDed with the level's and the task's CPUs; at most *@tries claims.
 */
static notrace int eager_word(struct wp_wakeup *w, struct wp_llc *llc,
			      unsigned int k, unsigned long cand, int *tries)
{
	while (cand && *tries > 0) {
		int cpu = k * BITS_PER_LONG + __ffs(cand);

		cand &= cand - 1;
		(*tries)--;
		w->scanned++;
		if (wp_mask_try(w, llc, cpu))
			return cpu;
	}
	return -1;
}

/*
 * The idle CPUs of word @k allowed to the task, restricted to @span (NULL:
 * the whole LLC, which the mask holds only CPUs of).
 */
static __always_inline unsigned long eager_cand(struct wp_wakeup *w,
						struct wp_llc *llc,
						unsigned int k,
						const struct cpumask *span)
{
	unsigned long c = READ_ONCE(llc->idle[k]) &
			  cpumask_bits(w->p->cpus_ptr)[k];

	return span ? c & cpumask_bits(span)[k] : c;
}

/* One level over the words of the mask, from @cpu's word, wrapping. */
static notrace int eager_level_pick(struct wp_wakeup *w, struct wp_llc *llc,
				    const struct cpumask *span, int cpu,
				    int *tries)
{
	unsigned int nw = BITS_TO_LONGS(nr_cpu_ids), k0 = BIT_WORD(cpu), i;

	for (i = 0; i < nw && *tries > 0; i++) {
		unsigned int k = (k0 + i) % nw;
		int got = eager_word(w, llc, k, eager_cand(w, llc, k, span),
				     tries);

		if (got >= 0)
			return got;
	}
	return -1;
}

/*
 * The L2 cluster of @cpu: the span of its cluster domain below the LLC,
 * or NULL where there is none (6.1 has no cluster flag; domains that span
 * the same CPUs as their parent are removed, so a cluster found here is
 * smaller than the LLC).
 */
static notrace const struct cpumask *eager_cluster(int cpu)
{
	struct sched_domain *sd;

	if (!WP_SD_CLUSTER)
		return NULL;
	for (sd = wp_rq_sd(cpu); sd && (sd->flags & WP_SD_SHARE_LLC);
	     sd = rcu_dereference_sched(sd->parent))
		if (sd->flags & WP_SD_CLUSTER)
			return sched_domain_span(sd);
	return NULL;
}

static notrace int eager_select(struct wp_wakeup *w)
{
	int tries = READ_ONCE(eager_tun[0].val), t = w->target, cpu;
	struct wp_llc *llc = wp_llc_of(t);
	const struct cpumask *cl;
	bool prev_in;

	if (!llc) {
		wp_count(WP_C_STALE);
		return WP_HANDBACK;
	}
	prev_in = wp_cpus_share_cache(w->prev, t);
	if (prev_in && wp_mask_try(w, llc, w->prev)) {
		w->outcome = WP_OUT_PREV;
		return eager_hit(w, EAGER_PREV, w->prev);
	}
	if (t != w->prev && wp_mask_try(w, llc, t)) {
		w->outcome = WP_OUT_TARGET;
		return eager_hit(w, EAGER_TARGET, t);
	}
	w->outcome = WP_OUT_MASK;
	if (sched_smt_active()) {
		cpu = prev_in ? wp_mask_sibling(w, llc, w->prev) : -1;
		if (cpu < 0 && t != w->prev)
			cpu = wp_mask_sibling(w, llc, t);
		if (cpu >= 0)
			return eager_hit(w, EAGER_CORE, cpu);
	}
	cl = eager_cluster(t);
	if (cl) {
		cpu = eager_level_pick(w, llc, cl, t, &tries);
		if (cpu >= 0)
			return eager_hit(w, EAGER_CLUSTER, cpu);
	}
	cpu = eager_level_pick(w, llc, NULL, t, &tries);
	if (cpu >= 0)
		return eager_hit(w, EAGER_LLC, cpu);
	return eager_hit(w, EAGER_NONE, wp_sis_none(w, -1));
}

/* policies/eager/counters: "level hits" per line, since load. */
static ssize_t eager_counters(char *buf)
{
	u64 sum[EAGER_NR] = {};
	int cpu, i, len = 0;

	for_each_possible_cpu(cpu)
		for (i = 0; i < EAGER_NR; i++)
			sum[i] += READ_ONCE(per_cpu_ptr(&eager_hits, cpu)->n[i]);
	for (i = 0; i < EAGER_NR; i++)
		len += sysfs_emit_at(buf, len, "%s %llu\n", eager_level[i],
				     (unsigned long long)sum[i]);
	return len;
}

/*
 * For the docs (scripts/gen-docs):
 * search: prev, target, their cores' idle SMT siblings, target's L2
 *	cluster, the LLC: each level a few word operations on the idle mask,
 *	the pick's bit cleared as it is claimed (hits per level in
 *	`policies/eager/counters`)
 * idea: the hierarchical O(1) "POC selector" with eager commit
 * tunable max_tries: candidates claimed and re-checked at most, in the
 *	cluster and LLC levels together
 */
struct wakeplace_policy wp_policy_eager = {
	.name = "eager",
	.description = "prev, target, core, cluster, LLC on the idle words; the pick's bit cleared at once",
	.select_cpu = eager_select,
	.counters_show = eager_counters,
	.needs_idle_state = true,
	.tunables = eager_tun,
	.nr_tunables = ARRAY_SIZE(eager_tun),
};
