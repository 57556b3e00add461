// SPDX-License-Identifier: GPL-2.0
/*
 * The hook: an IPMODIFY ftrace_ops on select_task_rq_fair, the way
 * livepatch redirects a function.
 *
 * The ftrace callback itself runs the active policy.  When the policy picks
 * a CPU, the callback stashes it per CPU and points the instruction pointer
 * at wp_redirected(), which returns the stash: the kernel's function does
 * not run.  When the policy declines (or the call is not a wakeup), the
 * callback returns without touching the IP and the kernel's own code runs,
 * at the cost of one callback.  All callers hold p->pi_lock with IRQs off,
 * so nothing runs on this CPU between the callback and the function it
 * resumes into.
 *
 * The kernel's function is called from here only to compare a shadow
 * policy with stock, with a per-CPU bypass flag that makes the re-entered
 * callback step aside.  Its address is fair_sched_class.select_task_rq,
 * an address-taken function (IBT-safe), found through a CFS task.
 */
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/irq_work.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "registry.h"
#include "hook.h"
#include "fair.h"
#include "stats.h"
#include "latency.h"
#include "trace.h"
#include "parse.h"

/**
 * struct wp_pcpu - per-CPU state of the hook.
 * @bypass: set while we call the kernel's function ourselves.
 * @stash_p: the task whose pick is stashed, or NULL.
 * @stash_cpu: the pick wp_redirected() returns.
 * @shadow_pol: for stock with a shadow: the shadow policy.
 * @shadow_cpu: for stock with a shadow: the shadow's pick.
 * @sample: countdown to the next timed pick.
 */
struct wp_pcpu {
	bool bypass;
	struct task_struct *stash_p;
	int stash_cpu;
	struct wakeplace_policy *shadow_pol;
	int shadow_cpu;
	unsigned int sample;
};
static DEFINE_PER_CPU(struct wp_pcpu, wp_pcpu);

typedef int (*wp_select_fn)(struct task_struct *p, int prev, int flags);
static wp_select_fn wp_orig __read_mostly;

unsigned int wp_sample_period __read_mostly = 64;

static unsigned int slow_us = 20000;
module_param(slow_us, uint, 0644);
MODULE_PARM_DESC(slow_us, "A timed pick longer than this (us) counts as slow (default 20000)");
static unsigned int slow_max = 16;
module_param(slow_max, uint, 0644);
MODULE_PARM_DESC(slow_max, "Revert to stock after this many slow picks within slow_window_ms (default 16, 0: never, at most 256)");
static unsigned int slow_window_ms = 10000;
module_param(slow_window_ms, uint, 0644);
MODULE_PARM_DESC(slow_window_ms, "The window slow_max slow picks must fall in to revert (ms, default 10000)");

/*
 * Per policy, the last WP_SLOW_RING slow picks' times (jiffies), a sliding
 * window: a policy trips when its slow_max-th most recent slow pick is no
 * older than slow_window_ms, so sporadic host preemption (any VM) spread
 * over time never adds up to a revert.  One window per policy: with cgroup
 * assignments several policies pick at once, and each answers for its own
 * slow picks only.  Lock-free: a slot another CPU has not written yet
 * reads old, which only delays a trip.  Slots at or before @base were
 * written before the policy was last chosen and are never compared.
 */
#define WP_SLOW_RING	256
static struct wp_slow_win {
	u64 ring[WP_SLOW_RING];
	atomic_t seq;
	unsigned int base;
} wp_slow[WP_NR_POLICIES];

/* 0, or 1 + policy index * WP_TRIP_NR + reason: set once per trip. */
int wp_tripped;

static const char * const wp_trip_why[WP_TRIP_NR] = {
	[WP_TRIP_BAD_CPU]	= "pick outside the allowed CPUs",
	[WP_TRIP_SLOW]		= "picks too slow",
};

#ifdef WAKEPLACE_TEST
/*
 * Test builds only: make the active policy misbehave on purpose.  An enum
 * behind a parameter of its own type, so that a write never frees what the
 * wakeup path reads (a charp would be).
 */
enum {
	WP_FAULT_OFF,
	WP_FAULT_BAD_CPU,
	WP_FAULT_SLOW,
	WP_FAULT_SLOW_SPARSE,
	WP_FAULT_PREV,
	WP_FAULT_INACTIVE,
	WP_FAULT_NR,
};
static const char * const wp_fault_names[WP_FAULT_NR] = {
	"off", "bad_cpu", "slow", "slow_sparse", "prev", "inactive",
};
static int wp_fault;
static unsigned long wp_fault_sparse_last;

static int wp_fault_set(const char *val, const struct kernel_param *kp)
{
	char buf[16];
	int i;

	if (!*val || !strcmp(val, "\n")) {
		WRITE_ONCE(wp_fault, WP_FAULT_OFF);
		return 0;
	}
	if (wp_parse_token(val, strlen(val), buf, sizeof(buf)))
		return -EINVAL;
	for (i = 0; i < WP_FAULT_NR; i++) {
		if (!strcmp(buf, wp_fault_names[i])) {
			WRITE_ONCE(wp_fault, i);
			return 0;
		}
	}
	return -EINVAL;
}

