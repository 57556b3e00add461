// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplace core: the policy registry, the live switch, self-protection,
 * and module load/unload.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include "wakeplace.h"
#include "sched.h"
#include "fair.h"
#include "idle.h"
#include "hook.h"
#include "stats.h"

#define WP_POLICY(n) (&wp_policy_##n),
struct wakeplace_policy *wp_policies[] = {
#include "policies/list.h"
};
#undef WP_POLICY
unsigned int wp_nr_policies = ARRAY_SIZE(wp_policies);

static char *policy = "stock";
module_param(policy, charp, 0444);
MODULE_PARM_DESC(policy, "Policy at load (default stock)");

static char *shadow = "off";
module_param(shadow, charp, 0444);
MODULE_PARM_DESC(shadow, "Shadow policy at load (default off)");

/* Serialises switches, tunables, resets and the revert work. */
DEFINE_MUTEX(wp_mutex);	/* also taken by sysfs.c */

static char wp_state_buf[128] = "ok";

struct wakeplace_policy *wp_policy_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < wp_nr_policies; i++)
		if (!strcmp(wp_policies[i]->name, name))
			return wp_policies[i];
	return NULL;
}

static struct wakeplace_policy *wp_cur(struct wakeplace_policy __rcu **slot)
{
	return rcu_dereference_protected(*slot, lockdep_is_held(&wp_mutex));
}

/*
 * Take a reference to @pol for a slot: the first user starts the per-LLC
 * idle state if the policy reads it, then initialises the policy.
 */
