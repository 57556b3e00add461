// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplace switch: a slot (active or shadow) changes policy while wakeups
 * run; the old policy is put after a grace period, off the writer's path.
 * Self-protection's sleeping half, the revert to stock, runs here as the
 * work the hook queues after a trip.  The floor above the hook and below
 * the control files (registry.c lists the floors).
 */
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/ktime.h>
#include "registry.h"
#include "switch.h"
#include "idle.h"
#include "hook.h"
#include "stats.h"
#include "latency.h"
#include "cgroup.h"

static char wp_state_buf[128] = "ok";

static struct wakeplace_policy *wp_cur(struct wakeplace_policy __rcu **slot)
{
	return rcu_dereference_protected(*slot, lockdep_is_held(&wp_mutex));
}

/*
 * The idle state's sched_switch probe is also the one that calls the
 * policies' context_switch hooks: a policy with one needs it running.
 */
static bool wp_uses_idle(const struct wakeplace_policy *pol)
{
	return pol->needs_idle_state || pol->context_switch;
}

/*
 * Take a reference to @pol for a slot or an assignment: the first user
 * starts the per-LLC idle state if the policy reads it, then initialises
 * the policy.
 */
static int wp_get(struct wakeplace_policy *pol)
{
	int ret;

	if (pol->users++)
		return 0;
	if (wp_uses_idle(pol)) {
		ret = wp_idle_get();
		if (ret)
			goto err;
	}
	if (pol->init) {
		ret = pol->init();
		if (ret)
			goto err_idle;
	}
	return 0;
err_idle:
	if (wp_uses_idle(pol))
		wp_idle_put();
err:
	pol->users--;
	return ret;
}

/* Drop a reference once no reader can see @pol in that slot. */
static void wp_put(struct wakeplace_policy *pol)
{
	if (--pol->users)
		return;
	if (pol->exit)
		pol->exit();
	if (wp_uses_idle(pol))
		wp_idle_put();
}

/*
 * Phases of the last switch, for the last_switch file (no lock: a reader
 * may mix two switches, which is good enough for timing).
 */
static struct {
	u64 hook_ns, init_ns, publish_ns, total_ns;	/* on the writer's path */
	u64 grace_ns, teardown_ns;	/* deferred: the last old policy's */
	u64 lock_ns;			/* the writer's wait for wp_mutex */
} wp_times;

/* Set by a writer once it holds wp_mutex; a revert leaves it 0. */
static u64 wp_lock_wait_ns;

/* Take wp_mutex for a write to policy or shadow, timing the wait. */
static void wp_lock_timed(void)
{
	u64 t = ktime_get_ns();

	mutex_lock(&wp_mutex);
	wp_lock_wait_ns = ktime_get_ns() - t;
}

static struct workqueue_struct *wp_wq;

/* Under wp_mutex: the slots are leaving a hook that could not attach. */
static bool wp_hook_giving_up;
/* Under wp_mutex: the load's switches, which wait for the attach. */
static bool wp_starting;
/* Under wp_mutex: cgroup assignments to a policy that needs the hook. */
static unsigned int wp_assigned_hooked;

/*
 * Does this setting need the redirect?  Only stock with no shadow and no
 * cgroup assigned a non-stock policy leaves the kernel's function alone.
 */
static bool wp_hook_needed(struct wakeplace_policy *act,
			   struct wakeplace_policy *sh)
{
	return sh || (act && act->select_cpu) || wp_assigned_hooked;
}

/* Under wp_mutex: let the hook go if nothing published needs it now. */
static void wp_hook_settle(void)
{
	if (!wp_hook_needed(wp_cur(&wp_active), wp_cur(&wp_shadow)))
		wp_hook_want(false, false);
}

/* The old policy of a switch, put once no wakeup can still be using it. */
struct wp_put_req {
	struct rcu_work rwork;
	struct wakeplace_policy *pol;
	u64 queued;
};

