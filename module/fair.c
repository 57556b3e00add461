// SPDX-License-Identifier: GPL-2.0
/*
 * The wakeup path of CFS, written again from its description for Debian's
 * 6.1, 6.12 and 7.2 (their differences by feature, compat.h): record_wakee,
 * wake_wide, wake_affine (idle and weight), and the idle-sibling search
 * (select_idle_sibling and its helpers).  Policies share the skeleton
 * (wp_place) and vary the idle-sibling search.
 *
 * Deliberate differences from the kernel, all documented in README.md:
 *  - Asymmetric CPU capacity (and so energy-aware placement), wakeup
 *    balancing (SD_BALANCE_WAKE on a domain), SIS_PROP switched on (6.1),
 *    a task group hierarchy deeper than WP_H_LOAD_DEPTH, and a prev (or a
 *    wake_affine target) that is not allowed or not active are handed
 *    back to the kernel, before any state changes.
 *  - Core scheduling cookies are not checked (sched_cpu_cookie_match).
 *  - Schedstats (nr_wakeups_affine*, ttwu_move_affine) are not counted.
 *  - A recently used CPU that is allowed but not active (CPU going down)
 *    is passed over; the kernel would take it and then fall back.
 *
 * State the kernel's select_task_rq_fair() refreshes or writes, and how it
 * is handled here:
 *  - current->wakee_flips, wakee_flip_decay_ts, last_wakee (record_wakee):
 *    computed first, written only once the pick is final (not for a
 *    shadow, not when handing back).
 *  - cfs_rq->h_load, last_h_load_update, h_load_next (task_h_load ->
 *    update_cfs_rq_h_load): the same values computed into locals, no
 *    write; the kernel writes them on its next call in the jiffy, with
 *    the same result.
 *  - p->recent_used_cpu and has_idle_cores (of sd_llc_shared; of
 *    sd_balance_shared in 7.2): written as the
 *    kernel does (not for a shadow).
 *  - rq->wake_stamp, wake_avg_idle, sd->avg_scan_cost (SIS_PROP, 6.1):
 *    not reimplemented; handed back while SIS_PROP is on.
 *  - The select_rq_mask scratch cpumask: ours is per CPU too.
 *
 * Scheduler features (SIS_PROP, SIS_UTIL, WA_IDLE, WA_WEIGHT, WA_BIAS) and,
 * on 6.12, the sched_cluster_active key are read live at every wakeup from
 * the kernel's own variables, found by name at load.
 */
#include <linux/cpumask.h>
#include <linux/hardirq.h>
#include <linux/jiffies.h>
#include <linux/jump_label.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "fair.h"
#include "fairmath.h"
#include "syms.h"

static DEFINE_PER_CPU(cpumask_var_t, wp_scratch);

/* The features of kernel/sched/features.h that the wakeup path reads. */
enum wp_feat {
	WP_FEAT_SIS_PROP,
	WP_FEAT_SIS_UTIL,
	WP_FEAT_WA_IDLE,
	WP_FEAT_WA_WEIGHT,
	WP_FEAT_WA_BIAS,
	WP_FEAT_NR,
};

static const char * const wp_feat_names[WP_FEAT_NR] = {
	[WP_FEAT_SIS_PROP]	= "SIS_PROP",
	[WP_FEAT_SIS_UTIL]	= "SIS_UTIL",
	[WP_FEAT_WA_IDLE]	= "WA_IDLE",
	[WP_FEAT_WA_WEIGHT]	= "WA_WEIGHT",
	[WP_FEAT_WA_BIAS]	= "WA_BIAS",
};

/* The kernel's sysctl_sched_features, which debugfs toggles. */
static const unsigned int *wp_sched_features __read_mostly;
/* Each feature's bit in it (0: the kernel has no such feature). */
static unsigned int wp_feat_bit[WP_FEAT_NR] __read_mostly;
/* 6.12: the kernel's sched_cluster_active static key. */
static struct static_key_false *wp_cluster_key __read_mostly;

/* sched_feat(): the kernel's live value, so a toggle applies at once. */
static __always_inline bool wp_feat(enum wp_feat f)
{
	return READ_ONCE(*wp_sched_features) & wp_feat_bit[f];
}

/* static_branch_unlikely(&sched_cluster_active), read as data. */
static __always_inline bool wp_cluster_active(void)
{
	return WP_HAVE_CLUSTER_SCAN &&
	       static_key_enabled(&wp_cluster_key->key);
}

struct cpumask *wp_scratch_mask(void)
{
	return this_cpu_read(wp_scratch);
}

/* Copy a kernel string without faulting; -EFAULT if unreadable or long. */
static int wp_read_kstr(char *buf, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (get_kernel_nofault(buf[i], src + i))
			return -EFAULT;
		if (!buf[i])
			return 0;
	}
	return -EFAULT;
}

