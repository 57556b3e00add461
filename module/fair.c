// SPDX-License-Identifier: GPL-2.0
/*
 * The wakeup path of CFS, written again from its description for Debian's
 * 6.1 and 6.12: record_wakee, wake_wide, wake_affine (idle and weight), and
 * the idle-sibling search (select_idle_sibling and its helpers).  Policies
 * share the skeleton (wp_place) and vary the idle-sibling search.
 *
 * Deliberate differences from the kernel, all documented in README.md:
 *  - Asymmetric CPU capacity (and so energy-aware placement) and wakeup
 *    balancing (SD_BALANCE_WAKE on a domain) are handed back to the kernel.
 *  - task_h_load() reads cfs_rq->h_load without refreshing it.
 *  - Core scheduling cookies are not checked (sched_cpu_cookie_match).
 *  - Scheduler features are assumed at their defaults (SIS_UTIL, WA_IDLE,
 *    WA_WEIGHT, WA_BIAS on; SIS_PROP off).
 *  - The 6.12 cluster-first scan uses the topology's cluster masks.
 */
#include <linux/cpumask.h>
#include <linux/hardirq.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include "fair.h"

static DEFINE_PER_CPU(cpumask_var_t, wp_scratch);
static bool wp_have_clusters __read_mostly;

struct cpumask *wp_scratch_mask(void)
{
	return this_cpu_read(wp_scratch);
}

int wp_fair_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		if (!zalloc_cpumask_var_node(per_cpu_ptr(&wp_scratch, cpu),
					     GFP_KERNEL, cpu_to_node(cpu))) {
			wp_fair_exit();
			return -ENOMEM;
		}
	}
	/* Clusters below the LLC (6.12 scans them first): share id != LLC id. */
	if (wp_lay.pcpu_sd_share_id) {
		for_each_online_cpu(cpu) {
			if (*WP_PCPU(wp_lay.pcpu_sd_share_id, int, cpu) !=
			    wp_sd_llc_id(cpu))
				wp_have_clusters = true;
		}
	}
	return 0;
}

void wp_fair_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		free_cpumask_var(*per_cpu_ptr(&wp_scratch, cpu));
}

/*
 * record_wakee(): the waker's count of partner changes, halved every second.
 * Returns the waker's flips as they are after this wakeup; writes them only
 * for a real (not shadow) pick.
 */
static notrace unsigned int wp_record_wakee(struct wp_wakeup *w)
{
	struct task_struct *curr = current;
	unsigned int flips = READ_ONCE(curr->wakee_flips);
	unsigned long ts = READ_ONCE(curr->wakee_flip_decay_ts);
	bool decay = time_after(jiffies, ts + HZ);
	bool change = READ_ONCE(curr->last_wakee) != w->p;

	if (decay)
		flips >>= 1;
	if (change)
		flips++;
	if (!w->shadow) {
		if (decay)
			curr->wakee_flip_decay_ts = jiffies;
		if (change)
			curr->last_wakee = w->p;
		curr->wakee_flips = flips;
	}
	return flips;
}

/*
 * wake_wide(): spread when both partners switch partners often, one of them
 * llc_size times more than the other (an M:N relationship wider than the
 * LLC).
 */
static notrace bool wp_wake_wide(struct wp_wakeup *w, unsigned int master)
{
	unsigned int slave = READ_ONCE(w->p->wakee_flips);
	unsigned int factor = wp_sd_llc_size(w->this_cpu);

	if (master < slave)
		swap(master, slave);
	return !(slave < factor || master < slave * factor);
}

/* wake_affine_idle(): prefer whichever of this/prev is idle right now. */
static notrace int wp_wake_affine_idle(struct wp_wakeup *w)
{
	int this = w->this_cpu, prev = w->prev;

	if (wp_available_idle_cpu(this) && wp_cpus_share_cache(this, prev)) {
		wp_touch(w, prev);
		return wp_available_idle_cpu(prev) ? prev : this;
	}
	if (w->sync && wp_rq_nr_not_delayed(wp_rq(this)) == 1)
		return this;
	if (wp_idle(w, prev))
		return prev;
	return nr_cpumask_bits;
}

/*
 * wake_affine_weight(): compare the loads this CPU and prev would have with
 * the task, scaled by the other's capacity and, for prev, by half the
 * domain's imbalance margin.
 */