static void wp_put_workfn(struct work_struct *work)
{
	struct wp_put_req *req = container_of(to_rcu_work(work),
					      struct wp_put_req, rwork);
	u64 t = ktime_get_ns();

	WRITE_ONCE(wp_times.grace_ns, t - req->queued);
	mutex_lock(&wp_mutex);
	wp_put(req->pol);
	mutex_unlock(&wp_mutex);
	WRITE_ONCE(wp_times.teardown_ns, ktime_get_ns() - t);
	kfree(req);
}

/*
 * Drop @pol's slot reference after an RCU grace period, off the caller's
 * path.  Until then @pol keeps its users count, so switching straight back
 * to it takes another reference and skips init: counts stay exact.
 */
static void wp_put_later(struct wakeplace_policy *pol)
{
	struct wp_put_req *req = kmalloc(sizeof(*req), GFP_KERNEL);

	if (!req) {
		synchronize_rcu();
		wp_put(pol);
		return;
	}
	req->pol = pol;
	req->queued = ktime_get_ns();
	INIT_RCU_WORK(&req->rwork, wp_put_workfn);
	queue_rcu_work(wp_wq, &req->rwork);
}

/* Run every deferred put and teardown now (unload, failed load). */
static void wp_flush_deferred(void)
{
	rcu_barrier();		/* the grace periods of queued puts */
	flush_workqueue(wp_wq);
	wp_idle_flush();
}

/*
 * Switch one slot (active or shadow) to @new (NULL: off, shadow only):
 * ask for the hook if the new setting needs it, initialise @new, publish
 * it.  The old policy is put after a grace period by a work item, and an
 * unneeded hook detached later.  The new policy is in effect on return,
 * or once the hook's attach, if still in flight (wp_hook_want()), is
 * done: until then the kernel places.  On error the old stays.
 */
static int wp_switch_slot(struct wakeplace_policy __rcu **slot,
			  struct wakeplace_policy *new)
{
	struct wakeplace_policy *old = wp_cur(slot);
	struct wakeplace_policy *act, *sh;
	u64 t0, t1, t2, t3;
	bool hook, had;
	int ret;

	lockdep_assert_held(&wp_mutex);
	if (old == new)
		return 0;
	act = wp_cur(&wp_active);
	sh = wp_cur(&wp_shadow);
	had = wp_hook_needed(act, sh);
	if (slot == &wp_active)
		act = new;
	else
		sh = new;
	hook = wp_hook_needed(act, sh);

	t0 = ktime_get_ns();
	if (hook && !wp_hook_giving_up) {
		ret = wp_hook_want(true, wp_starting);
		if (ret)
			return ret;
	}
	t1 = ktime_get_ns();
	/* Histograms before the first wakeup it places (or none: no memory). */
	if (new && slot == &wp_active)
		wp_lat_prepare(new);
	if (new) {
		ret = wp_get(new);
		if (ret) {
			if (hook && !had)
				wp_hook_want(false, false);
			return ret;
		}
	}
	t2 = ktime_get_ns();
	rcu_assign_pointer(*slot, new);
	if (new)
		wp_hold(new, 1);
	if (old) {
		wp_hold(old, -1);
		wp_put_later(old);
	}
	if (!hook)
		wp_hook_want(false, false);
	t3 = ktime_get_ns();
	WRITE_ONCE(wp_times.hook_ns, t1 - t0);
	WRITE_ONCE(wp_times.init_ns, t2 - t1);
	WRITE_ONCE(wp_times.publish_ns, t3 - t2);
	WRITE_ONCE(wp_times.total_ns, t3 - t0);
	WRITE_ONCE(wp_times.lock_ns, wp_lock_wait_ns);
	return 0;
}

/**
 * wp_assign_get() - take @pol for a cgroup assignment about to be
 * published: the hook if @pol needs it, its histograms, a reference.
 * @pol: a registered policy.
 *
 * Under wp_mutex.  On success the caller publishes the assignment, then
 * calls wp_assign_swap(); on error nothing changed.
 *
 * Return: 0, the hook's attach error (see wp_hook_want()), or @pol's init
 * error.
 */