static int wp_fault_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", wp_fault_names[READ_ONCE(wp_fault)]);
}

static const struct kernel_param_ops wp_fault_ops = {
	.set = wp_fault_set,
	.get = wp_fault_get,
};
module_param_cb(test_fault, &wp_fault_ops, NULL, 0644);
MODULE_PARM_DESC(test_fault, "TEST BUILD: off | bad_cpu | slow | slow_sparse (one pick per 4 s counted slow) | prev (every pick is the previous CPU, idle or not)");

/*
 * Test builds only: the one policy test_fault hits (its index), or -1 for
 * whichever places the wakeup, so that a test can give two policies (the
 * machine-wide one and a cgroup's) slow picks of their own.
 */
static int wp_fault_pol = -1;

static int wp_fault_pol_set(const char *val, const struct kernel_param *kp)
{
	struct wakeplace_policy *pol;
	char buf[WP_NAME_MAX];

	if (!*val || !strcmp(val, "\n")) {
		WRITE_ONCE(wp_fault_pol, -1);
		return 0;
	}
	if (wp_parse_token(val, strlen(val), buf, sizeof(buf)))
		return -EINVAL;
	if (!strcmp(buf, "any")) {
		WRITE_ONCE(wp_fault_pol, -1);
		return 0;
	}
	pol = wp_policy_find(buf);
	if (!pol)
		return -EINVAL;
	WRITE_ONCE(wp_fault_pol, wp_policy_index(pol));
	return 0;
}

static int wp_fault_pol_get(char *buf, const struct kernel_param *kp)
{
	int i = READ_ONCE(wp_fault_pol);

	return sysfs_emit(buf, "%s\n", i < 0 ? "any" : wp_policies[i]->name);
}

static const struct kernel_param_ops wp_fault_pol_ops = {
	.set = wp_fault_pol_set,
	.get = wp_fault_pol_get,
};
module_param_cb(test_fault_policy, &wp_fault_pol_ops, NULL, 0644);
MODULE_PARM_DESC(test_fault_policy, "TEST BUILD: the policy test_fault hits (a name), or any (default)");

/*
 * The injected faults, on the wakeup path: may change the pick (prev
 * stacks wakees on purpose), slow it down, or (slow_sparse) have it counted
 * as slow without a delay, since under QEMU TCG local_clock() can clamp a
 * long delay to a tick.
 */
static notrace int wp_fault_inject(struct wakeplace_policy *pol,
				   struct wp_wakeup *w, int cpu, bool timed,
				   bool *slow)
{
	int f = READ_ONCE(wp_fault), fp;

	if (likely(f == WP_FAULT_OFF))
		return cpu;
	fp = READ_ONCE(wp_fault_pol);
	if (fp >= 0 && wp_policy_index(pol) != fp)
		return cpu;
	if (cpu >= 0 && f == WP_FAULT_BAD_CPU)
		return nr_cpu_ids + 1;
	if (cpu >= 0 && f == WP_FAULT_PREV) {
		w->outcome = WP_OUT_PREV;
		return w->prev;
	}
	if (cpu >= 0 && f == WP_FAULT_INACTIVE) {
		/* What a CPU going down mid-pick looks like to the hook. */
		int c;

		for_each_cpu(c, w->p->cpus_ptr)
			if (!cpu_active(c))
				return c;
	}
	if (timed && f == WP_FAULT_SLOW)
		udelay(READ_ONCE(slow_us) + 100);
	if (timed && f == WP_FAULT_SLOW_SPARSE &&
	    time_after(jiffies, READ_ONCE(wp_fault_sparse_last) + 4 * HZ)) {
		WRITE_ONCE(wp_fault_sparse_last, jiffies);
		*slow = true;
	}
	return cpu;
}
#else
static __always_inline int wp_fault_inject(struct wakeplace_policy *pol,
					   struct wp_wakeup *w, int cpu,
					   bool timed, bool *slow)
{
	return cpu;
}
#endif

#ifdef WAKEPLACE_TEST
/* Test builds only: hold the revert back, so a switch can overtake it. */
static unsigned int test_revert_delay_ms;
module_param(test_revert_delay_ms, uint, 0644);
MODULE_PARM_DESC(test_revert_delay_ms, "TEST BUILD: delay the self-protection revert (ms)");
#define WP_REVERT_DELAY	msecs_to_jiffies(READ_ONCE(test_revert_delay_ms))
#else
#define WP_REVERT_DELAY	0
#endif

/*
 * The revert to stock, which sleeps: the switch floor's work function,
 * handed down once at load (wp_hook_set_revert()), so that the hook never
 * calls up into the switch.
 */
static struct delayed_work wp_revert_work;

/**
 * wp_hook_set_revert() - the work that reverts a tripped policy.
 * @fn: the work function (switch.c); set before the hook can attach.
 */
