// SPDX-License-Identifier: GPL-2.0
/*
 * Per-LLC idle state, maintained from the sched_switch tracepoint (a CPU
 * switching to its idle task sets its bit unless a wakee is already
 * pending there, switching away clears it) and from power:cpu_idle (an
 * idle CPU whose bit is clear becomes visible again on its next idle
 * entry, unless a waker claimed it less than WP_CLAIM_HOLD ago: its wakee
 * is on its way).  A waker claims a bit, then re-checks the runqueue and
 * gives the bit back if the CPU is idle but its vCPU preempted
 * (wp_claim_check()).  Each bit is tested before it is written, so the
 * shared line is dirtied only on real transitions.
 *
 * The state is built for the LLCs that exist and replaced as a whole (RCU)
 * when the topology changes: CPU hotplug, or sched domains rebuilt by
 * cpusets, which picks notice as a target whose LLC domain no longer spans
 * the CPUs its state was built with (wp_llc_of()).
 *
 * It exists while a policy that needs it is active or shadowed, and a few
 * seconds after (a quick switch back finds it running).  It is started and
 * stopped by one work item, never by the writer of a switch: starting it
 * waits for the CPU hotplug lock (tracepoint static keys, the hotplug
 * callbacks, the build), which CPU hotplug can hold for seconds.  Until
 * the first state is published, picks find none and hand back (counted
 * as unbuilt).  Its sched_switch
 * probe also passes every switch to the policies' context_switch hooks
 * (wp_policies_context_switch()); what they keep is theirs.
 */
#include <linux/cpuhotplug.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include "registry.h"
#include "fair.h"
#include "idle.h"
#include "coremask.h"
#include "stats.h"

struct wp_idle_state __rcu *wp_idle_st;

/*
 * wp_idle_lock guards the users count and is never held across a wait: it
 * is all a switch takes.  wp_idle_mutex serialises the state's
 * publication (the start, the rebuild work, the teardown).
 */
static DEFINE_SPINLOCK(wp_idle_lock);
static DEFINE_MUTEX(wp_idle_mutex);
static unsigned int wp_idle_users;
/* Probes, callbacks and state running: changed only by wp_idle_work. */
static bool wp_idle_up;
/* Rebuilds allowed (under wp_idle_mutex): between start and teardown. */
static bool wp_idle_live;
static unsigned long wp_rebuild_pending;
static struct tracepoint *wp_tp_switch, *wp_tp_cpu_idle;
static bool wp_on_switch, wp_on_cpu_idle;
static enum cpuhp_state wp_cpuhp_state;
/* When the first user asked, and how long until its state was published. */
static u64 wp_idle_asked_ns, wp_idle_build_ns;

/*
 * How long the state outlives its last user: long enough that switching
 * through other policies and back (a storm, an A/B run) does not restart
 * it, which waits for the CPU hotplug lock and patches tracepoints, and
 * picks hand back until it is built.
 */
#define WP_IDLE_LINGER_MS 10000

/*
 * Jiffies after a claim during which the cpu_idle probe leaves the CPU's
 * bit clear: the waker's enqueue follows its claim within microseconds,
 * but the hooked path (claim, return through the hook, ttwu) is longer
 * than the kernel's, and an idle CPU passing through its idle loop then
 * would hand itself to a second waker.  A jiffy stamp costs one store per
 * claim; the sched_switch marks are not held.
 */
#define WP_CLAIM_HOLD 1

/*
 * A wakee is on its way to the CPU: set by a waker that claimed it or
 * fell back to it (wp_mask_fallback()), cleared by the CPU's next context
 * switch.  Per CPU on its own line: remote wakers write it, its own CPU
 * reads it at each switch.
 */
static DEFINE_PER_CPU_SHARED_ALIGNED(int, wp_inbound);

static __always_inline void wp_inbound_set(int cpu)
{
	if (!READ_ONCE(per_cpu(wp_inbound, cpu)))
		WRITE_ONCE(per_cpu(wp_inbound, cpu), 1);
}

#ifdef WAKEPLACE_TEST
/*
 * Test builds only: a CPU taken for one whose vCPU is preempted.  Claim
 * re-checks see it so, and its idle entries re-mark nothing, since a
 * preempted vCPU runs no idle loop: only a give-back or a switch to idle
 * marks it (TCG has no preempted vCPUs to test that with).
 */
