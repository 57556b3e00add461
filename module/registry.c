// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplace registry: the policies, the two slots (active and shadow) with
 * the mutex that serialises their writers, the dispatch of context
 * switches to the policies that observe them, and the trace events.  What
 * every floor below needs; it calls nothing of the module's own (the
 * policies only through their ops).
 *
 * The floors of module/, each calling only the floors below it:
 *
 *   load/unload   main.c: module parameters, wp_init(), wp_exit() and the
 *                 one teardown both share
 *   control       sysfs.c: /sys/kernel/wakeplace
 *   switch        switch.c: the live switch, deferred puts, the revert
 *                 to stock (self-protection's sleeping half)
 *   hook          hook.c: the ftrace ops on select_task_rq_fair, the
 *                 trip and the revert request (its wakeup-path half)
 *   policies      policies/, one file each, called only through their ops
 *   state         idle.c (per-LLC idle masks, the sched_switch probe),
 *                 latency.c (wakeup latency and quality), stats.c
 *                 (counters; idle.c and latency.c count into it)
 *   registry      registry.c (this file)
 *   kernel        fair.c (the kernel's wakeup path, rebuilt), layout.c
 *                 (BTF offsets), syms.c: read the kernel, call nothing of
 *                 the floors above by name
 *
 * What still goes both ways, and why:
 *
 * - hook <-> switch: a trip on the wakeup path must end in a switch to
 *   stock, which sleeps.  The hook queues an irq_work, which queues a work
 *   whose function the switch hands down at load (wp_switch_init() calls
 *   wp_hook_set_revert()): a pointer registered downward, no call up by
 *   name.
 * - registry -> policies: wp_policies[] names every policy's ops (data,
 *   no call).  The policies are called up only through their ops, the
 *   policy interface: select_cpu by fair.c's wp_place() (for the hook),
 *   context_switch by wp_policies_context_switch() (for idle.c's probe),
 *   init, exit and tunables_changed by the switch and sysfs.c.
 * - registry <- hook: wp_fair_class is found and written by the hook at
 *   load, before anything reads it; it lives here because latency.c, a
 *   floor below the hook, compares with it.
 * - stats.c and latency.c no longer call each other: wp_stats_reset()
 *   leaves the latency histograms to wp_lat_reset(), and sysfs.c's reset
 *   calls both; latency.c only counts into stats.c's counters.
 */
#include <linux/rcupdate.h>
#include <linux/string.h>
#include "registry.h"

/* The trace events (trace.h): the hook's and latency.c's. */
#define CREATE_TRACE_POINTS
#include "trace.h"

#define WP_POLICY(n) (&wp_policy_##n),
struct wakeplace_policy *wp_policies[] = {
#include "policies/list.h"
};
#undef WP_POLICY
unsigned int wp_nr_policies = ARRAY_SIZE(wp_policies);

DEFINE_MUTEX(wp_mutex);

struct wakeplace_policy __rcu *wp_active;
struct wakeplace_policy __rcu *wp_shadow;

const void *wp_fair_class __read_mostly;

/**
 * wp_policy_find() - the registered policy named @name.
 * @name: a policy name.
 *
 * Return: the policy, or NULL if none has that name.
 */
struct wakeplace_policy *wp_policy_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < wp_nr_policies; i++)
		if (!strcmp(wp_policies[i]->name, name))
			return wp_policies[i];
	return NULL;
}

/**
 * wp_policy_index() - @pol's index in wp_policies[].
 * @pol: a registered policy.
 *
 * Also called from the wakeup path (a trip), hence notrace.
 *
 * Return: the index (0, stock's, for an unregistered pointer).
 */
notrace unsigned int wp_policy_index(struct wakeplace_policy *pol)
{
	unsigned int i;

	for (i = 0; i < wp_nr_policies; i++)
		if (wp_policies[i] == pol)
			return i;
	return 0;
}

/**
 * wp_policies_context_switch() - pass a context switch to the policies in
 * use that observe them.
 * @preempt: @prev was preempted.
 * @prev: the task switched out.
 * @next: the task switched in.
 * @prev_state: @prev's state.
 *
 * Called by the sched_switch probe (IRQs off, runqueue locked).  Reads the
 * slots as the hook does: a policy put after a switch is seen here only
 * until the grace period that precedes its exit.
 */
notrace void wp_policies_context_switch(bool preempt, struct task_struct *prev,
					struct task_struct *next,
					unsigned int prev_state)
{
	struct wakeplace_policy *act = rcu_dereference_sched(wp_active);
	struct wakeplace_policy *sh = rcu_dereference_sched(wp_shadow);

	if (act && act->context_switch)
		act->context_switch(preempt, prev, next, prev_state);
	if (sh && sh != act && sh->context_switch)
		sh->context_switch(preempt, prev, next, prev_state);
}