/* Find the feature bits by name in the kernel's sched_feat_names[]. */
static int wp_feat_init(void)
{
	unsigned long addr, size, names, nsize;
	unsigned int i, f, nr, val;
	char buf[32];

	if (wp_sym_data("sysctl_sched_features", &addr, &size) ||
	    size < sizeof(unsigned int)) {
		pr_err("wakeplace: sysctl_sched_features not found through kallsyms: cannot follow scheduler features\n");
		return -ENOENT;
	}
	if (wp_sym_data("sched_feat_names", &names, &nsize)) {
		pr_err("wakeplace: sched_feat_names not found through kallsyms: cannot follow scheduler features\n");
		return -ENOENT;
	}
	/* kallsyms' size runs to the next symbol: stop at padding (NULL). */
	nr = min_t(unsigned long, nsize / sizeof(char *), 32);
	for (i = 0; i < nr; i++) {
		const char *name;

		if (get_kernel_nofault(name, (const char **)names + i) || !name ||
		    wp_read_kstr(buf, sizeof(buf), name))
			break;
		for (f = 0; f < WP_FEAT_NR; f++)
			if (!strcmp(buf, wp_feat_names[f]))
				wp_feat_bit[f] = 1U << i;
	}
	for (f = 0; f < WP_FEAT_NR; f++) {
		if (wp_feat_bit[f] ||
		    (f == WP_FEAT_SIS_PROP && !WP_HAVE_SIS_PROP))
			continue;
		pr_err("wakeplace: scheduler feature %s not found in sched_feat_names: cannot follow scheduler features\n",
		       wp_feat_names[f]);
		return -ENOENT;
	}
	/* A confirmed variable holds no bit beyond the named features. */
	if (get_kernel_nofault(val, (unsigned int *)addr) ||
	    (i < 32 && (val >> i))) {
		pr_err("wakeplace: sysctl_sched_features reads %#x with %u features named: cannot follow scheduler features\n",
		       val, i);
		return -ENOENT;
	}
	wp_sched_features = (const unsigned int *)addr;

	if (WP_HAVE_CLUSTER_SCAN) {
		if (wp_sym_data("sched_cluster_active", &addr, &size) ||
		    size < sizeof(struct static_key_false)) {
			pr_err("wakeplace: sched_cluster_active not found through kallsyms: cannot follow the cluster scan\n");
			return -ENOENT;
		}
		wp_cluster_key = (struct static_key_false *)addr;
	}
	return 0;
}

/*
 * h_load is a jiffies stamp: 0 (never computed) or between the boot value
 * and now.  Anything else means the BTF offset does not fit this kernel.
 * "Now" is read after each stamp: another CPU stamps its cfs_rq with the
 * jiffies of its own moment, which a value read before may precede (seen
 * under TCG: a stamp 3 jiffies after one read at the start of the loop).
 */
static int wp_h_load_verify(void)
{
	unsigned long now;
	int cpu;

	if (!IS_ENABLED(CONFIG_FAIR_GROUP_SCHED))
		return 0;
	for_each_possible_cpu(cpu) {
		void *cfs = (char *)wp_rq(cpu) + wp_lay.rq_cfs;
		unsigned long stamp = wp_cfs_h_load_stamp(cfs);

		/* The stamp first: it was some jiffies value now has passed. */
		smp_rmb();
		now = READ_ONCE(jiffies);
		if (stamp && (time_before(stamp, INITIAL_JIFFIES) ||
			      time_after(stamp, now))) {
			pr_err("wakeplace: layout check failed: cfs_rq(%d)->last_h_load_update reads %lu, jiffies %lu: struct cfs_rq offsets do not match this kernel\n",
			       cpu, stamp, now);
			return -EINVAL;
		}
	}
	return 0;
}