static notrace int wp_wake_affine_weight(struct wp_wakeup *w,
					 struct sched_domain *sd)
{
	int this = w->this_cpu, prev = w->prev;
	unsigned long task_load;
	s64 this_eff, prev_eff;

	this_eff = wp_cpu_load(this);
	if (w->sync) {
		unsigned long cur = wp_task_h_load(current);

		if (cur > this_eff)
			return this;
		this_eff -= cur;
	}
	task_load = wp_task_h_load(w->p);
	this_eff += task_load;
	this_eff *= 100;
	this_eff *= wp_capacity_of(prev);

	wp_touch(w, prev);
	prev_eff = wp_cpu_load(prev);
	prev_eff -= task_load;
	prev_eff *= 100 + (sd->imbalance_pct - 100) / 2;
	prev_eff *= wp_capacity_of(this);
	if (w->sync)
		prev_eff += 1;

	return this_eff < prev_eff ? this : nr_cpumask_bits;
}

static notrace int wp_wake_affine(struct wp_wakeup *w, struct sched_domain *sd)
{
	int t = wp_wake_affine_idle(w);

	if (t == nr_cpumask_bits)
		t = wp_wake_affine_weight(w, sd);
	return t == w->this_cpu ? t : w->prev;
}

/**
 * wp_place() - the wakeup skeleton shared by every policy.
 * @pol: the policy whose idle-sibling search completes the pick.
 * @w: the wakeup; @w->p, @w->prev, @w->wake_flags and @w->shadow are set.
 *
 * Does what select_task_rq_fair() does for a WF_TTWU wakeup up to the
 * idle-sibling search: record_wakee, the WF_CURRENT_CPU shortcut (6.12),
 * wake_wide, the walk up the domains to the affine one and wake_affine.
 * Cases it does not reimplement are handed back before any state changes.
 *
 * Return: a CPU, or %WP_HANDBACK.
 */
notrace int wp_place(struct wakeplace_policy *pol, struct wp_wakeup *w)
{
	struct task_struct *p = w->p;
	struct sched_domain *tmp, *affine = NULL;
	int this = smp_processor_id();
	bool want_affine;
	unsigned int flips;
	int cpu;

	w->this_cpu = this;
	w->sync = (w->wake_flags & WP_WF_SYNC) && !(current->flags & PF_EXITING);

	/* Energy-aware and asymmetric-capacity placement: the kernel's. */
	if (wp_asym_cpucapacity(this) || wp_asym_cpucapacity(w->prev))
		return WP_HANDBACK;
	/* Wakeup balancing (find_idlest_cpu) is rare and stays the kernel's. */
	for (tmp = wp_rq_sd(this); tmp; tmp = rcu_dereference_sched(tmp->parent))
		if (tmp->flags & SD_BALANCE_WAKE)
			return WP_HANDBACK;

	flips = wp_record_wakee(w);

	if ((w->wake_flags & WP_WF_CURRENT_CPU) &&
	    cpumask_test_cpu(this, p->cpus_ptr)) {
		w->outcome = WP_OUT_TARGET;
		return this;
	}

	want_affine = !wp_wake_wide(w, flips) &&
		      cpumask_test_cpu(this, p->cpus_ptr);
	w->affine = want_affine;
	w->target = w->prev;
	if (want_affine) {
		for (tmp = wp_rq_sd(this); tmp;
		     tmp = rcu_dereference_sched(tmp->parent)) {
			if ((tmp->flags & SD_WAKE_AFFINE) &&
			    cpumask_test_cpu(w->prev, sched_domain_span(tmp))) {
				affine = tmp;
				break;
			}
		}
		if (affine && this != w->prev)
			w->target = wp_wake_affine(w, affine);
	}
	cpu = pol->select_cpu(w);
	/*
	 * Like the kernel's search, a policy may name target or prev when
	 * they are no longer allowed or active; the kernel then falls back
	 * (select_fallback_rq).  Hand those back: record_wakee and
	 * recent_used_cpu, already updated, are idempotent when the kernel
	 * runs them again.
	 */
	if (cpu >= 0 && (!cpumask_test_cpu(cpu, p->cpus_ptr) ||
			 !cpu_active(cpu))) {
		w->outcome = WP_OUT_HANDBACK;
		return WP_HANDBACK;
	}
	return cpu;
}