void wp_hook_set_revert(work_func_t fn)
{
	INIT_DELAYED_WORK(&wp_revert_work, fn);
}

static void wp_revert_irq(struct irq_work *iw)
{
	schedule_delayed_work(&wp_revert_work, WP_REVERT_DELAY);
}
static DEFINE_IRQ_WORK(wp_revert_iw, wp_revert_irq);

/* A trip on a dying CPU, whose revert is left to the next wakeup. */
static int wp_revert_orphan;

/* Called once per trip, from the wakeup path (IRQs off). */
static notrace void wp_request_revert(void)
{
	if (wp_irq_work_ok())
		irq_work_queue(&wp_revert_iw);
	else
		WRITE_ONCE(wp_revert_orphan, 1);
}

/*
 * Queue the revert of a trip that happened on a dying CPU
 * (wp_irq_work_ok()).  Called on wakeups that find a trip set (IRQs off).
 */
static notrace void wp_request_revert_again(void)
{
	if (unlikely(READ_ONCE(wp_revert_orphan)) && wp_irq_work_ok() &&
	    xchg(&wp_revert_orphan, 0))
		irq_work_queue(&wp_revert_iw);
}

/**
 * wp_hook_stop_revert() - stop the revert path, once nothing can trip any
 * more (the hook detached, RCU waited for): the irq_work first, since it
 * queues the work, then the work.  The work finds stock active and only
 * clears the trip.
 */
void wp_hook_stop_revert(void)
{
	irq_work_sync(&wp_revert_iw);
	cancel_delayed_work_sync(&wp_revert_work);
}

/* @pol trips the self-protection; the first trip wins until cleared. */
static notrace void wp_trip(struct wakeplace_policy *pol, enum wp_trip_reason why)
{
	unsigned int i = wp_policy_index(pol);

	if (!cmpxchg(&wp_tripped, 0, (int)(1 + i * WP_TRIP_NR + why)))
		wp_request_revert();
}

/**
 * wp_trip_decode() - what a wp_tripped value says.
 * @t: a non-zero value of wp_tripped.
 * @why: out: the reason, a constant string.
 *
 * Return: the policy that tripped.
 */
struct wakeplace_policy *wp_trip_decode(int t, const char **why)
{
	unsigned int v = t - 1;

	*why = wp_trip_why[v % WP_TRIP_NR];
	return wp_policies[v / WP_TRIP_NR];
}

/* A slow timed pick: trip when slow_max of @pol's fall in the window. */
static notrace void wp_slow_pick(struct wakeplace_policy *pol)
{
	struct wp_slow_win *w = &wp_slow[wp_policy_index(pol)];
	unsigned int n = READ_ONCE(slow_max), seq;
	u64 now = get_jiffies_64(), old;

	wp_count(WP_C_SLOW);
	if (!n)
		return;
	n = min_t(unsigned int, n, WP_SLOW_RING);
	seq = atomic_inc_return(&w->seq);
	WRITE_ONCE(w->ring[seq % WP_SLOW_RING], now);
	if (seq - READ_ONCE(w->base) < n)
		return;
	old = READ_ONCE(w->ring[(seq - n + 1) % WP_SLOW_RING]);
	if (now - old <= (u64)READ_ONCE(slow_window_ms) * HZ / MSEC_PER_SEC)
		wp_trip(pol, WP_TRIP_SLOW);
}

static notrace int wp_call_kernel(struct task_struct *p, int prev, int flags)
{
	struct wp_pcpu *pc = this_cpu_ptr(&wp_pcpu);
	int cpu;

	pc->bypass = true;
	cpu = wp_orig(p, prev, flags);
	pc->bypass = false;
	return cpu;
}

/* Resumed into instead of select_task_rq_fair: returns the stashed pick. */
static notrace int wp_redirected(struct task_struct *p, int prev, int flags)
{
	struct wp_pcpu *pc = this_cpu_ptr(&wp_pcpu);

	if (likely(pc->stash_p == p)) {
		pc->stash_p = NULL;
		return pc->stash_cpu;
	}
	/* Cannot happen with IRQs off; if it does, the kernel decides. */
	wp_count(WP_C_CORRECTED);
	return wp_call_kernel(p, prev, flags);
}