static int wp_test_preempted = -1;
module_param_named(test_preempted_cpu, wp_test_preempted, int, 0644);
MODULE_PARM_DESC(test_preempted_cpu, "TEST BUILD: idle-mask re-checks see this CPU's vCPU as preempted, its idle entries re-mark nothing (-1: none)");

static __always_inline bool wp_test_preempted_cpu(int cpu)
{
	return cpu == READ_ONCE(wp_test_preempted);
}

/*
 * Test builds only: set to 1, the next start of the idle state waits with
 * the CPU hotplug lock held, as it would behind a long hotplug, and says
 * so by setting it to 2, until it is set to 0 (at most 300 s).  A switch
 * must complete meanwhile, its picks handing back as unbuilt.
 */
static int wp_test_hold_start;
module_param_named(test_hold_idle_start, wp_test_hold_start, int, 0644);
MODULE_PARM_DESC(test_hold_idle_start, "TEST BUILD: 1: the idle state's next start holds the CPU hotplug lock (reads 2 meanwhile) until this is 0 (at most 300 s)");

static void wp_test_hold(void)
{
	int i;

	if (cmpxchg(&wp_test_hold_start, 1, 2) != 1)
		return;
	for (i = 0; i < 3000 && READ_ONCE(wp_test_hold_start); i++)
		msleep(100);
	WRITE_ONCE(wp_test_hold_start, 0);
}
#else
static void wp_test_hold(void) { }

static __always_inline bool wp_test_preempted_cpu(int cpu)
{
	return false;
}
#endif

/*
 * Only the idle bits are kept: a core is idle when the idle bits of all its
 * SMT siblings are set (wp_core_idle(), in whatever words they are), so
 * there is no second mask to update apart from the first, and a core reads
 * idle only from its siblings' own bits.
 */
static notrace void wp_mark_idle(struct wp_llc *llc, int cpu)
{
	if (!test_bit(cpu, llc->idle))
		set_bit(cpu, llc->idle);
}

static notrace void wp_mark_busy(struct wp_llc *llc, int cpu)
{
	if (test_bit(cpu, llc->idle))
		clear_bit(cpu, llc->idle);
}

static notrace struct wp_llc *wp_llc_raw(int cpu)
{
	struct wp_idle_state *st = rcu_dereference_sched(wp_idle_st);
	int i;

	if (!st)
		return NULL;
	i = st->llc_of[cpu];
	return i < 0 ? NULL : &st->llc[i];
}

/*
 * A switch to idle with a wakee already pending on the wake list does not
 * mark the CPU: the wakee's enqueue and switch follow, and a waker reading
 * the bit meanwhile would only find it stale.  Should the wakee go
 * elsewhere after all, the cpu_idle probe marks the CPU when it idles.
 */
static notrace void wp_probe_switch(void *data, bool preempt,
				    struct task_struct *prev,
				    struct task_struct *next,
				    unsigned int prev_state)
{
	int cpu = smp_processor_id();
	struct wp_llc *llc = wp_llc_raw(cpu);

	wp_test_count(WP_C_PROBE_HITS);
	if (__this_cpu_read(wp_inbound))
		__this_cpu_write(wp_inbound, 0);
	if (llc) {
		if (!is_idle_task(next)) {
			if (is_idle_task(prev))
				wp_mark_busy(llc, cpu);
		} else if (wp_rq_pending(wp_rq(cpu))) {
			wp_count(WP_C_IDLE_PENDING);
		} else {
			wp_mark_idle(llc, cpu);
		}
	}
	/* The one sched_switch probe: the policies' observers run from it. */
	wp_policies_context_switch(preempt, prev, next, prev_state);
}

static notrace void wp_probe_cpu_idle(void *data, unsigned int state,
				      unsigned int cpu)
{
	struct wp_llc *llc;

	wp_test_count(WP_C_PROBE_HITS);
	/* (unsigned int)-1 is PWR_EVENT_EXIT: leaving idle. */
	if (state == (unsigned int)-1 || cpu != smp_processor_id())
		return;
	llc = wp_llc_raw(cpu);
	if (!llc || test_bit(cpu, llc->idle) || wp_test_preempted_cpu(cpu))
		return;
	if (time_before_eq(jiffies,
			   READ_ONCE(llc->claimed[cpu]) + WP_CLAIM_HOLD)) {
		wp_count(WP_C_REMARK_HELD);
		return;
	}
	if (wp_rq_idle(wp_rq(cpu)))
		wp_mark_idle(llc, cpu);
}

