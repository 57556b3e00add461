/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-LLC idle state: which CPUs, and so which whole cores, are idle.  A
 * hint kept cheap to read: one object per LLC, its mask on its own cache
 * lines, written only on real transitions.
 */
#ifndef WP_IDLE_H
#define WP_IDLE_H

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/rcupdate.h>
#include "wakeplace.h"
#include "sched.h"
#include "stats.h"

/**
 * struct wp_llc - idle state of one LLC.
 * @idle: CPUs of the LLC running their idle task (own cache line).
 * @span: the CPUs of the LLC when the state was built (read-only).
 * @claimed: jiffies of each CPU's last claim, indexed by CPU (shared by
 *	all LLCs of a state, own cache line(s)): the cpu_idle probe does not
 *	re-mark a CPU claimed less than WP_CLAIM_HOLD ago (its wakee is on
 *	its way).
 * @id: the LLC domain's first CPU when the state was built (wp_llc_key()).
 * @weight: CPUs in @span.
 */
struct wp_llc {
	unsigned long *idle;
	unsigned long *span;
	unsigned long *claimed;
	int id;
	int weight;
};

/**
 * struct wp_idle_state - the idle state of all LLCs, replaced as a whole.
 * @rcu: for freeing after readers are done.
 * @claimed: the claim stamps the LLCs' @claimed point to.
 * @nr_llc: number of LLCs.
 * @llc_of: index into @llc of each CPU (-1: offline when built).
 * @llc: the LLCs.
 */
struct wp_idle_state {
	struct rcu_head rcu;
	unsigned long *claimed;
	int nr_llc;
	int *llc_of;
	struct wp_llc llc[];
};

extern struct wp_idle_state __rcu *wp_idle_st;

int wp_idle_get(void);
void wp_idle_put(void);
void wp_idle_flush(void);
void wp_idle_request_rebuild(void);
u64 wp_idle_build_us(void);

/**
 * wp_llc_of() - the idle state of @cpu's LLC, if it is current.
 * @cpu: a CPU.
 *
 * The state is current for @cpu when the kernel's LLC of @cpu now spans
 * exactly the CPUs the state's LLC was built with: every CPU its masks can
 * hand out is then in @cpu's LLC.  The LLC's id and size alone do not
 * tell: cpusets can swap CPUs between LLC domains and keep both.
 *
 * Return: the LLC's state, or NULL while the state is missing (not built
 * yet since its first user: counted unbuilt) or stale (the kernel's LLC of
 * @cpu changed since it was built: hotplug, cpusets; a rebuild has then
 * been requested); the caller hands back.
 */
static __always_inline struct wp_llc *wp_llc_of(int cpu)
{
	struct wp_idle_state *st = rcu_dereference_sched(wp_idle_st);
	struct sched_domain *sd;
	struct wp_llc *llc;
	int i;

	if (unlikely(!st)) {
		wp_count(WP_C_UNBUILT);
		return NULL;
	}
	i = st->llc_of[cpu];
	if (unlikely(i < 0)) {
		if (!cpu_online(cpu))
			return NULL;	/* offline: in no LLC, not stale */
		goto stale;
	}
	llc = &st->llc[i];
	if (unlikely(llc->weight != wp_sd_llc_size(cpu)))
		goto stale;
	sd = wp_sd_llc(cpu);
	if (!sd) {
		/* No LLC domain: the CPU alone. */
		if (unlikely(llc->id != cpu))
			goto stale;
	} else if (unlikely(!cpumask_equal(sched_domain_span(sd),
					   to_cpumask(llc->span)))) {
		goto stale;
	}
	return llc;
stale:
	wp_idle_request_rebuild();
	return NULL;
}

bool wp_mask_try(struct wp_wakeup *w, struct wp_llc *llc, int cpu);
int wp_mask_pick(struct wp_wakeup *w, struct wp_llc *llc, bool core,
		 int from, int tries);
int wp_mask_search(struct wp_wakeup *w, struct wp_llc *llc, bool core,
		   int tries);
int wp_mask_sibling(struct wp_wakeup *w, struct wp_llc *llc, int cpu);
/**
 * struct wp_spread_hits - a policy's counts of wp_mask_fallback(), per CPU.
 * @inbound: fallbacks whose target already had a wakee on its way.
 * @spread: of those, the ones sent to another CPU of the LLC instead.
 */
struct wp_spread_hits {
	u64 inbound;
	u64 spread;
};

int wp_mask_fallback(struct wp_wakeup *w, struct wp_llc *llc, int spread,
		     struct wp_spread_hits __percpu *hits);
ssize_t wp_spread_show(struct wp_spread_hits __percpu *hits, char *buf);
int wp_core_then_cpu(struct wp_wakeup *w, struct wp_llc *llc, int tries,
		     int spread, struct wp_spread_hits __percpu *hits);
struct cpumask *wp_scratch_mask(void);
#ifdef WAKEPLACE_TEST
ssize_t wp_idle_mask_show(char *buf);
#endif

#endif /* WP_IDLE_H */
