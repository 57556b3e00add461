/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read-only views of scheduler-private state, built from the offsets that
 * scripts/gen-layout took from the target kernel's BTF.  Nothing here calls
 * an unexported kernel function: idle_cpu(), cpus_share_cache() and friends
 * are re-derived from runqueue fields.
 */
#ifndef WP_SCHED_H
#define WP_SCHED_H

#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/topology.h>
#include <linux/sched/smt.h>
#include <linux/topology.h>
#include <linux/stddef.h>
#include "compat.h"
#include "wakeplace.h"

/**
 * struct wp_layout - offsets in use, verified at load.
 * @rq_nr_running: struct rq, nr_running.
 * @rq_ttwu_pending: struct rq, ttwu_pending.
 * @rq_cfs: struct rq, the root cfs_rq.
 * @rq_curr: struct rq, curr.
 * @rq_idle: struct rq, idle.
 * @rq_sd: struct rq, sd (RCU).
 * @rq_cpu_capacity: struct rq, cpu_capacity.
 * @rq_cpu: struct rq, cpu.
 * @cfs_h_nr_running: struct cfs_rq, h_nr_running (h_nr_queued on 6.12).
 * @cfs_idle_h_nr_running: struct cfs_rq, idle_h_nr_running.
 * @cfs_h_nr_runnable: struct cfs_rq, h_nr_runnable (6.12 only, else 0).
 * @cfs_avg: struct cfs_rq, avg (struct sched_avg, public).
 * @cfs_h_load: struct cfs_rq, h_load.
 * @class_select_task_rq: struct sched_class, select_task_rq.
 * @pcpu_runqueues: per-CPU address of runqueues.
 * @pcpu_sd_llc: per-CPU address of sd_llc.
 * @pcpu_sd_llc_size: per-CPU address of sd_llc_size.
 * @pcpu_sd_llc_id: per-CPU address of sd_llc_id.
 * @pcpu_sd_llc_shared: per-CPU address of sd_llc_shared.
 * @pcpu_sd_share_id: per-CPU address of sd_share_id (6.12+, else 0).
 * @pcpu_sd_asym_cpucapacity: per-CPU address of sd_asym_cpucapacity.
 * @pcpu_sd_balance_shared: per-CPU address of sd_balance_shared, where
 *	has_idle_cores lives (7.2+, else 0: sd_llc_shared holds it).
 * @cfs_last_h_load_update: struct cfs_rq, last_h_load_update (jiffies).
 *
 * The pcpu_* members start as BTF offsets into .data..percpu and become
 * per-CPU addresses (the section's link address added) in
 * wp_layout_verify(), before anything reads through them.
 */
struct wp_layout {
	unsigned long rq_nr_running;
	unsigned long rq_ttwu_pending;
	unsigned long rq_cfs;
	unsigned long rq_curr;
	unsigned long rq_idle;
	unsigned long rq_sd;
	unsigned long rq_cpu_capacity;
	unsigned long rq_cpu;
	unsigned long cfs_h_nr_running;
	unsigned long cfs_idle_h_nr_running;
	unsigned long cfs_h_nr_runnable;
	unsigned long cfs_avg;
	unsigned long cfs_h_load;
	unsigned long class_select_task_rq;
	unsigned long pcpu_runqueues;
	unsigned long pcpu_sd_llc;
	unsigned long pcpu_sd_llc_size;
	unsigned long pcpu_sd_llc_id;
	unsigned long pcpu_sd_llc_shared;
	unsigned long pcpu_sd_share_id;
	unsigned long pcpu_sd_asym_cpucapacity;
	unsigned long pcpu_sd_balance_shared;
	unsigned long cfs_last_h_load_update;
};

extern struct wp_layout wp_lay;

int wp_layout_verify(void);

/* A kernel per-CPU variable, by its per-CPU address (see struct wp_layout). */
#define WP_PCPU(addr, type, cpu) \
	((type *)per_cpu_ptr((type __percpu *)(addr), (cpu)))

static __always_inline void *wp_rq(int cpu)
{
	return WP_PCPU(wp_lay.pcpu_runqueues, char, cpu);
}

#define WP_FIELD(base, off, type)	(*(type *)((char *)(base) + (off)))
#define WP_RD(base, off, type)		READ_ONCE(WP_FIELD(base, off, type))

static __always_inline unsigned int wp_rq_nr_running(void *rq)
{
	return WP_RD(rq, wp_lay.rq_nr_running, unsigned int);
}

static __always_inline unsigned int wp_rq_cfs_idle_h_nr(void *rq)
{
	return WP_RD(rq, wp_lay.rq_cfs + wp_lay.cfs_idle_h_nr_running,
		     unsigned int);
}

