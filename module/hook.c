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
#include <linux/workqueue.h>
#include "hook.h"
#include "fair.h"
#include "stats.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

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

struct wakeplace_policy __rcu *wp_active;
struct wakeplace_policy __rcu *wp_shadow;

typedef int (*wp_select_fn)(struct task_struct *p, int prev, int flags);
static wp_select_fn wp_orig __read_mostly;

unsigned int wp_sample_period __read_mostly = 64;

static unsigned int slow_us = 20000;
module_param(slow_us, uint, 0644);
MODULE_PARM_DESC(slow_us, "A timed pick longer than this (us) counts as slow (default 20000)");
static unsigned int slow_max = 16;
module_param(slow_max, uint, 0644);
MODULE_PARM_DESC(slow_max, "Revert to stock after this many slow picks (default 16, 0: never)");

static atomic_t wp_slow_run = ATOMIC_INIT(0);
int wp_tripped;

#ifdef WAKEPLACE_TEST
/* Test builds only: make the active policy misbehave on purpose. */
static char *test_fault = "";
module_param(test_fault, charp, 0644);
MODULE_PARM_DESC(test_fault, "TEST BUILD: bad_cpu | slow | \"\"");
#endif

static notrace void wp_trip(const char *why)
{
	if (!cmpxchg(&wp_tripped, 0, 1))
		wp_request_revert(why);
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

	s->v[WP_ST_SHADOW_CMP]++;
	if (scpu == cpu)
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

static notrace bool wp_pick_ok(struct task_struct *p, int cpu)
{
	return (unsigned int)cpu < nr_cpu_ids &&
	       cpumask_test_cpu(cpu, p->cpus_ptr) && cpu_active(cpu);
}

static notrace void wp_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	struct wp_pcpu *pc = this_cpu_ptr(&wp_pcpu);
	struct wakeplace_policy *pol, *sh;
	struct task_struct *p;
	struct wp_wakeup w;
	int prev, flags, cpu, scpu = WP_HANDBACK;
	bool timed = false;
	u64 t0 = 0, cost = 0;

	if (pc->bypass)
		return;
	wp_count(WP_C_CALLS);
	flags = (int)wp_fregs_arg(fregs, 2);
	if (!(flags & WP_WF_TTWU))
		return;
	wp_count(WP_C_WAKEUPS);
	if (READ_ONCE(wp_tripped))
		return;

	p = (struct task_struct *)wp_fregs_arg(fregs, 0);
	prev = (int)wp_fregs_arg(fregs, 1);
	pol = rcu_dereference_sched(wp_active);
	sh = rcu_dereference_sched(wp_shadow);
	if (!pol)
		return;

	if (!pol->select_cpu) {
		if (!sh || !sh->select_cpu)
			return;
		pc->shadow_pol = sh;
		pc->shadow_cpu = wp_shadow_pick(sh, p, prev, flags);
		pc->stash_p = p;
		wp_fregs_set_ip(fregs, (unsigned long)wp_stock_shadow);
		return;
	}

	/* The shadow first: it must see the state the active pick changes. */
	if (sh && sh != pol)
		scpu = wp_shadow_pick(sh, p, prev, flags);

	if (++pc->sample >= READ_ONCE(wp_sample_period)) {
		pc->sample = 0;
		timed = true;
		t0 = local_clock();
	}

	w = (struct wp_wakeup){
		.p = p, .prev = prev, .wake_flags = flags,
		.outcome = WP_OUT_HANDBACK,
	};
	cpu = wp_place(pol, &w);

#ifdef WAKEPLACE_TEST
	if (cpu >= 0 && !strcmp(test_fault, "bad_cpu"))
		cpu = nr_cpu_ids + 1;
	if (timed && !strcmp(test_fault, "slow"))
		udelay(slow_us + 100);
#endif
	if (timed) {
		cost = local_clock() - t0;
		if (cost > (u64)READ_ONCE(slow_us) * NSEC_PER_USEC) {
			wp_count(WP_C_SLOW);
			if (slow_max && atomic_inc_return(&wp_slow_run) >=
					READ_ONCE(slow_max))
				wp_trip("picks too slow");
		}
	}

	if (cpu == WP_HANDBACK) {
		w.outcome = WP_OUT_HANDBACK;
		wp_count(WP_C_HANDED_BACK);
		wp_account(pol, &w, -1, cost, timed);
		return;
	}
	if (unlikely(!wp_pick_ok(p, cpu))) {
		wp_count(WP_C_CORRECTED);
		wp_trip("pick outside the allowed or active CPUs");
		return;
	}
	wp_account(pol, &w, cpu, cost, timed);
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
 * livepatch.  Detaching waits for RCU-tasks, which can take seconds under
 * load: it runs from a delayed work, cancelled when the hook is wanted
 * again before it ran.  wp_hook_mutex orders the two, never wp_mutex
 * (a switch holding wp_mutex waits for a running detach).
 */
static DEFINE_MUTEX(wp_hook_mutex);
static bool wp_hook_on;		/* registered */
static bool wp_hook_wanted;	/* a slot needs it */
static bool wp_hook_pinned;	/* a detach failed: we hold our own module */

#ifdef WAKEPLACE_TEST
/* Test builds only: pretend unregister_ftrace_function() failed. */
static bool test_detach_fail;
module_param(test_detach_fail, bool, 0644);
MODULE_PARM_DESC(test_detach_fail, "TEST BUILD: make detaching fail");
#endif

static unsigned int detach_ms = 5000;
module_param(detach_ms, uint, 0444);
MODULE_PARM_DESC(detach_ms, "Detach the hook this long (ms) after the last user left (default 5000)");

/**
 * wp_hook_attached() - is the ftrace_ops registered?
 *
 * Return: true while select_task_rq_fair is redirected through us.
 */
bool wp_hook_attached(void)
{
	return READ_ONCE(wp_hook_on);
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
		if (!wp_hook_pinned) {
			__module_get(THIS_MODULE);
			wp_hook_pinned = true;
			pr_err("wakeplace: cannot detach from select_task_rq_fair (%d): the module stays loaded\n",
			       ret);
		}
		return ret;
	}
	WRITE_ONCE(wp_hook_on, false);
	if (wp_hook_pinned) {
		wp_hook_pinned = false;
		module_put(THIS_MODULE);
	}
	return 0;
}