static notrace void wp_account(struct wakeplace_policy *pol,
			       struct wp_wakeup *w, int cpu, u64 cost,
			       bool timed)
{
	struct wp_pstats *s = this_cpu_ptr(pol->stats);

	s->v[WP_ST_PICKS]++;
	s->v[WP_ST_OUT + w->outcome]++;
	s->v[WP_ST_CLAIM_LOST] += w->claim_lost;
	s->v[WP_ST_STALE_HINT] += w->stale_hint;
	s->v[WP_ST_STALE_PENDING] += w->stale_pending;
	s->v[WP_ST_STALE_RUNNING] += w->stale_running;
	s->v[WP_ST_STALE_PREEMPTED] += w->stale_preempted;
	s->v[WP_ST_SCANNED] += w->scanned;
	s->v[WP_ST_REMOTE] += w->remote_lines;
	s->scan_hist[wp_log2_bucket(w->scanned)]++;
	if (cpu >= 0) {
		if (!wp_cpus_share_cache(cpu, w->this_cpu))
			s->v[WP_ST_CROSS_LLC]++;
		if (cpu != w->prev)
			s->v[WP_ST_NOT_PREV]++;
	}
	if (timed) {
		s->v[WP_ST_COST_SAMPLES]++;
		s->v[WP_ST_COST_NS] += cost;
		s->cost_hist[wp_cost_bucket(cost)]++;
	}
}

static notrace void wp_account_shadow(struct wakeplace_policy *sh, int scpu,
				      int cpu)
{
	struct wp_pstats *s = this_cpu_ptr(sh->stats);

	/* Disagreements, not agreements: see wp_stats_sum(). */
	s->v[WP_ST_SHADOW_CMP]++;
	if (scpu != cpu)
		s->v[WP_ST_SHADOW_AGREE]++;
}

/* A shadow pick: no state changes; a declined pick is the kernel's. */
static notrace int wp_shadow_pick(struct wakeplace_policy *sh,
				  struct task_struct *p, int prev, int flags)
{
	struct wp_wakeup w = {
		.p = p, .prev = prev, .wake_flags = flags, .shadow = true,
		.outcome = WP_OUT_HANDBACK,
	};

	return sh->select_cpu ? wp_place(sh, &w) : WP_HANDBACK;
}

/* Stock active with a shadow: the kernel decides, then we compare. */
static notrace int wp_stock_shadow(struct task_struct *p, int prev, int flags)
{
	struct wp_pcpu *pc = this_cpu_ptr(&wp_pcpu);
	int cpu = wp_call_kernel(p, prev, flags);

	if (likely(pc->stash_p == p)) {
		pc->stash_p = NULL;
		/* A shadow that hands back would run this very code: agrees. */
		wp_account_shadow(pc->shadow_pol,
				  pc->shadow_cpu == WP_HANDBACK ? cpu :
				  pc->shadow_cpu, cpu);
	}
	return cpu;
}

/* A pick the policy had no right to make: outside the task's CPUs. */
static notrace bool wp_pick_allowed(struct task_struct *p, int cpu)
{
	return (unsigned int)cpu < nr_cpu_ids &&
	       cpumask_test_cpu(cpu, p->cpus_ptr);
}

/* A wakeup of an assigned cgroup's task: @ccnt, its counters (or NULL). */
static __always_inline void wp_cg_count(struct wp_cg_counters __percpu *ccnt)
{
	if (ccnt) {
		wp_count(WP_C_CG_WAKEUPS);
		this_cpu_inc(ccnt->v[WP_CGC_WAKEUPS]);
	}
}