/**
 * wp_sis_fast_checks() - the cheap first steps of select_idle_sibling().
 * @w: the wakeup.
 * @recent: out: the recently used CPU if it qualified but was held back for
 *	a cluster mismatch (6.12), else -1.
 *
 * Target idle, prev idle and cache-affine, per-CPU kthread stacking, and
 * the recently used CPU.  Updates p->recent_used_cpu (not for a shadow).
 *
 * Return: a CPU with @w->outcome set, or -1 to go on searching.
 */
notrace int wp_sis_fast_checks(struct wp_wakeup *w, int *recent)
{
	struct task_struct *p = w->p;
	int prev = w->prev, target = w->target, r;

	*recent = -1;
	if (wp_idle_or_sched_idle(w, target)) {
		w->outcome = WP_OUT_TARGET;
		return target;
	}
	if (prev != target && wp_cpus_share_cache(prev, target) &&
	    wp_idle_or_sched_idle(w, prev)) {
		w->outcome = WP_OUT_PREV;
		if (!WP_K612 || !wp_have_clusters ||
		    wp_cpus_share_resources(prev, target))
			return prev;
		*recent = prev;		/* 6.12: prev_aff, used after a scan */
	}
	if ((current->flags & PF_KTHREAD) && current->nr_cpus_allowed == 1 &&
	    in_task() && prev == w->this_cpu &&
	    wp_rq_nr_running(wp_rq(w->this_cpu)) <= 1) {
		w->outcome = WP_OUT_PREV;
		return prev;
	}

	r = READ_ONCE(p->recent_used_cpu);
	if (!w->shadow)
		p->recent_used_cpu = prev;
	if (r != prev && r != target && (unsigned int)r < nr_cpu_ids &&
	    wp_cpus_share_cache(r, target) && wp_idle_or_sched_idle(w, r) &&
	    cpumask_test_cpu(r, p->cpus_ptr)) {
		if (!WP_K612 || !wp_have_clusters ||
		    wp_cpus_share_resources(r, target)) {
			w->outcome = WP_OUT_RECENT;
			return r;
		}
		if (*recent < 0)
			*recent = r;
	}
	return -1;
}

/**
 * wp_sis_none() - the end of a search that found no idle CPU.
 * @w: the wakeup.
 * @held: a prev or recent CPU that wp_sis_fast_checks() held back (6.12
 *	clusters), or -1.
 *
 * Return: @held if any, else the target, with @w->outcome set.
 */
notrace int wp_sis_none(struct wp_wakeup *w, int held)
{
	if (held >= 0) {
		w->outcome = held == w->prev ? WP_OUT_PREV : WP_OUT_RECENT;
		return held;
	}
	w->outcome = WP_OUT_FALLBACK;
	return w->target;
}

/* select_idle_core(): is @core's whole SMT group idle?  Notes a spare CPU. */
static notrace int wp_select_idle_core(struct wp_wakeup *w, int core,
				       struct cpumask *cpus, int *idle_cpu)
{
	bool idle = true;
	int cpu;

	for_each_cpu(cpu, cpu_smt_mask(core)) {
		w->scanned++;
		wp_touch(w, cpu);
		if (!wp_available_idle_cpu(cpu)) {
			idle = false;
			if (*idle_cpu == -1) {
				if (wp_sched_idle_cpu(cpu) &&
				    cpumask_test_cpu(cpu, cpus)) {
					*idle_cpu = cpu;
					break;
				}
				continue;
			}
			break;
		}
		if (*idle_cpu == -1 && cpumask_test_cpu(cpu, cpus))
			*idle_cpu = cpu;
	}
	if (idle)
		return core;
	cpumask_andnot(cpus, cpus, cpu_smt_mask(core));
	return -1;
}

/**
 * wp_select_idle_smt() - select_idle_smt(): an idle SMT sibling of @cpu.
 * @w: the wakeup.
 * @sd: the LLC domain (siblings outside it, e.g. isolated, are skipped).
 * @cpu: whose siblings to try.
 *
 * Return: an idle sibling in p->cpus_ptr, or -1.
 */
notrace int wp_select_idle_smt(struct wp_wakeup *w, struct sched_domain *sd,
			       int cpu)
{
	int sib;

	for_each_cpu_and(sib, cpu_smt_mask(cpu), w->p->cpus_ptr) {
		if (sib == cpu ||
		    !cpumask_test_cpu(sib, sched_domain_span(sd)))
			continue;
		w->scanned++;
		if (wp_idle_or_sched_idle(w, sib))
			return sib;
	}
	return -1;
}