static void wp_detach_workfn(struct work_struct *work)
{
	mutex_lock(&wp_hook_mutex);
	if (!wp_hook_wanted)
		wp_hook_detach_locked();
	mutex_unlock(&wp_hook_mutex);
}
static DECLARE_DELAYED_WORK(wp_detach_work, wp_detach_workfn);

/**
 * wp_hook_want() - say whether a slot needs the redirect.
 * @on: true when a non-stock policy is active or a shadow is set.
 *
 * Attaching registers the ftrace_ops now; detaching is deferred by
 * detach_ms, so a quick switch back finds it still attached.
 *
 * Return: 0; -EBUSY (with one line) if another IPMODIFY user, such as a
 * livepatch, owns select_task_rq_fair; another errno from ftrace.
 */
int wp_hook_want(bool on)
{
	int ret = 0;

	mutex_lock(&wp_hook_mutex);
	wp_hook_wanted = on;
	if (!on) {
		mod_delayed_work(system_wq, &wp_detach_work,
				 msecs_to_jiffies(READ_ONCE(detach_ms)));
		goto out;
	}
	cancel_delayed_work(&wp_detach_work);
	if (wp_hook_on)
		goto out;
	ret = register_ftrace_function(&wp_ops);
	if (ret) {
		wp_hook_wanted = false;
		if (ret == -EBUSY)
			pr_err("wakeplace: select_task_rq_fair is already redirected by livepatch or another module (IPMODIFY busy)\n");
		else
			pr_err("wakeplace: register_ftrace_function failed: %d\n",
			       ret);
		goto out;
	}
	WRITE_ONCE(wp_hook_on, true);
out:
	mutex_unlock(&wp_hook_mutex);
	return ret;
}

void wp_hook_reset_slow(void)
{
	atomic_set(&wp_slow_run, 0);
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
	if (get_kernel_nofault(addr, (unsigned long *)((char *)cls +
				wp_lay.class_select_task_rq)) || !addr) {
		pr_err("wakeplace: cannot read fair_sched_class.select_task_rq\n");
		return -ENOENT;
	}
	sprint_symbol(sym, addr);
	if (strncmp(sym, "select_task_rq_fair+0x0/", 24)) {
		pr_err("wakeplace: fair_sched_class.select_task_rq is %s, not select_task_rq_fair\n",
		       sym);
		return -ENOENT;
	}
	wp_orig = (wp_select_fn)addr;

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

	cancel_delayed_work_sync(&wp_detach_work);
#ifdef WAKEPLACE_TEST
	/* Injected failures are for the deferred detach, not for unload. */
	WRITE_ONCE(test_detach_fail, false);
#endif
	mutex_lock(&wp_hook_mutex);
	wp_hook_wanted = false;
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