static notrace void wp_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	struct wp_pcpu *pc = this_cpu_ptr(&wp_pcpu);
	struct wakeplace_policy *pol, *sh;
	struct wp_cg_counters __percpu *ccnt = NULL;
	struct wp_cg_table *cgt;
	struct task_struct *p;
	struct wp_wakeup w;
	int prev, flags, cpu, ci, scpu = WP_HANDBACK;
	bool timed = false, slow = false;
	u64 t0 = 0, cost = 0, lookup = 0;

	wp_test_count(WP_C_HOOK_HITS);
	if (pc->bypass)
		return;
	wp_count(WP_C_CALLS);
	flags = (int)wp_fregs_arg(fregs, 2);
	if (!(flags & WP_WF_TTWU))
		return;
	wp_count(WP_C_WAKEUPS);
	if (READ_ONCE(wp_tripped)) {
		wp_request_revert_again();
		return;
	}

	p = (struct task_struct *)wp_fregs_arg(fregs, 0);
	prev = (int)wp_fregs_arg(fregs, 1);
	pol = rcu_dereference_sched(wp_active);
	sh = rcu_dereference_sched(wp_shadow);
	if (!pol)
		return;
	/* A shadow scoped to one cgroup compares that cgroup's only. */
	if (sh) {
		struct wp_shadow_scope *sc = rcu_dereference_sched(wp_sh_scope);

		if (sc && !wp_cg_in_scope(sc, p))
			sh = NULL;
	}
	/*
	 * A cgroup's own policy, if the task is in an assigned one.  A pick
	 * about to be timed (below) counts the lookup in its cost: its clock
	 * starts here, so a pick with a table is timed with the same two
	 * clock reads as one without.  The assignment's counting waits until
	 * the clock stopped, as the pick's own does (wp_account()); only a
	 * lookup that missed the table's cache is counted at once.
	 */
	cgt = rcu_dereference_sched(wp_cg_tab);
	if (cgt) {
		enum wp_cg_how how;

		if (pc->sample + 1 >= READ_ONCE(wp_sample_period))
			t0 = local_clock();
		ci = wp_cg_lookup(cgt, p, &how);
		if (how == WP_CG_MISS)
			wp_count(WP_C_CG_MISSES);
#ifdef WAKEPLACE_TEST
		if (how == WP_CG_WRONG)
			wp_count(WP_C_CG_WRONG);
#endif
		if (ci >= 0) {
			pol = cgt->pol[ci];
			ccnt = cgt->cnt[ci];
		}
	}

	if (!pol->select_cpu) {
		wp_cg_count(ccnt);
		if (!sh || !sh->select_cpu)
			return;
		pc->shadow_pol = sh;
		pc->shadow_cpu = wp_shadow_pick(sh, p, prev, flags);
		pc->stash_p = p;
		wp_fregs_set_ip(fregs, (unsigned long)wp_stock_shadow);
		return;
	}

	/*
	 * The shadow first: it must see the state the active pick changes.
	 * Its pick is not the active policy's cost: a lookup being timed
	 * stops its clock here and the pick's starts after (one read more).
	 */
	if (sh && sh != pol) {
		if (t0) {
			lookup = local_clock() - t0;
			t0 = 0;
		}
		scpu = wp_shadow_pick(sh, p, prev, flags);
	}

	if (++pc->sample >= READ_ONCE(wp_sample_period)) {
		pc->sample = 0;
		timed = true;
		if (!t0)
			t0 = local_clock() - lookup;
	}

	w = (struct wp_wakeup){
		.p = p, .prev = prev, .wake_flags = flags,
		.outcome = WP_OUT_HANDBACK,
	};
	cpu = wp_place(pol, &w);

	cpu = wp_fault_inject(pol, &w, cpu, timed, &slow);
	if (timed) {
		cost = local_clock() - t0;
		if (slow || cost > (u64)READ_ONCE(slow_us) * NSEC_PER_USEC)
			wp_slow_pick(pol);
	}
	wp_cg_count(ccnt);

	if (unlikely(cpu != WP_HANDBACK && !wp_pick_allowed(p, cpu))) {
		wp_count(WP_C_CORRECTED);
		wp_trip(pol, WP_TRIP_BAD_CPU);
		return;
	}
	/*
	 * An allowed CPU that is not active: it went down after the policy
	 * checked it (CPU hotplug clears active before it migrates tasks
	 * away).  Not the policy's fault: the kernel decides this one.
	 */
	if (unlikely(cpu != WP_HANDBACK && !cpu_active(cpu))) {
		wp_count(WP_C_INACTIVE);
		cpu = WP_HANDBACK;
	}
	if (cpu == WP_HANDBACK) {
		w.outcome = WP_OUT_HANDBACK;
		wp_count(WP_C_HANDED_BACK);
		if (ccnt)
			this_cpu_inc(ccnt->v[WP_CGC_HANDED_BACK]);
		wp_account(pol, &w, -1, cost, timed);
		wp_lat_placed(pol, p, WP_OUT_HANDBACK);
		return;
	}
	wp_account(pol, &w, cpu, cost, timed);
	if (ccnt) {
		this_cpu_inc(ccnt->v[WP_CGC_REDIRECTED]);
		this_cpu_inc(ccnt->v[WP_CGC_OUT + w.outcome]);
	}
	wp_lat_placed(pol, p, w.outcome);
	trace_select_cpu(pol->name, p->pid, prev, w.target, cpu, w.outcome,
			 w.scanned, w.remote_lines, cost);
	if (sh && sh != pol)
		wp_account_shadow(sh, scpu == WP_HANDBACK ? -1 : scpu, cpu);

	pc->stash_p = p;
	pc->stash_cpu = cpu;
	wp_count(WP_C_REDIRECTED);
	wp_fregs_set_ip(fregs, (unsigned long)wp_redirected);
}

static struct ftrace_ops wp_ops = {
	.func = wp_ftrace_handler,
	.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_RECURSION |
		 FTRACE_OPS_FL_PERMANENT,
};

/*
 * Attachment.  The ops is registered only while a slot needs it (a
 * non-stock policy or a shadow), so on stock the function stays free for
 * livepatch.  Registering patches text on every CPU and unregistering
 * waits for RCU-tasks (which waits for the CPU-hotplug lock): either can
 * take a second under load.  So one work item makes every ftrace call,
 * and a writer only says what it wants: it waits for the attach at most
 * attach_wait_ms, and never for a detach.  Meanwhile the new policy is
 * published and the kernel places wakeups (the latency rows count them
 * as hand-backs); an attach that fails after its writer stopped waiting
 * reverts the slots to stock with one line (wp_hook_set_lost()).
 *
 * wp_hook_mutex is held by the work across its ftrace call (and by
 * unload); wp_hook_lock guards the state below, which the work's
 * waiters and the hook file read.
 */