int wp_assign_get(struct wakeplace_policy *pol)
{
	int ret;

	lockdep_assert_held(&wp_mutex);
	if (pol->select_cpu && !wp_hook_giving_up) {
		ret = wp_hook_want(true, false);
		if (ret)
			return ret;
	}
	wp_lat_prepare(pol);
	ret = wp_get(pol);
	if (ret)
		wp_hook_settle();
	return ret;
}

/**
 * wp_assign_swap() - an assignment table with @new in place of @old was
 * published: count the holders, put @old after a grace period, let the
 * hook go if nothing needs it any more.
 * @old: the policy no longer published by that assignment, or NULL.
 * @new: the policy now published (taken by wp_assign_get()), or NULL.
 *
 * Under wp_mutex.
 */
void wp_assign_swap(struct wakeplace_policy *old, struct wakeplace_policy *new)
{
	lockdep_assert_held(&wp_mutex);
	if (new) {
		wp_hold(new, 1);
		wp_assigned_hooked += !!new->select_cpu;
		/* Newly in use: no old slow picks count, as after a switch. */
		if (new->holders == 1)
			wp_hook_reset_slow(new);
	}
	if (old) {
		wp_hold(old, -1);
		wp_assigned_hooked -= !!old->select_cpu;
		wp_put_later(old);
	}
	wp_hook_settle();
}

/**
 * wp_last_switch_show() - the phases of the last switch, for sysfs.
 * @buf: a sysfs page.
 *
 * Return: bytes written.
 */
ssize_t wp_last_switch_show(char *buf)
{
	return sysfs_emit(buf,
			  "hook_us %llu\ninit_us %llu\npublish_us %llu\ntotal_us %llu\ngrace_us %llu\nteardown_us %llu\nidle_build_us %llu\nlock_us %llu\nattach_us %llu\n",
			  READ_ONCE(wp_times.hook_ns) / NSEC_PER_USEC,
			  READ_ONCE(wp_times.init_ns) / NSEC_PER_USEC,
			  READ_ONCE(wp_times.publish_ns) / NSEC_PER_USEC,
			  READ_ONCE(wp_times.total_ns) / NSEC_PER_USEC,
			  READ_ONCE(wp_times.grace_ns) / NSEC_PER_USEC,
			  READ_ONCE(wp_times.teardown_ns) / NSEC_PER_USEC,
			  wp_idle_build_us(),
			  READ_ONCE(wp_times.lock_ns) / NSEC_PER_USEC,
			  wp_hook_attach_us());
}

/* Names from sysfs or module parameters: printable, short, one token. */
static struct wakeplace_policy *wp_parse_name(const char *name, bool allow_off,
					      bool *off)
{
	*off = false;
	if (allow_off && !strcmp(name, "off")) {
		*off = true;
		return NULL;
	}
	return wp_policy_find(name);
}

/*
 * The part of trip @t that a write to policy does not decide (under
 * wp_mutex): the tripped policy's cgroup assignments go to stock, and its
 * window of slow picks starts empty.  The caller clears wp_tripped and
 * counts the event (true: assignments were reverted).
 */
static bool wp_trip_finish(int t)
{
	const char *why;
	struct wakeplace_policy *tripped = wp_trip_decode(t, &why);
	bool any = false;

	if (tripped->select_cpu)
		any = wp_cg_revert(tripped, why);
	wp_hook_reset_slow(tripped);
	return any;
}

/**
 * wp_set_policy() - make @name the active policy.
 * @name: a registered policy name.
 *
 * Returns once the new policy is in effect.  Clears a previous revert
 * and settles the trip pending when the write began: it is carried out
 * for the tripped policy's cgroup assignments (choosing the machine-wide
 * policy chooses nothing for them).  A trip raised once the new policy
 * is published stays for the revert work.
 *
 * Return: 0, -EINVAL for an unknown name, or the policy's init error.
 */