static void wp_state_free(struct wp_idle_state *st)
{
	int i;

	if (!st)
		return;
	for (i = 0; i < st->nr_llc; i++) {
		kfree(st->llc[i].idle);
		bitmap_free(st->llc[i].span);
	}
	kfree(st->claimed);
	kfree(st->llc_of);
	kfree(st);
}

/* @sz bytes alone on their cache line(s). */
static void *wp_line_alloc(size_t sz)
{
	return kzalloc(ALIGN(max_t(size_t, sz, L1_CACHE_BYTES),
			     L1_CACHE_BYTES), GFP_KERNEL);
}

/* A bitmap of nr_cpu_ids bits alone on its cache line(s). */
static unsigned long *wp_line_bitmap(void)
{
	return wp_line_alloc(BITS_TO_LONGS(nr_cpu_ids) * sizeof(long));
}

/*
 * Build the state for the LLCs as the kernel has them now.  The domains
 * are read once, in one RCU-sched read side (a cpuset rebuild frees them
 * after a grace period; wp_sd_llc() is rcu_dereference_sched()), into
 * @key: each online CPU's LLC key; the allocations follow outside it.
 */
static struct wp_idle_state *wp_state_build(void)
{
	struct wp_idle_state *st;
	int cpu, i, n = 0;
	int *ids, *key;

	ids = kcalloc(2 * nr_cpu_ids, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return NULL;
	key = ids + nr_cpu_ids;
	rcu_read_lock_sched();
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		key[cpu] = cpu_online(cpu) ? wp_llc_key(cpu) : -1;
	rcu_read_unlock_sched();
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (key[cpu] < 0)
			continue;
		for (i = 0; i < n && ids[i] != key[cpu]; i++)
			;
		if (i == n)
			ids[n++] = key[cpu];
	}
	st = kzalloc(struct_size(st, llc, n), GFP_KERNEL);
	if (!st)
		goto out;
	st->nr_llc = n;
	st->llc_of = kcalloc(nr_cpu_ids, sizeof(int), GFP_KERNEL);
	if (!st->llc_of)
		goto fail;
	/* Claim stamps start old enough to hold nothing. */
	st->claimed = wp_line_alloc(nr_cpu_ids * sizeof(long));
	if (!st->claimed)
		goto fail;
	for (i = 0; i < nr_cpu_ids; i++) {
		st->llc_of[i] = -1;
		st->claimed[i] = jiffies - WP_CLAIM_HOLD - 1;
	}
	for (i = 0; i < n; i++) {
		st->llc[i].id = ids[i];
		st->llc[i].claimed = st->claimed;
		st->llc[i].idle = wp_line_bitmap();
		st->llc[i].span = bitmap_zalloc(nr_cpu_ids, GFP_KERNEL);
		if (!st->llc[i].idle || !st->llc[i].span)
			goto fail;
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (key[cpu] < 0)
			continue;
		for (i = 0; ids[i] != key[cpu]; i++)
			;
		st->llc_of[cpu] = i;
		set_bit(cpu, st->llc[i].span);
		st->llc[i].weight++;
	}
out:
	kfree(ids);
	return st;
fail:
	wp_state_free(st);
	st = NULL;
	goto out;
}

static void wp_state_free_rcu(struct rcu_head *rcu)
{
	wp_state_free(container_of(rcu, struct wp_idle_state, rcu));
}

/*
 * Seed a published @st from the runqueues.  Only after publishing: a CPU
 * that goes idle while this runs marks itself in @st (the probes read
 * wp_idle_st), where seeding first would leave it hidden, marked in the
 * old state only, until its next pass through the idle loop (seconds on
 * a NOHZ CPU).  A CPU read idle that is busy by the time its bit is set
 * is stale, found on the first claim's re-check.
 */
static void wp_state_seed(struct wp_idle_state *st)
{
	int cpu;

	preempt_disable();
	for_each_online_cpu(cpu)
		if (st->llc_of[cpu] >= 0 && wp_rq_idle(wp_rq(cpu)))
			wp_mark_idle(&st->llc[st->llc_of[cpu]], cpu);
	preempt_enable();
}

/*
 * Build and publish a new state, then seed it; the old one is freed after
 * a grace period by RCU.  Called with wp_idle_mutex and the CPU hotplug
 * lock held (the online mask stays as built until the callbacks see the
 * next change).
 */