static DEFINE_MUTEX(wp_hook_mutex);
static DEFINE_SPINLOCK(wp_hook_lock);
static bool wp_hook_on;		/* registered */
static bool wp_hook_wanted;	/* a slot needs it */
static bool wp_hook_busy;	/* the work is inside register/unregister */
static bool wp_hook_dead;	/* unloading: queue nothing more */
static int wp_hook_err;		/* the last attach's errno, 0 once asked again */
static bool wp_hook_pinned;	/* a detach failed: we hold our own module */
static u64 wp_hook_attach_ns;	/* the last attach's ftrace call */
static DECLARE_WAIT_QUEUE_HEAD(wp_hook_waitq);
static struct work_struct wp_hook_lost_work;

#ifdef WAKEPLACE_TEST
/* Test builds only: pretend unregister_ftrace_function() failed. */
static bool test_detach_fail;
module_param(test_detach_fail, bool, 0644);
MODULE_PARM_DESC(test_detach_fail, "TEST BUILD: make detaching fail");
/* Test builds only: hold the attach work this long before it registers. */
static unsigned int test_attach_delay_ms;
module_param(test_attach_delay_ms, uint, 0644);
MODULE_PARM_DESC(test_attach_delay_ms, "TEST BUILD: delay each hook attach (ms)");
#endif

static unsigned int detach_ms = 5000;
module_param(detach_ms, uint, 0444);
MODULE_PARM_DESC(detach_ms, "Detach the hook this long (ms) after the last user left (default 5000)");

static unsigned int attach_wait_ms = 100;
module_param(attach_wait_ms, uint, 0644);
MODULE_PARM_DESC(attach_wait_ms, "A policy or shadow write waits this long (ms) for the hook to attach before it returns with the attach in flight (default 100)");

/**
 * wp_hook_state() - the hook's state, one word for the hook file.
 *
 * Return: "attached", "attaching" (wanted: the attach in flight, or
 * failed and its consequence not yet drawn), "detaching" (the unregister
 * in flight) or "detached".
 */
const char *wp_hook_state(void)
{
	const char *s;

	spin_lock(&wp_hook_lock);
	if (wp_hook_on && !wp_hook_busy)
		s = "attached";
	else if (wp_hook_wanted)
		s = "attaching";	/* re-attaches after a detach in flight */
	else
		s = wp_hook_on ? "detaching" : "detached";
	spin_unlock(&wp_hook_lock);
	return s;
}

/**
 * wp_hook_attach_us() - how long the last attach's ftrace call took.
 *
 * Return: microseconds; 0 before the first attach.
 */
u64 wp_hook_attach_us(void)
{
	return READ_ONCE(wp_hook_attach_ns) / NSEC_PER_USEC;
}

/**
 * wp_hook_lost() - did the last attach fail with the hook still wanted?
 *
 * For the work that reverts the slots (wp_hook_set_lost()): true while
 * the hook is not registered and its last attach failed, nobody having
 * asked again since.  A failure nobody waited for leaves the hook
 * wanted, and the hook file "attaching", until that work has put the
 * slots back, so that whoever waits for "attaching" to end then reads
 * the outcome.
 *
 * Return: true if the slots that want the hook must give it up.
 */
bool wp_hook_lost(void)
{
	bool lost;

	spin_lock(&wp_hook_lock);
	lost = !wp_hook_on && wp_hook_err;
	spin_unlock(&wp_hook_lock);
	return lost;
}

/**
 * wp_hook_set_lost() - the work that reverts the slots after an attach
 * failed.
 * @fn: the work function (switch.c); set before the hook can attach.
 */
void wp_hook_set_lost(work_func_t fn)
{
	INIT_WORK(&wp_hook_lost_work, fn);
}

static void wp_hook_set_on(bool on, bool busy)
{
	spin_lock(&wp_hook_lock);
	WRITE_ONCE(wp_hook_on, on);
	WRITE_ONCE(wp_hook_busy, busy);
	spin_unlock(&wp_hook_lock);
}

/*
 * Unregister.  If ftrace refuses, the callback stays live and points into
 * our text and data: pin the module so that it can never be freed, and
 * keep everything the callback reads.  A later detach that works unpins.
 */
static int wp_hook_detach_locked(void)
{
	int ret;

	lockdep_assert_held(&wp_hook_mutex);
	if (!wp_hook_on)
		return 0;
	wp_hook_set_on(true, true);
	ret = unregister_ftrace_function(&wp_ops);
#ifdef WAKEPLACE_TEST
	if (!ret && READ_ONCE(test_detach_fail)) {
		/* Put it back, so the module really is still attached. */
		ret = register_ftrace_function(&wp_ops);
		if (!ret)
			ret = -ENODEV;
	}
#endif
	if (ret) {
		wp_hook_set_on(true, false);
		if (!wp_hook_pinned) {
			__module_get(THIS_MODULE);
			wp_hook_pinned = true;
			pr_err("wakeplace: cannot detach from select_task_rq_fair (%d): the module stays loaded\n",
			       ret);
		}
		return ret;
	}
	wp_hook_set_on(false, false);
	if (wp_hook_pinned) {
		wp_hook_pinned = false;
		module_put(THIS_MODULE);
	}
	return 0;
}

