// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplace registry: the policies, the two slots (active and shadow) and
 * the cgroup assignments' table with the mutex that serialises their
 * writers, the wakeup path's lookup in that table, the dispatch of
 * context switches to the policies that observe them, and the trace
 * events.  What
 * every floor below needs; it calls nothing of the module's own (the
 * policies only through their ops).
 *
 * The floors of module/, each calling only the floors below it:
 *
 *   load/unload   main.c: module parameters, wp_init(), wp_exit() and the
 *                 one teardown both share
 *   control       sysfs.c: /sys/kernel/wakeplace
 *   switch        switch.c: the live switch, deferred puts, the revert
 *                 to stock (self-protection's sleeping half); cgroup.c:
 *                 the cgroup assignments (the two call each other: an
 *                 assignment takes its policy through the switch, the
 *                 revert work reverts assignments of a tripped policy)
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
#include <linux/cgroup.h>
#include <linux/hash.h>
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

unsigned long wp_observers;

struct wp_cg_table __rcu *wp_cg_tab;
atomic_long_t wp_cg_gen = ATOMIC_LONG_INIT(1);

/* One bit per policy in wp_observers. */
static_assert(ARRAY_SIZE(wp_policies) <= BITS_PER_LONG);
static_assert(ARRAY_SIZE(wp_policies) == WP_NR_POLICIES);

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
 * wp_hold() - count @pol's publications: a slot or a cgroup assignment
 * now holds it (@delta 1) or no longer does (-1).
 * @pol: a policy with a reference (initialised).
 * @delta: 1 or -1.
 *
 * Under wp_mutex.  Call after publishing @pol, and after unpublishing it
 * but before its reference is put (which waits a grace period): so the
 * sched_switch probe, which reads wp_observers under RCU-sched, calls
 * @pol's context_switch only between its init and its exit.
 */
void wp_hold(struct wakeplace_policy *pol, int delta)
{
	unsigned long bit = BIT(wp_policy_index(pol));

	lockdep_assert_held(&wp_mutex);
	pol->holders += delta;
	if (!pol->context_switch)
		return;
	if (pol->holders)
		WRITE_ONCE(wp_observers, wp_observers | bit);
	else
		WRITE_ONCE(wp_observers, wp_observers & ~bit);
}

/**
 * wp_policies_context_switch() - pass a context switch to the policies in
 * use that observe them.
 * @preempt: @prev was preempted.
 * @prev: the task switched out.
 * @next: the task switched in.
 * @prev_state: @prev's state.
 *
 * Called by the sched_switch probe (IRQs off, runqueue locked): each
 * policy published in a slot or a cgroup assignment, once (wp_hold()).
 */
notrace void wp_policies_context_switch(bool preempt, struct task_struct *prev,
					struct task_struct *next,
					unsigned int prev_state)
{
	unsigned long m = READ_ONCE(wp_observers);

	while (m) {
		struct wakeplace_policy *pol = wp_policies[__ffs(m)];

		m &= m - 1;
		pol->context_switch(preempt, prev, next, prev_state);
	}
}

/* Bisect @t for @cg's address: its index, or -1. */
static notrace int wp_cg_find(const struct wp_cg_table *t,
			      const struct cgroup *cg)
{
	unsigned int lo = 0, hi = t->nr;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (t->cg[mid] == cg)
			return mid;
		if ((unsigned long)t->cg[mid] < (unsigned long)cg)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/**
 * wp_cg_walk() - the assignment of @cset's nearest assigned cgroup,
 * uncached.
 * @t: the published table (not NULL).
 * @cset: a css_set, inside an RCU-sched read side.
 *
 * Walks the default-hierarchy cgroup's ancestors[] (kept in the cgroup: no
 * pointer chase per level) from the deepest, skipping levels with no
 * assignment, and bisects @t at each; it compares addresses, never
 * follows them (cgroup.c holds a reference on each until no table can
 * name it).
 *
 * Return: the assignment's index in @t, or -1.
 */
static notrace int wp_cg_walk(const struct wp_cg_table *t,
			      const struct css_set *cset)
{
	const struct cgroup *cg = cset->dfl_cgrp;
	int level, i;

	for (level = min(cg->level, t->max_level); level >= 0; level--) {
		if (!(t->levels & wp_cg_level_bit(level)))
			continue;
		i = wp_cg_find(t, cg->ancestors[level]);
		if (i >= 0)
			return i;
	}
	return -1;
}

/* Was @s filled for @p in @cset in generation @gen?  Its answer, or -2. */
static notrace int wp_cg_slot_read(const struct wp_cg_slot *s,
				   const struct task_struct *p,
				   const struct css_set *cset, unsigned long gen)
{
	u32 seq = READ_ONCE(s->seq);
	int idx;

	if (seq & 1)
		return -2;
	smp_rmb();	/* the fields after the sequence that covers them */
	if (READ_ONCE(s->task) != p || READ_ONCE(s->cset) != cset ||
	    READ_ONCE(s->gen) != gen)
		return -2;
	idx = READ_ONCE(s->idx);
	smp_rmb();	/* the fields before the sequence read again */
	return READ_ONCE(s->seq) == seq ? idx : -2;
}

/*
 * Write @s if no other CPU is writing it (then it is left to that one):
 * @p, @cset, @gen and @idx, or with @p NULL an empty slot.
 */
static notrace void wp_cg_slot_write(struct wp_cg_slot *s,
				     const struct task_struct *p,
				     const struct css_set *cset,
				     unsigned long gen, int idx)
{
	u32 seq = READ_ONCE(s->seq);

	if ((seq & 1) || cmpxchg(&s->seq, seq, seq + 1) != seq)
		return;
	smp_wmb();	/* the sequence odd before any field changes */
	WRITE_ONCE(s->task, p);
	WRITE_ONCE(s->cset, cset);
	WRITE_ONCE(s->gen, gen);
	WRITE_ONCE(s->idx, idx);
	/* The fields before the sequence that says they are whole. */
	smp_store_release(&s->seq, seq + 2);
}

static notrace struct wp_cg_slot *wp_cg_set(struct wp_cg_table *t,
					    const struct task_struct *p)
{
	return t->slot[hash_ptr(p, ilog2(WP_CG_SETS))];
}

/**
 * wp_cg_lookup() - the assignment of @p's nearest assigned cgroup.
 * @t: the published table (not NULL).
 * @p: a task being woken (its pi_lock held, IRQs off).
 * @how: if not NULL, set to how the answer was found.
 *
 * Called on the wakeup path (the hook, the sched_waking probe) inside an
 * RCU-sched read side, so the task's css_set and @t stay while it runs.
 *
 * The answer depends only on @p's css_set (its default-hierarchy cgroup
 * never changes, nor do that cgroup's ancestors) and @t, so @t keeps it
 * per task in a two-way cache of WP_CG_SETS sets, beside the policies
 * and counters a hit then reads: a hit compares @p and its css_set
 * pointer (in the task, next to what try_to_wake_up() just locked) and
 * reads one line of @t, where a miss also reads the css_set and the
 * cgroup, which nothing else on the wakeup path touches.  A css_set
 * address can come back as another css_set once freed; an answer stays
 * right until then, and cgroup.c's probes end it sooner: any move of
 * tasks between cgroups advances wp_cg_gen (read first, so an answer
 * filled across a move is stale after it), and a task freed leaves its
 * slots.  The one window left: the kernel also re-homes tasks between
 * css_sets of one cgroup (controllers enabled or disabled) with no
 * tracepoint, so a task can leave a css_set untold, and if it is later
 * moved into a new one at that css_set's address, a wakeup during that
 * move (after its css_set switched, before the move's tracepoint) is
 * placed by its old cgroup's assignment, as one that read the css_set
 * just before the switch would be.
 *
 * A miss walks (wp_cg_walk()) and keeps the answer, in a way of the set
 * that is free or stale, else in one picked by @p's address.
 *
 * Return: the assignment's index in @t, or -1 when no cgroup of @p's is
 * assigned (the machine-wide policy places it).
 */
notrace int wp_cg_lookup(struct wp_cg_table *t, struct task_struct *p,
			 enum wp_cg_how *how)
{
	unsigned long gen = atomic_long_read_acquire(&wp_cg_gen);
	struct css_set *cset = rcu_dereference_sched(p->cgroups);
	struct wp_cg_slot *set = wp_cg_set(t, p);
	int i;

	if (!(gen & 1)) {
		i = wp_cg_slot_read(&set[0], p, cset, gen);
		if (i == -2)
			i = wp_cg_slot_read(&set[1], p, cset, gen);
		if (i != -2) {
			if (how)
				*how = WP_CG_HIT;
#ifdef WAKEPLACE_TEST
			/* Test builds audit every kept answer. */
			if (how && i != wp_cg_walk(t, cset))
				*how = WP_CG_WRONG;
#endif
			return i;
		}
	}
	if (how)
		*how = WP_CG_MISS;
	i = wp_cg_walk(t, cset);
	if (!(gen & 1)) {
		struct wp_cg_slot *s = &set[((unsigned long)p / L1_CACHE_BYTES) & 1];

		if (READ_ONCE(set[0].gen) != gen)
			s = &set[0];
		else if (READ_ONCE(set[1].gen) != gen)
			s = &set[1];
		wp_cg_slot_write(s, p, cset, gen, i);
	}
	return i;
}

/**
 * wp_cg_slot_drop() - forget @p: it is being freed, and its address may
 * come back as another task.
 * @t: the published table (not NULL).
 * @p: the task.
 *
 * Called by cgroup.c's probe on sched_process_free, inside an RCU-sched
 * read side.  A slot of @p's that another CPU is writing is being given
 * to another task (nothing wakes @p any more).
 */
notrace void wp_cg_slot_drop(struct wp_cg_table *t,
			     const struct task_struct *p)
{
	struct wp_cg_slot *set = wp_cg_set(t, p);
	int w;

	for (w = 0; w < 2; w++)
		if (READ_ONCE(set[w].task) == p)
			wp_cg_slot_write(&set[w], NULL, NULL, 0, -1);
}

/**
 * wp_cg_find_serial() - the index in @t of the assignment numbered
 * @serial, which was at index @i of the table it was looked up in.
 * @t: the published table (not NULL).
 * @i: the index it had.
 * @serial: its serial number.
 *
 * Wakeup path (the sched_switch probe, a tracked wakeup only).
 *
 * Return: the index, or -1 when the assignment is gone.
 */
notrace int wp_cg_find_serial(const struct wp_cg_table *t, unsigned int i,
			      u32 serial)
{
	unsigned int j;

	if (i < t->nr && t->serial[i] == serial)
		return i;
	/* The table was rebuilt since: the assignment may have moved. */
	for (j = 0; j < t->nr; j++)
		if (t->serial[j] == serial)
			return j;
	return -1;
}

struct wp_shadow_scope __rcu *wp_sh_scope;

/**
 * wp_cg_in_scope() - is @p in the shadow's scope?
 * @sc: the published scope (not NULL).
 * @p: a task being woken, inside an RCU-sched read side.
 *
 * Return: true when @p's default-hierarchy cgroup is @sc's cgroup or
 * below it.
 */
notrace bool wp_cg_in_scope(const struct wp_shadow_scope *sc,
			    struct task_struct *p)
{
	struct cgroup *cg = rcu_dereference_sched(p->cgroups)->dfl_cgrp;

	return sc->cg && cg->level >= sc->level &&
	       cg->ancestors[sc->level] == sc->cg;
}