static int wp_state_replace_cpuslocked(void)
{
	struct wp_idle_state *st, *old;

	st = wp_state_build();
	if (!st)
		return -ENOMEM;
	old = rcu_dereference_protected(wp_idle_st,
					lockdep_is_held(&wp_idle_mutex));
	rcu_assign_pointer(wp_idle_st, st);
	wp_state_seed(st);
	this_cpu_inc(wp_counters.c[WP_C_REBUILDS]);
	if (old)
		call_rcu(&old->rcu, wp_state_free_rcu);
	return 0;
}

static int wp_state_replace(void)
{
	int ret;

	cpus_read_lock();
	ret = wp_state_replace_cpuslocked();
	cpus_read_unlock();
	return ret;
}

static void wp_rebuild_workfn(struct work_struct *work)
{
	mutex_lock(&wp_idle_mutex);
	clear_bit(0, &wp_rebuild_pending);
	if (wp_idle_live)
		wp_state_replace();
	mutex_unlock(&wp_idle_mutex);
}
static DECLARE_WORK(wp_rebuild_work, wp_rebuild_workfn);

static void wp_rebuild_irq(struct irq_work *iw)
{
	queue_work(system_unbound_wq, &wp_rebuild_work);
}
static DEFINE_IRQ_WORK(wp_rebuild_iw, wp_rebuild_irq);

/**
 * wp_idle_request_rebuild() - ask for the state to be rebuilt.  Safe from
 * the wakeup path (IRQs off, scheduler locks held): an irq_work queues the
 * work.  Requests while one is pending are merged.  A dying CPU asks
 * nothing (wp_irq_work_ok()): its offline callback asked already, and
 * picks on the CPUs that stay ask again while the state is stale.
 */
notrace void wp_idle_request_rebuild(void)
{
	if (wp_irq_work_ok() && !test_and_set_bit(0, &wp_rebuild_pending))
		irq_work_queue(&wp_rebuild_iw);
}

static int wp_cpu_online(unsigned int cpu)
{
	wp_idle_request_rebuild();
	return 0;
}

/* Runs on the outgoing CPU: hide it at once, then rebuild. */
static int wp_cpu_offline(unsigned int cpu)
{
	struct wp_llc *llc;

	preempt_disable();
	llc = wp_llc_raw(cpu);
	if (llc)
		wp_mark_busy(llc, cpu);
	preempt_enable();
	wp_idle_request_rebuild();
	return 0;
}

static void wp_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		wp_tp_switch = tp;
	else if (!strcmp(tp->name, "cpu_idle"))
		wp_tp_cpu_idle = tp;
}

static void wp_idle_teardown(void)
{
	struct wp_idle_state *st;

	mutex_lock(&wp_idle_mutex);
	wp_idle_live = false;
	mutex_unlock(&wp_idle_mutex);
	if (wp_cpuhp_state > 0)
		cpuhp_remove_state_nocalls(wp_cpuhp_state);
	wp_cpuhp_state = 0;
	if (wp_on_cpu_idle)
		tracepoint_probe_unregister(wp_tp_cpu_idle,
					    wp_probe_cpu_idle, NULL);
	if (wp_on_switch)
		tracepoint_probe_unregister(wp_tp_switch, wp_probe_switch, NULL);
	wp_on_cpu_idle = wp_on_switch = false;
	tracepoint_synchronize_unregister();

	/*
	 * Unpublish, and let the grace period pass before the requests are
	 * stopped: a pick that still sees the state may ask for a rebuild,
	 * none that finds it gone does.
	 */
	mutex_lock(&wp_idle_mutex);
	st = rcu_dereference_protected(wp_idle_st,
				       lockdep_is_held(&wp_idle_mutex));
	RCU_INIT_POINTER(wp_idle_st, NULL);
	mutex_unlock(&wp_idle_mutex);
	synchronize_rcu();
	irq_work_sync(&wp_rebuild_iw);
	cancel_work_sync(&wp_rebuild_work);
	clear_bit(0, &wp_rebuild_pending);
	wp_state_free(st);
}

/*
 * Start: the probes first (they skip CPUs while there is no state), then
 * one hotplug-locked section for the callbacks and the first build,
 * seeded from the runqueues now that the probes track transitions.
 */