int wp_set_policy(const char *name)
{
	struct wakeplace_policy *pol;
	bool off;
	int ret, t;

	pol = wp_parse_name(name, false, &off);
	if (!pol)
		return -EINVAL;
	wp_lock_timed();
	/*
	 * The trip pending before the switch, if any: the one this write
	 * settles.  A trip of the new policy (or a cgroup's) once it is
	 * published is left set for the revert work already queued; while
	 * one is pending no other can be recorded (wp_trip()).
	 */
	t = READ_ONCE(wp_tripped);
	ret = wp_switch_slot(&wp_active, pol);
	wp_lock_wait_ns = 0;
	if (!ret) {
		this_cpu_inc(wp_counters.c[WP_C_SWITCHES]);
		strscpy(wp_state_buf, "ok", sizeof(wp_state_buf));
		wp_hook_reset_slow(pol);
		if (t) {
			if (wp_trip_finish(t))
				this_cpu_inc(wp_counters.c[WP_C_REVERTED]);
			cmpxchg(&wp_tripped, t, 0);
		}
	}
	mutex_unlock(&wp_mutex);
	return ret;
}

/**
 * wp_set_shadow() - set the shadow policy.
 * @name: a registered policy name or "off".
 *
 * Return: 0, -EINVAL for an unknown name, or the policy's init error.
 */
int wp_set_shadow(const char *name)
{
	struct wakeplace_policy *pol;
	bool off;
	int ret;

	pol = wp_parse_name(name, true, &off);
	if (!pol && !off)
		return -EINVAL;
	wp_lock_timed();
	ret = wp_switch_slot(&wp_shadow, pol);
	wp_lock_wait_ns = 0;
	mutex_unlock(&wp_mutex);
	return ret;
}

const char *wp_active_name(void)
{
	return wp_cur(&wp_active)->name;
}

const char *wp_shadow_name(void)
{
	struct wakeplace_policy *sh = wp_cur(&wp_shadow);

	return sh ? sh->name : "off";
}

const char *wp_state(void)
{
	return wp_state_buf;
}

/*
 * Self-protection.  The wakeup path cannot sleep or take the mutex, so a
 * misbehaving policy trips wp_tripped (the hook then hands every wakeup
 * back) and queues an irq_work, which queues this work, which switches to
 * stock.  The trip names its policy and a constant reason in one word, so
 * a revert meant for policy A never lands on policy B chosen meanwhile, and
 * the reason cannot be torn.
 */
static void wp_revert_workfn(struct work_struct *work)
{
	struct wakeplace_policy *pol, *tripped;
	const char *why;
	bool any = false;
	int t;

	mutex_lock(&wp_mutex);
	t = READ_ONCE(wp_tripped);
	if (!t)
		goto out;	/* a switch cleared it meanwhile */
	tripped = wp_trip_decode(t, &why);
	pol = wp_cur(&wp_active);
	if (pol == tripped && pol->select_cpu) {
		snprintf(wp_state_buf, sizeof(wp_state_buf), "reverted: %s: %s",
			 pol->name, why);
		pr_warn("wakeplace: policy %s reverted to stock: %s\n",
			pol->name, why);
		wp_switch_slot(&wp_active, &wp_policy_stock);
		any = true;
	}
	/* One event, one count, whether machine-wide, cgroups or both. */
	if (wp_trip_finish(t) || any)
		this_cpu_inc(wp_counters.c[WP_C_REVERTED]);
	WRITE_ONCE(wp_tripped, 0);
out:
	mutex_unlock(&wp_mutex);
}


/*
 * An attach that failed after its writer stopped waiting (attach_wait_ms)
 * leaves a policy or shadow published that the hook cannot serve: put the
 * slots back to stock and off, with one line (the hook printed why).  An
 * attach asked for again meanwhile clears the failure: its own result
 * decides.
 */