/**
 * enum wp_rq_why - what wp_rq_state() and wp_cpu_state() saw of a CPU.
 * @WP_RQ_IDLE: idle: nothing pending, queued or running but its idle task.
 * @WP_RQ_PENDING: a wakee is queued on its wake list (ttwu_pending).
 * @WP_RQ_RUNNING: something is queued there or runs there.
 * @WP_RQ_PREEMPTED: idle, but in a guest its vCPU is not running
 *	(vcpu_is_preempted()): idle in fact, unusable for now.
 */
enum wp_rq_why {
	WP_RQ_IDLE,
	WP_RQ_PENDING,
	WP_RQ_RUNNING,
	WP_RQ_PREEMPTED,
};

/* A wakee is queued on the CPU's wake list, its enqueue still to come. */
static __always_inline bool wp_rq_pending(void *rq)
{
	return WP_RD(rq, wp_lay.rq_ttwu_pending, unsigned int);
}

/* The task @rq runs now; compared, never dereferenced. */
static __always_inline struct task_struct *wp_rq_curr(void *rq)
{
	return WP_RD(rq, wp_lay.rq_curr, struct task_struct *);
}

/* @rq runs its idle task (more may be queued or pending). */
static __always_inline bool wp_rq_curr_idle(void *rq)
{
	return wp_rq_curr(rq) == WP_RD(rq, wp_lay.rq_idle, struct task_struct *);
}

/*
 * idle_cpu() as a reason: WP_RQ_IDLE, WP_RQ_PENDING or WP_RQ_RUNNING.
 *
 * ttwu_pending is read first, then nr_running: a waker queueing on the
 * wake list sets ttwu_pending before it queues the task and sends the IPI,
 * and the enqueue there (sched_ttwu_pending()) increments nr_running before
 * it clears ttwu_pending.  So a reader that finds ttwu_pending already
 * clear finds nr_running already raised, and cannot miss a wakee that is
 * between the two (idle_cpu()'s order, nr_running first, can).  The
 * smp_rmb() keeps the reads in that order (on x86 a compiler barrier: the
 * stores are seen in the order they were made).  curr is read last: it
 * is the idle task only after the runqueue emptied.
 */
static __always_inline enum wp_rq_why wp_rq_state(void *rq)
{
	if (wp_rq_pending(rq))
		return WP_RQ_PENDING;
	/* Pairs with the enqueue's nr_running++ before ttwu_pending = 0. */
	smp_rmb();
	if (wp_rq_nr_running(rq))
		return WP_RQ_RUNNING;
	if (!wp_rq_curr_idle(rq))
		return WP_RQ_RUNNING;
	return WP_RQ_IDLE;
}

/* idle_cpu(): current is the idle task, nothing queued, no wakeup pending. */
static __always_inline bool wp_rq_idle(void *rq)
{
	return wp_rq_state(rq) == WP_RQ_IDLE;
}

/* wp_rq_state() of @cpu, and WP_RQ_PREEMPTED for an idle preempted vCPU. */
static __always_inline enum wp_rq_why wp_cpu_state(int cpu)
{
	enum wp_rq_why why = wp_rq_state(wp_rq(cpu));

	if (why == WP_RQ_IDLE && vcpu_is_preempted(cpu))
		return WP_RQ_PREEMPTED;
	return why;
}

/* available_idle_cpu(): idle and, in a guest, its vCPU is running. */
static __always_inline bool wp_available_idle_cpu(int cpu)
{
	return wp_cpu_state(cpu) == WP_RQ_IDLE;
}

/* sched_idle_cpu(): only SCHED_IDLE tasks are runnable there. */
static __always_inline bool wp_sched_idle_cpu(int cpu)
{
	void *rq = wp_rq(cpu);
	unsigned int nr = wp_rq_nr_running(rq);

	return nr && nr == wp_rq_cfs_idle_h_nr(rq);
}

/*
 * The checks a policy makes on another CPU's runqueue go through these, so
 * that the remote cache lines a pick touches are counted: the cost behind
 * the 2.6.33 VolanoMark regression (docs/history.md).
 */
static __always_inline void wp_touch(struct wp_wakeup *w, int cpu)
{
	if (cpu != w->this_cpu)
		w->remote_lines++;
}

static __always_inline bool wp_idle(struct wp_wakeup *w, int cpu)
{
	wp_touch(w, cpu);
	return wp_available_idle_cpu(cpu);
}

/*
 * A CPU running only SCHED_IDLE tasks, as usable for this wakee: any wakee
 * up to 6.12; from 7.2 (choose_sched_idle_rq()) not a SCHED_IDLE one.
 */
static __always_inline bool wp_sched_idle_for(struct wp_wakeup *w, int cpu)
{
	if (WP_HAVE_CHOOSE_IDLE && READ_ONCE(w->p->policy) == SCHED_IDLE)
		return false;
	return wp_sched_idle_cpu(cpu);
}

/*
 * available_idle_cpu() || sched_idle_cpu(): the kernel's "usable" test
 * (choose_idle_cpu() in 7.2).
 */
static __always_inline bool wp_idle_or_sched_idle(struct wp_wakeup *w, int cpu)
{
	wp_touch(w, cpu);
	return wp_available_idle_cpu(cpu) || wp_sched_idle_for(w, cpu);
}