static int wp_idle_start(void)
{
	int ret;

	ret = tracepoint_probe_register(wp_tp_switch, wp_probe_switch, NULL);
	if (ret)
		return ret;
	wp_on_switch = true;
	ret = tracepoint_probe_register(wp_tp_cpu_idle, wp_probe_cpu_idle,
					NULL);
	if (ret)
		return ret;
	wp_on_cpu_idle = true;
	mutex_lock(&wp_idle_mutex);
	cpus_read_lock();
	wp_test_hold();
	ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN,
						   "wakeplace:online",
						   wp_cpu_online,
						   wp_cpu_offline);
	if (ret >= 0) {
		wp_cpuhp_state = ret;
		ret = wp_state_replace_cpuslocked();
	}
	if (!ret)
		wp_idle_live = true;
	cpus_read_unlock();
	mutex_unlock(&wp_idle_mutex);
	return ret;
}

/*
 * The one place the state is started and stopped, so that the two never
 * overlap and no switch waits for either: brings it to what the users
 * count wants now.  A switch that changes that count meanwhile queues it
 * again.
 */
static void wp_idle_workfn(struct work_struct *work)
{
	bool want;
	int ret;

	spin_lock(&wp_idle_lock);
	want = wp_idle_users > 0;
	spin_unlock(&wp_idle_lock);
	if (want == wp_idle_up)
		return;
	if (!want) {
		wp_idle_teardown();
		wp_idle_up = false;
		return;
	}
	ret = wp_idle_start();
	if (ret) {
		/* Picks keep handing back; the next first user tries again. */
		pr_warn("wakeplace: idle state failed to start: %d\n", ret);
		wp_idle_teardown();
		return;
	}
	wp_idle_up = true;
	WRITE_ONCE(wp_idle_build_ns,
		   ktime_get_ns() - READ_ONCE(wp_idle_asked_ns));
}
static DECLARE_DELAYED_WORK(wp_idle_work, wp_idle_workfn);

/**
 * wp_idle_get() - the idle state is wanted (first user) or wanted by one
 * more.  Called from a policy switch: takes a spinlock and queues the
 * start, nothing that waits for CPU hotplug; picks hand back until the
 * state is built.
 *
 * Return: 0, or -ENOENT if a tracepoint it needs is missing.
 */
int wp_idle_get(void)
{
	/* Found once; tracepoints of the core kernel do not go away. */
	if (!READ_ONCE(wp_tp_switch) || !READ_ONCE(wp_tp_cpu_idle))
		for_each_kernel_tracepoint(wp_find_tp, NULL);
	if (!wp_tp_switch || !wp_tp_cpu_idle) {
		pr_err("wakeplace: tracepoint sched_switch or cpu_idle not found\n");
		return -ENOENT;
	}
	spin_lock(&wp_idle_lock);
	if (!wp_idle_users++) {
		WRITE_ONCE(wp_idle_asked_ns, ktime_get_ns());
		/* Cancels a pending teardown; starts it if it is not up. */
		mod_delayed_work(system_unbound_wq, &wp_idle_work, 0);
	}
	spin_unlock(&wp_idle_lock);
	return 0;
}

/**
 * wp_idle_put() - drop a reference.  After the last one the probes are
 * stopped and the state freed WP_IDLE_LINGER_MS later, by the work item
 * (it waits for tracepoint and RCU grace periods and for CPU hotplug); a
 * policy that comes back meanwhile finds the state still running.
 */
void wp_idle_put(void)
{
	spin_lock(&wp_idle_lock);
	if (!--wp_idle_users)
		mod_delayed_work(system_unbound_wq, &wp_idle_work,
				 msecs_to_jiffies(WP_IDLE_LINGER_MS));
	spin_unlock(&wp_idle_lock);
}

/**
 * wp_idle_flush() - at unload, after the last wp_idle_put(): run a
 * pending teardown now and wait for it.
 */
void wp_idle_flush(void)
{
	mod_delayed_work(system_unbound_wq, &wp_idle_work, 0);
	flush_delayed_work(&wp_idle_work);
	rcu_barrier();		/* states replaced by call_rcu() */
}

/**
 * wp_idle_build_us() - how long the last start took, from its first
 * user's request to the state published (the writer does not wait for it).
 *
 * Return: microseconds.
 */
u64 wp_idle_build_us(void)
{
	return READ_ONCE(wp_idle_build_ns) / NSEC_PER_USEC;
}

#ifdef WAKEPLACE_TEST
/*
 * Test builds only: how often a bit a waker found set was wrong, read
 * apart from the claim's re-check (and not counted as a remote line).
 */