static void wp_hook_lost_workfn(struct work_struct *work)
{
	struct wakeplace_policy *act, *sh;

	mutex_lock(&wp_mutex);
	act = wp_cur(&wp_active);
	sh = wp_cur(&wp_shadow);
	if (!wp_hook_lost())
		goto out;
	if (!wp_hook_needed(act, sh)) {
		wp_hook_want(false, false);	/* its writer was refused */
		goto out;
	}
	/* Only cgroups needed the hook: their own lines say it all. */
	if (act->select_cpu || sh) {
		snprintf(wp_state_buf, sizeof(wp_state_buf),
			 "reverted: %s: the hook could not attach", act->name);
		pr_warn("wakeplace: policy %s%s%s reverted to stock: the hook could not attach to select_task_rq_fair\n",
			act->name, sh ? ", shadow " : "", sh ? sh->name : "");
	}
	/* Both slots give it up: no new attach between the two switches. */
	wp_hook_giving_up = true;
	wp_switch_slot(&wp_shadow, NULL);
	wp_switch_slot(&wp_active, &wp_policy_stock);
	wp_cg_revert(NULL, "the hook could not attach");
	wp_hook_giving_up = false;
	this_cpu_inc(wp_counters.c[WP_C_REVERTED]);
out:
	mutex_unlock(&wp_mutex);
}

/**
 * wp_switch_init() - the workqueue of deferred puts; the revert work
 * handed to the hook.
 *
 * Return: 0 or -ENOMEM.
 */
int wp_switch_init(void)
{
	/* Deferred frees need no CPU of their own; 7.x wants it said. */
	wp_wq = alloc_workqueue("wakeplace", WQ_UNBOUND, 0);
	if (!wp_wq)
		return -ENOMEM;
	wp_hook_set_revert(wp_revert_workfn);
	wp_hook_set_lost(wp_hook_lost_workfn);
	return 0;
}

/**
 * wp_switch_start() - the slots at load: stock, then @pol, then @sh.
 * @pol: the active policy asked for.
 * @sh: the shadow asked for, or NULL.
 *
 * Stock first, so the hook always finds a policy; the hook attaches only
 * if the policy or shadow needs it, so loading on stock works while a
 * livepatch owns select_task_rq_fair.
 *
 * Return: 0, or the error of the first switch that failed.
 */
int wp_switch_start(struct wakeplace_policy *pol, struct wakeplace_policy *sh)
{
	int ret;

	mutex_lock(&wp_mutex);
	wp_starting = true;
	ret = wp_switch_slot(&wp_active, &wp_policy_stock);
	if (!ret)
		ret = wp_switch_slot(&wp_active, pol);
	if (!ret)
		ret = wp_switch_slot(&wp_shadow, sh);
	wp_starting = false;
	mutex_unlock(&wp_mutex);
	return ret;
}

/**
 * wp_switch_stock() - drop the shadow and switch to stock: nothing is left
 * that needs the hook.
 */
void wp_switch_stock(void)
{
	mutex_lock(&wp_mutex);
	wp_switch_slot(&wp_shadow, NULL);
	wp_switch_slot(&wp_active, &wp_policy_stock);
	mutex_unlock(&wp_mutex);
}

/**
 * wp_switch_drain() - run every deferred put and teardown now, then empty
 * the active slot.  Only once the hook is detached and the revert path
 * stopped.
 */
void wp_switch_drain(void)
{
	wp_flush_deferred();
	mutex_lock(&wp_mutex);
	if (wp_cur(&wp_active)) {
		wp_hold(&wp_policy_stock, -1);
		wp_put(&wp_policy_stock);
	}
	RCU_INIT_POINTER(wp_active, NULL);
	mutex_unlock(&wp_mutex);
}

/** wp_switch_exit() - free the workqueue (drained). */
void wp_switch_exit(void)
{
	destroy_workqueue(wp_wq);
}