/* cfs_rq_load_avg(): a cfs_rq's PELT load. */
static __always_inline unsigned long wp_cfs_load_avg(void *cfs_rq)
{
	return WP_RD(cfs_rq, wp_lay.cfs_avg +
		     offsetof(struct sched_avg, load_avg), unsigned long);
}

/* The hierarchical load the kernel last stored in a cfs_rq. */
static __always_inline unsigned long wp_cfs_h_load(void *cfs_rq)
{
	return WP_RD(cfs_rq, wp_lay.cfs_h_load, unsigned long);
}

/* The jiffy in which that h_load was computed. */
static __always_inline unsigned long wp_cfs_h_load_stamp(void *cfs_rq)
{
	return WP_RD(cfs_rq, wp_lay.cfs_last_h_load_update, unsigned long);
}

static __always_inline unsigned long wp_cpu_load(int cpu)
{
	return wp_cfs_load_avg((char *)wp_rq(cpu) + wp_lay.rq_cfs);
}

static __always_inline unsigned long wp_capacity_of(int cpu)
{
	return WP_RD(wp_rq(cpu), wp_lay.rq_cpu_capacity, unsigned long);
}

static __always_inline struct sched_domain *wp_rq_sd(int cpu)
{
	return rcu_dereference_sched(WP_FIELD(wp_rq(cpu), wp_lay.rq_sd,
					      struct sched_domain __rcu *));
}

static __always_inline struct sched_domain *wp_sd_llc(int cpu)
{
	return rcu_dereference_sched(*WP_PCPU(wp_lay.pcpu_sd_llc,
					      struct sched_domain __rcu *, cpu));
}

static __always_inline struct sched_domain_shared *wp_sd_llc_shared(int cpu)
{
	return rcu_dereference_sched(*WP_PCPU(wp_lay.pcpu_sd_llc_shared,
					      struct sched_domain_shared __rcu *,
					      cpu));
}

/* The shared state whose has_idle_cores the kernel keeps for @cpu. */
static __always_inline struct sched_domain_shared *wp_sd_idle_cores_shared(int cpu)
{
	if (!wp_lay.pcpu_sd_balance_shared)
		return wp_sd_llc_shared(cpu);
	return rcu_dereference_sched(*WP_PCPU(wp_lay.pcpu_sd_balance_shared,
					      struct sched_domain_shared __rcu *,
					      cpu));
}

static __always_inline bool wp_asym_cpucapacity(int cpu)
{
	return rcu_access_pointer(*WP_PCPU(wp_lay.pcpu_sd_asym_cpucapacity,
					   struct sched_domain __rcu *, cpu));
}

static __always_inline int wp_sd_llc_size(int cpu)
{
	return READ_ONCE(*WP_PCPU(wp_lay.pcpu_sd_llc_size, int, cpu));
}

static __always_inline int wp_sd_llc_id(int cpu)
{
	return READ_ONCE(*WP_PCPU(wp_lay.pcpu_sd_llc_id, int, cpu));
}

/*
 * The LLC domain @cpu is in, named by its first CPU (@cpu alone without
 * one): what sd_llc_id says up to 6.12.  From 7.2 sd_llc_id names the
 * cache and stays the same for CPUs that cpusets put in different LLC
 * domains; per-LLC state follows the domain, as the idle search does.
 */
static __always_inline int wp_llc_key(int cpu)
{
	struct sched_domain *sd = wp_sd_llc(cpu);

	return sd ? cpumask_first(sched_domain_span(sd)) : cpu;
}

/* cpus_share_cache(): same LLC id.  A read of per-CPU topology, not rq. */
static __always_inline bool wp_cpus_share_cache(int a, int b)
{
	return a == b || wp_sd_llc_id(a) == wp_sd_llc_id(b);
}

/* cpus_share_resources() (6.12): same cluster or, without clusters, LLC. */
static __always_inline bool wp_cpus_share_resources(int a, int b)
{
	if (!wp_lay.pcpu_sd_share_id)
		return wp_cpus_share_cache(a, b);
	return a == b || READ_ONCE(*WP_PCPU(wp_lay.pcpu_sd_share_id, int, a)) ==
			 READ_ONCE(*WP_PCPU(wp_lay.pcpu_sd_share_id, int, b));
}

/* Runnable CFS tasks minus delayed-dequeue ones (6.12); nr_running on 6.1. */
static __always_inline unsigned int wp_rq_nr_not_delayed(void *rq)
{
	unsigned int nr = wp_rq_nr_running(rq);

#if WP_HAVE_DELAYED
	nr -= WP_RD(rq, wp_lay.rq_cfs + wp_lay.cfs_h_nr_running, unsigned int) -
	      WP_RD(rq, wp_lay.rq_cfs + wp_lay.cfs_h_nr_runnable, unsigned int);
#endif
	return nr;
}

#endif /* WP_SCHED_H */