/* Register, once wanted.  Its result goes to the waiting writer, if any. */
static void wp_hook_attach_locked(void)
{
	u64 t;
	int ret;

	lockdep_assert_held(&wp_hook_mutex);
#ifdef WAKEPLACE_TEST
	if (READ_ONCE(test_attach_delay_ms))
		msleep(READ_ONCE(test_attach_delay_ms));
#endif
	wp_hook_set_on(false, true);
	t = ktime_get_ns();
	ret = register_ftrace_function(&wp_ops);
	WRITE_ONCE(wp_hook_attach_ns, ktime_get_ns() - t);
	if (ret == -EBUSY)
		pr_err("wakeplace: select_task_rq_fair is already redirected by livepatch or another module (IPMODIFY busy)\n");
	else if (ret)
		pr_err("wakeplace: register_ftrace_function failed: %d\n", ret);
	spin_lock(&wp_hook_lock);
	WRITE_ONCE(wp_hook_busy, false);
	if (!ret)
		WRITE_ONCE(wp_hook_on, true);
	else
		WRITE_ONCE(wp_hook_err, ret);	/* still wanted: see the lost work */
	spin_unlock(&wp_hook_lock);
	wake_up_all(&wp_hook_waitq);
	/* Whoever still needs the hook must give it up: switch.c decides. */
	if (ret && !READ_ONCE(wp_hook_dead))
		schedule_work(&wp_hook_lost_work);
}

/*
 * Every register and unregister, in one work item (never two at once):
 * attach when wanted, detach when due (detach_ms after the last user
 * left; the want that cancels it queues the work at once instead).
 */
static void wp_hook_workfn(struct work_struct *work)
{
	bool want;

	mutex_lock(&wp_hook_mutex);
	spin_lock(&wp_hook_lock);
	want = wp_hook_wanted;
	spin_unlock(&wp_hook_lock);
	if (want && !wp_hook_on)
		wp_hook_attach_locked();
	else if (!want && wp_hook_on)
		wp_hook_detach_locked();
	mutex_unlock(&wp_hook_mutex);
}
static DECLARE_DELAYED_WORK(wp_hook_work, wp_hook_workfn);

/* For the waiting writer: attached, or the attach failed (no lock). */
static bool wp_hook_settled(void)
{
	return READ_ONCE(wp_hook_err) ||
	       (READ_ONCE(wp_hook_on) && !READ_ONCE(wp_hook_busy));
}

/**
 * wp_hook_want() - say whether a slot needs the redirect.
 * @on: true when a non-stock policy is active or a shadow is set.
 * @block: wait for the attach however long it takes (the load, which
 *	must fail whole if the hook cannot attach).
 *
 * Called under wp_mutex.  Otherwise attaching waits for the work at most
 * attach_wait_ms; past it the attach goes on after the return (the hook
 * file reads "attaching").  Detaching is deferred by detach_ms, so a
 * quick switch back finds the hook attached; nobody waits for it.
 *
 * Return: 0; -EBUSY (with one line) if another IPMODIFY user, such as a
 * livepatch, owns select_task_rq_fair; another errno from ftrace.  Either
 * only if the attach failed within the wait.
 */
int wp_hook_want(bool on, bool block)
{
	unsigned long wait;
	int err = 0;

	spin_lock(&wp_hook_lock);
	wp_hook_wanted = on;
	if (on)
		WRITE_ONCE(wp_hook_err, 0);	/* a new attempt */
	spin_unlock(&wp_hook_lock);
	if (READ_ONCE(wp_hook_dead))
		return on ? -ENODEV : 0;
	if (!on) {
		mod_delayed_work(system_highpri_wq, &wp_hook_work,
				 msecs_to_jiffies(READ_ONCE(detach_ms)));
		return 0;
	}
	/* Cancels a pending detach; re-attaches after one in flight. */
	mod_delayed_work(system_highpri_wq, &wp_hook_work, 0);
	wait = msecs_to_jiffies(READ_ONCE(attach_wait_ms));
	if (block)
		wait_event(wp_hook_waitq, wp_hook_settled());
	else if (wait)
		wait_event_timeout(wp_hook_waitq, wp_hook_settled(), wait);
	spin_lock(&wp_hook_lock);
	err = wp_hook_err;
	if (err)
		wp_hook_wanted = false;	/* refused: this writer gives it up */
	spin_unlock(&wp_hook_lock);
	return err;
}

/**
 * wp_hook_reset_slow() - empty @pol's window of slow picks.
 * @pol: a registered policy.
 *
 * A policy chosen again, or reverted, starts with no slow picks.
 */
void wp_hook_reset_slow(struct wakeplace_policy *pol)
{
	struct wp_slow_win *w = &wp_slow[wp_policy_index(pol)];

	WRITE_ONCE(w->base, atomic_read(&w->seq));
}