static notrace void wp_audit(int cpu)
{
	enum wp_rq_why why = wp_cpu_state(cpu);

	wp_count(WP_C_AUDITED);
	if (why == WP_RQ_PENDING || why == WP_RQ_RUNNING)
		wp_count(WP_C_FALSE_BUSY);
}
#else
static __always_inline void wp_audit(int cpu) { }
#endif

/* wp_cpu_state(), and preempted for test_preempted_cpu (test builds). */
static __always_inline enum wp_rq_why wp_claim_state(int cpu)
{
	enum wp_rq_why why = wp_cpu_state(cpu);

	if (why == WP_RQ_IDLE && wp_test_preempted_cpu(cpu))
		return WP_RQ_PREEMPTED;
	return why;
}

/*
 * Claim @cpu, whose bit @w found set (@held: the caller's whole-core claim
 * cleared it already; a shadow claims nothing), then re-check its
 * runqueue, since the mask is a hint.  A claim that fails the re-check
 * keeps the bit clear when the CPU runs something or has a wakee pending
 * (its switches will mark it), and gives it back when the CPU is idle but
 * its vCPU preempted: nothing would mark it before its next idle entry.
 * Stale candidates are counted by cause.
 */
static notrace bool wp_claim_check(struct wp_wakeup *w, struct wp_llc *llc,
				   int cpu, bool held)
{
	enum wp_rq_why why;

	if (!w->shadow) {
		wp_audit(cpu);
		if (!held && !test_and_clear_bit(cpu, llc->idle)) {
			w->claim_lost++;
			return false;
		}
		/* Before the re-check: the hold starts as soon as it can. */
		WRITE_ONCE(llc->claimed[cpu], jiffies);
		wp_inbound_set(cpu);
	}
	if (likely(cpu_active(cpu))) {
		wp_touch(w, cpu);
		why = wp_claim_state(cpu);
	} else {
		why = WP_RQ_RUNNING;	/* going offline: keep it hidden */
	}
	switch (why) {
	case WP_RQ_IDLE:
		return true;
	case WP_RQ_PENDING:
		w->stale_pending++;
		break;
	case WP_RQ_RUNNING:
		w->stale_running++;
		break;
	case WP_RQ_PREEMPTED:
		w->stale_preempted++;
		if (!w->shadow)
			set_bit(cpu, llc->idle);
		break;
	}
	w->stale_hint++;
	return false;
}

/**
 * wp_mask_try() - take @cpu if the mask says it is idle.
 * @w: the wakeup.
 * @llc: @cpu's LLC state.
 * @cpu: the candidate.
 *
 * Reads @cpu's runqueue only when its bit is set: claims the bit (a shadow
 * only tests it), then re-checks the runqueue (wp_claim_check()).
 *
 * Return: true if @cpu is idle, allowed and now ours.
 */
notrace bool wp_mask_try(struct wp_wakeup *w, struct wp_llc *llc, int cpu)
{
	if (!test_bit(cpu, llc->idle) ||
	    !cpumask_test_cpu(cpu, w->p->cpus_ptr))
		return false;
	return wp_claim_check(w, llc, cpu, false);
}

/*
 * A whole idle core with @cpu in it, claimed as a whole (wp_core_claim()):
 * @cpu's bit is cleared only while every sibling's bit is set, whatever
 * words they are in.  One waker wins, and afterwards the core no longer
 * reads idle to anyone, while its idle siblings stay available to idle-CPU
 * searches.  Then @cpu's runqueue is re-checked (wp_claim_check()).  A
 * shadow claims nothing.
 */
static notrace bool wp_core_try(struct wp_wakeup *w, struct wp_llc *llc,
				int cpu)
{
	unsigned int busy;

	if (!wp_core_idle(llc, cpu) || !cpumask_test_cpu(cpu, w->p->cpus_ptr))
		return false;
	if (!w->shadow) {
		if (!wp_core_claim(llc, cpu, &busy)) {
			w->claim_lost++;
			return false;
		}
		wp_count(WP_C_CORE_CLAIMS);
		/* What the claim saw of the siblings: never busy (see there). */
		if (unlikely(busy))
			wp_count(WP_C_CORE_CLAIM_BUSY);
	}
	return wp_claim_check(w, llc, cpu, true);
}

/**
 * wp_mask_pick() - the first CPU of the idle mask in p->cpus_ptr from
 * @from, wrapping, that can be claimed and is idle on re-check.
 * @w: the wakeup.
 * @llc: the LLC state.
 * @core: only CPUs whose whole core is idle, claimed whole.
 * @from: where the search starts.
 * @tries: at most this many candidates are claimed and re-checked.
 *
 * Return: the CPU, or -1.
 */