/**
 * wp_sis_util_depth() - SIS_UTIL's scan budget for @target's LLC.
 * @target: a CPU of the LLC.
 *
 * Return: nr_idle_scan + 1, as select_idle_cpu() counts it (1 means: the
 * LLC is overloaded, do not scan), or INT_MAX without shared LLC state.
 */
notrace int wp_sis_util_depth(int target)
{
	struct sched_domain_shared *sds = wp_sd_llc_shared(target);

	return sds ? READ_ONCE(sds->nr_idle_scan) + 1 : INT_MAX;
}

/* One step of the idle-CPU scan: a whole idle core, or any idle CPU. */
static notrace int wp_scan_one(struct wp_wakeup *w, int cpu,
			       struct cpumask *cpus, bool has_idle_core,
			       int *idle_cpu, int *nr, bool *stop)
{
	if (has_idle_core)
		return wp_select_idle_core(w, cpu, cpus, idle_cpu);
	if (--(*nr) <= 0) {
		*stop = true;
		return -1;
	}
	w->scanned++;
	if (wp_idle_or_sched_idle(w, cpu)) {
		*idle_cpu = cpu;
		*stop = true;
		return cpu;
	}
	return -1;
}

/**
 * wp_select_idle_cpu() - select_idle_cpu(): scan the LLC from @target + 1.
 * @w: the wakeup.
 * @sd: the LLC domain of @target.
 * @has_idle_core: look for a whole idle core first (and clear the hint
 *	if none is found, not for a shadow).
 * @target: where the scan starts (wrapping).
 * @nr: scan budget as the kernel counts it (INT_MAX: unbounded).
 *
 * Return: an idle CPU in p->cpus_ptr, or -1.
 */
notrace int wp_select_idle_cpu(struct wp_wakeup *w, struct sched_domain *sd,
			       bool has_idle_core, int target, int nr)
{
	struct cpumask *cpus = wp_scratch_mask();
	int cpu, i, idle_cpu = -1;
	bool stop = false;

	cpumask_and(cpus, sched_domain_span(sd), w->p->cpus_ptr);

	if (WP_K612 && wp_have_clusters) {
		const struct cpumask *cl = topology_cluster_cpumask(target);

		for_each_cpu_wrap(cpu, cl, target + 1) {
			if (!cpumask_test_cpu(cpu, cpus))
				continue;
			i = wp_scan_one(w, cpu, cpus, has_idle_core, &idle_cpu,
					&nr, &stop);
			if (has_idle_core && i >= 0)
				return i;
			if (stop)
				return idle_cpu;
		}
		cpumask_andnot(cpus, cpus, cl);
	}

	for_each_cpu_wrap(cpu, cpus, target + 1) {
		i = wp_scan_one(w, cpu, cpus, has_idle_core, &idle_cpu, &nr,
				&stop);
		if (has_idle_core && i >= 0)
			return i;
		if (stop)
			break;
	}
	if (has_idle_core && !w->shadow) {
		struct sched_domain_shared *sds = wp_sd_llc_shared(target);

		if (sds)
			WRITE_ONCE(sds->has_idle_cores, 0);
	}
	return idle_cpu;
}

/**
 * wp_sis_kernel() - select_idle_sibling() of the running kernel.
 * @w: the wakeup, with @w->target set by the skeleton.
 *
 * Return: the CPU, with @w->outcome set.
 */
notrace int wp_sis_kernel(struct wp_wakeup *w)
{
	struct sched_domain *sd;
	bool has_idle_core = false;
	int i, held;

	i = wp_sis_fast_checks(w, &held);
	if (i >= 0)
		return i;

	sd = wp_sd_llc(w->target);
	if (!sd)
		goto none;

	if (sched_smt_active()) {
		has_idle_core = wp_test_idle_cores(w->target);
		if (!has_idle_core && wp_cpus_share_cache(w->prev, w->target)) {
			i = wp_select_idle_smt(w, sd, w->prev);
			if (i >= 0) {
				w->outcome = WP_OUT_SCAN;
				return i;
			}
		}
	}

	i = wp_sis_util_depth(w->target);
	if (i > 1) {
		i = wp_select_idle_cpu(w, sd, has_idle_core, w->target, i);
		if (i >= 0) {
			w->outcome = WP_OUT_SCAN;
			return i;
		}
	}
none:
	return wp_sis_none(w, held);
}