/*
 * The select_task_rq slot of scheduling class @cls: its address in *@addr,
 * its symbol in @sym (KSYM_SYMBOL_LEN).  Return: 1 if it is
 * select_task_rq_fair itself, 0 if something else, -EFAULT if unreadable.
 */
static int wp_class_places_fair(const void *cls, unsigned long *addr,
				char *sym)
{
	if (!cls || get_kernel_nofault(*addr, (unsigned long *)((char *)cls +
				wp_lay.class_select_task_rq)) || !*addr)
		return -EFAULT;
	sprint_symbol(sym, *addr);
	return !strncmp(sym, "select_task_rq_fair+0x0/", 24);
}

/**
 * wp_hook_check_loader() - refuse a load from a task CFS does not run.
 *
 * The load checks read the loading CPU's runqueue with the loading task
 * queued on it by CFS, and fair_sched_class is found through CFS tasks.
 * A loading task of another class (every task, when a sched_ext scheduler
 * runs in full mode; a real-time insmod) would fail them with a reason
 * that blames the layout: say what it is instead.
 *
 * Return: 0, or -EBUSY after one line naming the loading task's class.
 */
int wp_hook_check_loader(void)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long addr;

	/* Unreadable (the layout check, which runs next, says why) or CFS. */
	if (wp_class_places_fair(READ_ONCE(current->sched_class), &addr,
				 sym) != 0)
		return 0;
	sym[strcspn(sym, "+")] = '\0';
	pr_err("wakeplace: the loading task is not run by CFS (its class places with %s): load from an ordinary task, after any sched_ext scheduler that owns every task has stopped\n",
	       sym);
	return -EBUSY;
}

/* fair_sched_class, through any task that CFS schedules. */
static const void *wp_find_fair_class(void)
{
	const void *cls = NULL;
	struct task_struct *t;

	rcu_read_lock();
	for_each_process(t) {
		int pol = READ_ONCE(t->policy);

		if (pol == SCHED_NORMAL || pol == SCHED_BATCH) {
			cls = READ_ONCE(t->sched_class);
			break;
		}
	}
	rcu_read_unlock();
	return cls;
}

/**
 * wp_hook_init() - find select_task_rq_fair and set the ops' filter to
 * it.  Registers nothing: wp_hook_want() attaches when a slot needs it.
 *
 * Return: 0; -ENOENT if the function cannot be found or traced; other
 * errnos from ftrace.  Each failure prints one line.
 */
int wp_hook_init(void)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long addr;
	const void *cls;
	int ret;

	cls = wp_find_fair_class();
	if (!cls) {
		pr_err("wakeplace: no CFS task found to locate fair_sched_class\n");
		return -ENOENT;
	}
	ret = wp_class_places_fair(cls, &addr, sym);
	if (ret < 0) {
		pr_err("wakeplace: cannot read fair_sched_class.select_task_rq\n");
		return -ENOENT;
	}
	if (!ret) {
		pr_err("wakeplace: fair_sched_class.select_task_rq is %s, not select_task_rq_fair\n",
		       sym);
		return -ENOENT;
	}
	wp_orig = (wp_select_fn)addr;
	wp_fair_class = cls;

	ret = ftrace_set_filter_ip(&wp_ops, addr, 0, 0);
	if (ret) {
		pr_err("wakeplace: select_task_rq_fair cannot be traced (ftrace_set_filter_ip: %d)\n",
		       ret);
		return ret == -EINVAL ? -ENOENT : ret;
	}
	return 0;
}

/**
 * wp_hook_exit() - detach now, at unload, and drop the filter.
 *
 * unregister_ftrace_function() waits until no CPU is inside the callback
 * (it synchronizes RCU-tasks), so nothing can resume into wp_redirected()
 * or wp_stock_shadow() afterwards.  If it fails, the callback would point
 * into freed text once we return, and an exit cannot be refused: say so
 * and never return (the module and all it owns stay; rmmod hangs).
 */
void wp_hook_exit(void)
{
	int ret;

	/* The attach work may queue the lost work, which queues nothing. */
	WRITE_ONCE(wp_hook_dead, true);
	cancel_delayed_work_sync(&wp_hook_work);
	cancel_work_sync(&wp_hook_lost_work);
#ifdef WAKEPLACE_TEST
	/* Injected failures are for the deferred detach, not for unload. */
	WRITE_ONCE(test_detach_fail, false);
#endif
	mutex_lock(&wp_hook_mutex);
	spin_lock(&wp_hook_lock);
	wp_hook_wanted = false;
	spin_unlock(&wp_hook_lock);
	ret = wp_hook_detach_locked();
	mutex_unlock(&wp_hook_mutex);
	if (ret) {
		pr_err("wakeplace: select_task_rq_fair still calls into the module (%d): unload blocked for good\n",
		       ret);
		for (;;)
			schedule_timeout_idle(MAX_SCHEDULE_TIMEOUT);
	}
	ftrace_set_filter_ip(&wp_ops, (unsigned long)wp_orig, 1, 0);
}