notrace int wp_mask_pick(struct wp_wakeup *w, struct wp_llc *llc, bool core,
			 int from, int tries)
{
	struct cpumask *cpus = wp_scratch_mask();
	int cpu;

	cpumask_and(cpus, to_cpumask(llc->idle), w->p->cpus_ptr);
	for_each_cpu_wrap(cpu, cpus, from) {
		if (core && !wp_core_idle(llc, cpu))
			continue;
		if (tries-- <= 0)
			break;
		w->scanned++;
		if (core ? wp_core_try(w, llc, cpu) : wp_mask_try(w, llc, cpu))
			return cpu;
	}
	return -1;
}

/**
 * wp_mask_search() - target, then prev if it shares target's cache, then
 * wp_mask_pick() from target: the first idle CPU (or, with @core, CPU of
 * a whole idle core) that can be claimed and is idle on re-check.  Sets
 * @w->outcome when it finds one.
 * @w: the wakeup.
 * @llc: target's LLC state.
 * @core: a whole idle core, claimed whole (wp_core_try()).
 * @tries: at most this many candidates for the mask walk.
 *
 * Return: the CPU, or -1.
 */
notrace int wp_mask_search(struct wp_wakeup *w, struct wp_llc *llc, bool core,
			   int tries)
{
	int t = w->target, prev = w->prev, cpu;

	if (core ? wp_core_try(w, llc, t) : wp_mask_try(w, llc, t)) {
		w->outcome = WP_OUT_TARGET;
		return t;
	}
	if (prev != t && wp_cpus_share_cache(prev, t) &&
	    (core ? wp_core_try(w, llc, prev) : wp_mask_try(w, llc, prev))) {
		w->outcome = WP_OUT_PREV;
		return prev;
	}
	cpu = wp_mask_pick(w, llc, core, t, tries);
	if (cpu >= 0)
		w->outcome = WP_OUT_MASK;
	return cpu;
}

/**
 * wp_mask_sibling() - an idle SMT sibling of @cpu, claimed from the mask.
 * @w: the wakeup.
 * @llc: @cpu's LLC state.
 * @cpu: whose siblings are tried (not itself).
 *
 * Return: the sibling, or -1.
 */
notrace int wp_mask_sibling(struct wp_wakeup *w, struct wp_llc *llc, int cpu)
{
	int sib;

	for_each_cpu(sib, cpu_smt_mask(cpu)) {
		if (sib == cpu)
			continue;
		w->scanned++;
		if (wp_mask_try(w, llc, sib))
			return sib;
	}
	return -1;
}

/* A CPU a fallback may consider at all: the wakee's, and not going down. */
static __always_inline bool wp_spread_usable(struct wp_wakeup *w, int cpu)
{
	return cpumask_test_cpu(cpu, w->p->cpus_ptr) && cpu_active(cpu);
}

/*
 * A usable CPU a fallback may go to instead of its target: no wakee on its
 * way, and at most one task runnable there (ours adds one).
 */
static notrace bool wp_spread_free(struct wp_wakeup *w, int cpu)
{
	void *rq;

	if (READ_ONCE(per_cpu(wp_inbound, cpu)))
		return false;
	w->scanned++;
	wp_touch(w, cpu);
	rq = wp_rq(cpu);
	return !wp_rq_pending(rq) && wp_rq_nr_not_delayed(rq) <= 1;
}

/*
 * prev, the waker's CPU, then up to @spread CPUs of the LLC from target.
 * The budget is of CPUs whose state is read: one the wakee may not use,
 * or going down, is passed over without spending it (else a wakee allowed
 * on part of the LLC could spend it all on CPUs it cannot have).
 */
static notrace int wp_spread_pick(struct wp_wakeup *w, struct wp_llc *llc,
				  int spread)
{
	int t = w->target, cpu;

	if (w->prev != t && wp_cpus_share_cache(w->prev, t) &&
	    wp_spread_usable(w, w->prev) && wp_spread_free(w, w->prev))
		return w->prev;
	if (w->this_cpu != t && w->this_cpu != w->prev &&
	    wp_cpus_share_cache(w->this_cpu, t) &&
	    wp_spread_usable(w, w->this_cpu) && wp_spread_free(w, w->this_cpu))
		return w->this_cpu;
	for_each_cpu_wrap(cpu, to_cpumask(llc->span), t) {
		if (cpu == t || cpu == w->prev || cpu == w->this_cpu ||
		    !wp_spread_usable(w, cpu))
			continue;
		if (spread-- <= 0)
			break;
		if (wp_spread_free(w, cpu))
			return cpu;
	}
	return -1;
}