int wp_fair_init(void)
{
	int cpu, ret;

	ret = wp_feat_init();
	if (ret)
		return ret;
	ret = wp_h_load_verify();
	if (ret)
		return ret;
	for_each_possible_cpu(cpu) {
		if (!zalloc_cpumask_var_node(per_cpu_ptr(&wp_scratch, cpu),
					     GFP_KERNEL, cpu_to_node(cpu))) {
			wp_fair_exit();
			return -ENOMEM;
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

/* record_wakee()'s decisions, taken before and written after the pick. */
struct wp_wakee {
	unsigned long now;
	unsigned int flips;
	bool decay;
	bool change;
};

/*
 * record_wakee(): the waker's count of partner changes, halved every
 * second.  Computes the waker's flips as they are after this wakeup.
 */
static notrace void wp_record_wakee(struct wp_wakeup *w, struct wp_wakee *r)
{
	struct task_struct *curr = current;

	r->now = jiffies;
	r->flips = READ_ONCE(curr->wakee_flips);
	r->decay = time_after(r->now,
			      READ_ONCE(curr->wakee_flip_decay_ts) + HZ);
	r->change = READ_ONCE(curr->last_wakee) != w->p;
	if (r->decay)
		r->flips >>= 1;
	if (r->change)
		r->flips++;
}

/* Write what record_wakee() decided: only for a real, final pick. */
static notrace void wp_record_wakee_commit(struct wp_wakeup *w,
					   const struct wp_wakee *r)
{
	struct task_struct *curr = current;

	if (w->shadow)
		return;
	if (r->decay)
		curr->wakee_flip_decay_ts = r->now;
	if (r->change)
		curr->last_wakee = w->p;
	curr->wakee_flips = r->flips;
}

/*
 * wake_wide(): spread when both partners switch partners often, one of them
 * llc_size times more than the other (an M:N relationship wider than the
 * LLC).
 */
static notrace bool wp_wake_wide(struct wp_wakeup *w, unsigned int master)
{
	return wp_wide(master, READ_ONCE(w->p->wakee_flips),
		       wp_sd_llc_size(w->this_cpu));
}

/* Task groups nested deeper than this are handed back (systemd: 3-5). */
#define WP_H_LOAD_DEPTH		16

/*
 * task_h_load() as the kernel would compute it at this moment, without
 * its writes.  update_cfs_rq_h_load() walks up from the task's cfs_rq to
 * the nearest one whose h_load was computed in this jiffy (or to the root,
 * whose h_load is its load_avg), then down again, each level getting its
 * parent's h_load scaled by the group entity's load_avg over the parent
 * cfs_rq's load_avg + 1.  The same walk, with the results kept in locals.
 *
 * Return: false (hand back) when the hierarchy is deeper than
 * WP_H_LOAD_DEPTH.
 */
static notrace bool wp_task_h_load(struct task_struct *p, unsigned long *load)
{
#ifdef CONFIG_FAIR_GROUP_SCHED
	struct sched_entity *path[WP_H_LOAD_DEPTH], *se;
	void *cfs_rq = READ_ONCE(p->se.cfs_rq), *top = cfs_rq;
	unsigned long now = jiffies, h_load;
	int n = 0;

	if (wp_cfs_h_load_stamp(cfs_rq) == now) {
		h_load = wp_cfs_h_load(cfs_rq);
	} else {
		/* The task's parent entity owns its cfs_rq (tg->se[cpu]). */
		for (se = READ_ONCE(p->se.parent); se;
		     se = READ_ONCE(se->parent)) {
			if (n == WP_H_LOAD_DEPTH)
				return false;
			path[n++] = se;
			top = READ_ONCE(se->cfs_rq);
			if (wp_cfs_h_load_stamp(top) == now)
				break;
		}
		h_load = se ? wp_cfs_h_load(top) : wp_cfs_load_avg(top);
		while (n--) {
			se = path[n];
			h_load = wp_load_scale(h_load,
					       READ_ONCE(se->avg.load_avg),
					       wp_cfs_load_avg(READ_ONCE(se->cfs_rq)));
		}
	}
	*load = wp_load_scale(READ_ONCE(p->se.avg.load_avg), h_load,
			      wp_cfs_load_avg(cfs_rq));
#else
	*load = READ_ONCE(p->se.avg.load_avg);
#endif
	return true;
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
 * the task, scaled by the other's capacity and (WA_BIAS) for prev by half
 * the domain's imbalance margin.  WP_HANDBACK if a load cannot be known.
 */
static notrace int wp_wake_affine_weight(struct wp_wakeup *w,
					 struct sched_domain *sd)
{
	int this = w->this_cpu, prev = w->prev;
	unsigned long task_load, cur;
	s64 this_eff;

	this_eff = wp_cpu_load(this);
	if (w->sync) {
		if (!wp_task_h_load(current, &cur))
			return WP_HANDBACK;
		/* Before the wakee's h_load, which may hand back. */
		if (cur > this_eff)
			return this;
		this_eff -= cur;
	}
	if (!wp_task_h_load(w->p, &task_load))
		return WP_HANDBACK;

	wp_touch(w, prev);
	return wp_wa_weight(this_eff, wp_cpu_load(prev), task_load,
			    wp_capacity_of(this), wp_capacity_of(prev),
			    wp_feat(WP_FEAT_WA_BIAS), sd->imbalance_pct,
			    w->sync) ? this : nr_cpumask_bits;
}

/* wake_affine(): this CPU or prev, or WP_HANDBACK. */
static notrace int wp_wake_affine(struct wp_wakeup *w, struct sched_domain *sd)
{
	int t = nr_cpumask_bits;

	if (wp_feat(WP_FEAT_WA_IDLE))
		t = wp_wake_affine_idle(w);
	if (wp_feat(WP_FEAT_WA_WEIGHT) && t == nr_cpumask_bits)
		t = wp_wake_affine_weight(w, sd);
	if (t == WP_HANDBACK)
		return t;
	return t == w->this_cpu ? t : w->prev;
}

/* Where the kernel would not need select_fallback_rq(). */
static __always_inline bool wp_usable(struct task_struct *p, int cpu)
{
	return (unsigned int)cpu < nr_cpu_ids &&
	       cpumask_test_cpu(cpu, p->cpus_ptr) && cpu_active(cpu);
}

/**
 * wp_place() - the wakeup skeleton shared by every policy.
 * @pol: the policy whose idle-sibling search completes the pick.
 * @w: the wakeup; @w->p, @w->prev, @w->wake_flags and @w->shadow are set.
 *
 * Does what select_task_rq_fair() does for a WF_TTWU wakeup up to the
 * idle-sibling search: record_wakee, the WF_CURRENT_CPU shortcut (6.12),
 * wake_wide, the walk up the domains to the affine one and wake_affine.
 * Every hand-back is decided before any state changes: the cases it does
 * not reimplement, and a prev or target the kernel would have to fall back
 * from.  record_wakee's writes wait until the policy has picked (no
 * reader in between), and a policy hands back only before it writes.
 *
 * Return: the policy's pick, unchanged (one outside p->cpus_ptr or the
 * active CPUs is a policy bug, for the hook to catch), or %WP_HANDBACK.
 */
notrace int wp_place(struct wakeplace_policy *pol, struct wp_wakeup *w)
{
	struct task_struct *p = w->p;
	struct sched_domain *tmp, *affine = NULL;
	int this = smp_processor_id();
	struct wp_wakee rec;
	bool want_affine;
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
	/* SIS_PROP's scan budget writes runqueue state we do not keep. */
	if (wp_feat(WP_FEAT_SIS_PROP))
		return WP_HANDBACK;
	/* The kernel would end in select_fallback_rq(): let it. */
	if (!wp_usable(p, w->prev))
		return WP_HANDBACK;

	wp_record_wakee(w, &rec);

	if ((w->wake_flags & WP_WF_CURRENT_CPU) &&
	    cpumask_test_cpu(this, p->cpus_ptr)) {
		if (!cpu_active(this))
			return WP_HANDBACK;
		wp_record_wakee_commit(w, &rec);
		w->outcome = WP_OUT_TARGET;
		return this;
	}

	want_affine = !wp_wake_wide(w, rec.flips) &&
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
		if (affine && this != w->prev) {
			cpu = wp_wake_affine(w, affine);
			if (cpu == WP_HANDBACK)
				return WP_HANDBACK;
			w->target = cpu;
		}
	}
	/* this CPU is allowed (want_affine), prev checked above. */
	if (!cpu_active(w->target))
		return WP_HANDBACK;

	cpu = pol->select_cpu(w);
	if (cpu != WP_HANDBACK)
		wp_record_wakee_commit(w, &rec);
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
		if (!wp_cluster_active() ||
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
	    cpumask_test_cpu(r, p->cpus_ptr) && cpu_active(r)) {
		if (!wp_cluster_active() ||
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
				if (wp_sched_idle_for(w, cpu) &&
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
 * LLC is overloaded, do not scan), or INT_MAX without shared LLC state or
 * with SIS_UTIL switched off.
 */
notrace int wp_sis_util_depth(int target)
{
	struct sched_domain_shared *sds;

	if (!wp_feat(WP_FEAT_SIS_UTIL))
		return INT_MAX;
	sds = wp_sd_llc_shared(target);

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
	struct sched_domain *child;
	int cpu, i, idle_cpu = -1;
	bool stop = false;

	/* 7.2 returns at once when p may run nowhere here, hint untouched. */
	if (!cpumask_and(cpus, sched_domain_span(sd), w->p->cpus_ptr) &&
	    WP_SIC_EMPTY_RETURNS)
		return -1;

	/*
	 * 6.12: the cluster of target first.  The kernel tests the flags of
	 * the LLC domain's first group; that group spans target's child
	 * domain and carries its flags (also after a level degenerates).
	 */
	child = wp_cluster_active() ? rcu_dereference_sched(sd->child) : NULL;
	if (child && (child->flags & WP_SD_CLUSTER)) {
		const struct cpumask *cl = sched_domain_span(child);

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
		struct sched_domain_shared *sds = wp_sd_idle_cores_shared(target);

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