static int wp_get(struct wakeplace_policy *pol)
{
	int ret;

	if (pol->users++)
		return 0;
	if (pol->needs_idle_state) {
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
	if (pol->needs_idle_state)
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
	if (pol->needs_idle_state)
		wp_idle_put();
}

/*
 * Switch one slot (active or shadow) to @new (NULL: off, shadow only):
 * initialise it, publish it, wait for every wakeup that may still use the
 * old one, then tear the old one down.  On error the old stays.
 */
static int wp_switch_slot(struct wakeplace_policy __rcu **slot,
			  struct wakeplace_policy *new)
{
	struct wakeplace_policy *old = wp_cur(slot);
	int ret;

	lockdep_assert_held(&wp_mutex);
	if (old == new)
		return 0;
	if (new) {
		ret = wp_get(new);
		if (ret)
			return ret;
	}
	rcu_assign_pointer(*slot, new);
	synchronize_rcu();
	if (old)
		wp_put(old);
	return 0;
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

/**
 * wp_set_policy() - make @name the active policy.
 * @name: a registered policy name.
 *
 * Returns once the new policy is in effect.  Clears a previous revert.
 *
 * Return: 0, -EINVAL for an unknown name, or the policy's init error.
 */
int wp_set_policy(const char *name)
{
	struct wakeplace_policy *pol;
	bool off;
	int ret;

	pol = wp_parse_name(name, false, &off);
	if (!pol)
		return -EINVAL;
	mutex_lock(&wp_mutex);
	ret = wp_switch_slot(&wp_active, pol);
	if (!ret) {
		this_cpu_inc(wp_counters.c[WP_C_SWITCHES]);
		strscpy(wp_state_buf, "ok", sizeof(wp_state_buf));
		wp_hook_reset_slow();
		WRITE_ONCE(wp_tripped, 0);
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
	mutex_lock(&wp_mutex);
	ret = wp_switch_slot(&wp_shadow, pol);
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
		this_cpu_inc(wp_counters.c[WP_C_REVERTED]);
	}
	wp_hook_reset_slow();
	WRITE_ONCE(wp_tripped, 0);
out:
	mutex_unlock(&wp_mutex);
}
static DECLARE_DELAYED_WORK(wp_revert_work, wp_revert_workfn);

#ifdef WAKEPLACE_TEST
/* Test builds only: hold the revert back, so a switch can overtake it. */
static unsigned int test_revert_delay_ms;
module_param(test_revert_delay_ms, uint, 0644);
MODULE_PARM_DESC(test_revert_delay_ms, "TEST BUILD: delay the self-protection revert (ms)");
#define WP_REVERT_DELAY	msecs_to_jiffies(READ_ONCE(test_revert_delay_ms))
#else
#define WP_REVERT_DELAY	0
#endif

static void wp_revert_irq(struct irq_work *iw)
{
	schedule_delayed_work(&wp_revert_work, WP_REVERT_DELAY);
}
static DEFINE_IRQ_WORK(wp_revert_iw, wp_revert_irq);

/* Called once per trip, from the wakeup path (IRQs off). */
notrace void wp_request_revert(void)
{
	irq_work_queue(&wp_revert_iw);
}

static int __init wp_init(void)
{
	struct wakeplace_policy *pol, *sh;
	bool off;
	int ret;

	pol = wp_parse_name(policy, false, &off);
	sh = wp_parse_name(shadow, true, &off);
	if (!pol || (!sh && !off)) {
		pr_err("wakeplace: unknown policy '%s' (see available_policies)\n",
		       pol ? shadow : policy);
		return -EINVAL;
	}

	ret = wp_layout_verify();
	if (ret)
		return ret;
	ret = wp_fair_init();
	if (ret)
		goto err;
	ret = wp_stats_init();
	if (ret)
		goto err_fair;

	/* Publish stock first: the hook must always find a policy. */
	mutex_lock(&wp_mutex);
	ret = wp_switch_slot(&wp_active, &wp_policy_stock);
	mutex_unlock(&wp_mutex);
	if (ret)
		goto err_stats;

	ret = wp_hook_init();
	if (ret)
		goto err_stock;

	mutex_lock(&wp_mutex);
	ret = wp_switch_slot(&wp_active, pol);
	if (!ret)
		ret = wp_switch_slot(&wp_shadow, sh);
	mutex_unlock(&wp_mutex);
	if (ret) {
		pr_err("wakeplace: policy %s failed to start: %d\n",
		       pol->name, ret);
		goto err_policy;
	}

	ret = wp_sysfs_init();
	if (ret) {
		pr_err("wakeplace: sysfs setup failed: %d\n", ret);
		goto err_policy;
	}
	pr_info("wakeplace: " WP_VERSION " loaded on %s (" WP_FLAVOUR "), policy %s\n",
		init_utsname()->release, pol->name);
	return 0;

err_policy:
	mutex_lock(&wp_mutex);
	wp_switch_slot(&wp_shadow, NULL);
	wp_switch_slot(&wp_active, &wp_policy_stock);
	mutex_unlock(&wp_mutex);
	wp_hook_exit();
	irq_work_sync(&wp_revert_iw);
	cancel_delayed_work_sync(&wp_revert_work);
err_stock:
	mutex_lock(&wp_mutex);
	wp_put(&wp_policy_stock);
	RCU_INIT_POINTER(wp_active, NULL);
	mutex_unlock(&wp_mutex);
	synchronize_rcu();
err_stats:
	wp_stats_exit();
err_fair:
	wp_fair_exit();
err:
	return ret;
}

/*
 * Unload, in this order: remove the control files (no more switches);
 * switch to stock and drop the shadow (each waits for readers); detach the
 * ftrace ops (waits until no CPU is in the callback or resumes into our
 * code); wait for RCU once more; flush the revert path; free.
 */
static void __exit wp_exit(void)
{
	wp_sysfs_exit();

	mutex_lock(&wp_mutex);
	wp_switch_slot(&wp_shadow, NULL);
	wp_switch_slot(&wp_active, &wp_policy_stock);
	mutex_unlock(&wp_mutex);

	wp_hook_exit();
	synchronize_rcu();
	irq_work_sync(&wp_revert_iw);
	cancel_delayed_work_sync(&wp_revert_work);

	mutex_lock(&wp_mutex);
	wp_put(&wp_policy_stock);
	RCU_INIT_POINTER(wp_active, NULL);
	mutex_unlock(&wp_mutex);

	wp_stats_exit();
	wp_fair_exit();
	pr_info("wakeplace: unloaded\n");
}

module_init(wp_init);
module_exit(wp_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("wakeplace maintainers");
MODULE_DESCRIPTION("Live-switchable wakeup placement policies for CFS");
MODULE_VERSION(WP_VERSION);