/**
 * wp_mask_fallback() - where a wakeup goes whose idle-mask search found
 * nothing: the target, as the kernel's search would, unless another wakee
 * is already on its way there (a claim or a fallback since the target's
 * last context switch) and, with @spread, a CPU of the LLC has none on its
 * way and at most one task: the wakees of a burst that find the mask empty
 * then queue on different CPUs instead of behind each other.
 * @w: the wakeup.
 * @llc: target's LLC state.
 * @spread: 0 keeps the target; else the CPUs of the LLC examined after
 *	prev and the waker's CPU (each one runqueue line).
 * @hits: the policy's counters (wp_spread_show()), or NULL.
 *
 * Return: the CPU for @w, with @w->outcome set (fallback).
 */
notrace int wp_mask_fallback(struct wp_wakeup *w, struct wp_llc *llc,
			     int spread, struct wp_spread_hits __percpu *hits)
{
	int cpu = -1;

	if (READ_ONCE(per_cpu(wp_inbound, w->target))) {
		if (spread > 0)
			cpu = wp_spread_pick(w, llc, spread);
		if (hits && !w->shadow) {
			this_cpu_inc(hits->inbound);
			if (cpu >= 0)
				this_cpu_inc(hits->spread);
		}
	}
	if (cpu < 0)
		cpu = wp_sis_none(w, -1);
	else
		w->outcome = WP_OUT_FALLBACK;
	if (!w->shadow)
		wp_inbound_set(cpu);
	return cpu;
}

/**
 * wp_spread_show() - a policy's wp_mask_fallback() counters, for its
 * policies/<name>/counters.
 * @hits: the counters.
 * @buf: a sysfs page.
 *
 * Return: the length written.
 */
ssize_t wp_spread_show(struct wp_spread_hits __percpu *hits, char *buf)
{
	u64 inbound = 0, spread = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		inbound += per_cpu_ptr(hits, cpu)->inbound;
		spread += per_cpu_ptr(hits, cpu)->spread;
	}
	return sysfs_emit(buf, "inbound %llu\nspread %llu\n", inbound, spread);
}

/**
 * wp_core_then_cpu() - idlecore's search: wp_mask_search() for a whole
 * idle core (when SMT is active), then for any idle CPU; finding neither,
 * wp_mask_fallback().
 * @w: the wakeup.
 * @llc: target's LLC state.
 * @tries: at most this many candidates per mask walk.
 * @spread: wp_mask_fallback()'s @spread.
 * @hits: wp_mask_fallback()'s @hits.
 *
 * Return: the CPU for @w.
 */
notrace int wp_core_then_cpu(struct wp_wakeup *w, struct wp_llc *llc,
			     int tries, int spread,
			     struct wp_spread_hits __percpu *hits)
{
	int cpu = -1;

	/*
	 * Without SMT a core is one CPU: the core walk would claim what the
	 * CPU walk claims, and a busy LLC would be walked twice.
	 */
	if (sched_smt_active())
		cpu = wp_mask_search(w, llc, true, tries);
	if (cpu < 0)
		cpu = wp_mask_search(w, llc, false, tries);
	return cpu >= 0 ? cpu : wp_mask_fallback(w, llc, spread, hits);
}

#ifdef WAKEPLACE_TEST
/**
 * wp_idle_mask_show() - the CPUs whose idle bit is set, as a CPU list.
 * @buf: a sysfs page.
 *
 * Test builds only, for tests that check no idle CPU stays hidden.
 *
 * Return: the length written (an empty line while there is no state).
 */
ssize_t wp_idle_mask_show(char *buf)
{
	struct cpumask *m = kzalloc(cpumask_size(), GFP_KERNEL);
	struct wp_idle_state *st;
	ssize_t len;
	int i;

	if (!m)
		return -ENOMEM;
	rcu_read_lock_sched();
	st = rcu_dereference_sched(wp_idle_st);
	for (i = 0; st && i < st->nr_llc; i++)
		bitmap_or(cpumask_bits(m), cpumask_bits(m), st->llc[i].idle,
			  nr_cpu_ids);
	rcu_read_unlock_sched();
	len = sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(m));
	kfree(m);
	return len;
}
#endif
