/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wakeplace: live-switchable wakeup placement for CFS.
 *
 * The policy interface, and what the module's files share about policies
 * (the floors of those files: registry.c).
 */
#ifndef WAKEPLACE_H
#define WAKEPLACE_H

#include <linux/types.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/mutex.h>
#include "outcomes.h"

#include "generated/wp_version.h"	/* WP_VERSION, from VERSION */

#define WP_NAME_MAX		32
#define WP_MAX_TUNABLES		8
#define WP_HIST_BUCKETS		32

/*
 * Whether the wakeup path may queue an irq_work here.  A CPU on its way
 * down runs its pending irq_work once, after it left the online mask
 * (smpcfd_dying_cpu()); one queued after that (a wakeup the dying CPU
 * still performs, such as its stopper's completion) would stay pending
 * forever, and irq_work_sync() at teardown would spin on it.
 */
static __always_inline bool wp_irq_work_ok(void)
{
	return likely(cpu_online(raw_smp_processor_id()));
}

/* The policy declines: the kernel's own code decides this wakeup. */
#define WP_HANDBACK		(-1)

/*
 * enum wp_outcome - how a pick was found, one per pick: WP_OUT_TARGET,
 * WP_OUT_PREV, ... as listed, with their meaning, in outcomes.h; then
 * WP_OUT_NR, the number of outcomes.
 */
#define WP_OUT_ENUM(v, e, n, c, t, d)	WP_OUT_##e
enum wp_outcome {
	WP_OUTCOMES(WP_OUT_ENUM),
	WP_OUT_NR,
};
#undef WP_OUT_ENUM

/**
 * struct wp_wakeup - one wakeup being placed.
 * @p: the waking task.
 * @prev: the CPU @p last ran on (the kernel's prev_cpu).
 * @target: the CPU chosen by wake_affine (this CPU or @prev); policies
 *	search for an idle sibling around it.
 * @this_cpu: the waker's CPU.
 * @wake_flags: the kernel's WF_* flags.
 * @sync: a synchronous wakeup (the waker is about to sleep).
 * @affine: wake_wide did not object and the waker's CPU is allowed: the
 *	kernel would consider pulling the task to the waker.
 * @shadow: computed for the shadow comparison: the policy must not change
 *	any state (no claim, no write to the task or the runqueues).
 * @outcome: set by the policy: how the pick was found.
 * @scanned: set by the policy: CPUs examined by a scan.
 * @remote_lines: runqueues of other CPUs read (counted by the accessors).
 * @claim_lost: idle-mask candidates another waker claimed first.
 * @stale_hint: idle-mask candidates that were not idle on re-check: the
 *	sum of the three below.
 * @stale_pending: of those, with a wakee pending (wake list).
 * @stale_running: of those, running or queueing something (or inactive).
 * @stale_preempted: of those, idle but with their vCPU preempted.
 */
struct wp_wakeup {
	struct task_struct *p;
	int prev;
	int target;
	int this_cpu;
	int wake_flags;
	bool sync;
	bool affine;
	bool shadow;
	enum wp_outcome outcome;
	unsigned int scanned;
	unsigned int remote_lines;
	unsigned int claim_lost;
	unsigned int stale_hint;
	unsigned int stale_pending;
	unsigned int stale_running;
	unsigned int stale_preempted;
};

/**
 * struct wp_tunable - one integer knob of a policy.
 * @name: file name under policies/<policy>/.
 * @min: smallest accepted value.
 * @max: largest accepted value.
 * @def: value at load.
 * @val: current value; read with READ_ONCE() on the wakeup path.
 */
struct wp_tunable {
	const char *name;
	int min;
	int max;
	int def;
	int val;
};

struct wp_pstats;

/**
 * struct wakeplace_policy - a wakeup placement policy.
 * @name: unique short name, as written to /sys/kernel/wakeplace/policy.
 * @description: one line for humans.
 * @select_cpu: choose the CPU for one wakeup.  Called with IRQs off,
 *	under p->pi_lock, inside an RCU read-side section, never re-entered
 *	on a CPU; must be notrace, lock-free, allocation-free and printk-free.
 *	Returns a CPU, or %WP_HANDBACK to let the kernel decide.  Sets
 *	@w->outcome.  A pick outside p->cpus_ptr or the active mask is
 *	replaced by the kernel's decision and counted as corrected.  NULL
 *	means the kernel's own code (the stock policy).
 * @init: optional; prepares the policy before it is published (as active
 *	or shadow).  Returns 0 or a negative errno; on error the switch
 *	fails and the old policy stays.  May sleep.
 * @exit: optional; undoes @init once no reader can see the policy.
 * @tunables_changed: optional; called under wp_mutex after a write to one
 *	of @tunables stored its new value, only while the policy is in use
 *	(between @init and @exit).  For state derived from the tunables
 *	that must be published when they are written, never from
 *	@select_cpu (which would write shared data on every wakeup).  May
 *	sleep.
 * @context_switch: optional; observes every context switch, for state
 *	the policy keeps about what runs where (stints, reservations).
 *	Called from the sched_switch tracepoint on the switching CPU, with
 *	IRQs off and the runqueue locked, with the tracepoint's arguments:
 *	@preempt (@prev was preempted and stays runnable), @prev, @next and
 *	@prev_state.  Must be notrace, lock-free, allocation-free,
 *	printk-free, and wake nothing.  Called only while the policy is
 *	active, shadow or assigned to a cgroup (once per switch however
 *	many of those it is), as the hook sees it for @select_cpu: never
 *	before @init has returned nor after @exit is called.  Switches it
 *	missed while not in use are not replayed.  The sched_switch probe is the
 *	per-LLC idle state's: a policy with this hook has the core start the
 *	idle state for it as if it set @needs_idle_state.
 * @counters_show: optional; the policy's own counters, for
 *	policies/<name>/counters: writes "name value" lines into @buf (a
 *	sysfs page) and returns their length.  Called without locks while
 *	the policy may be in use; reads only what @select_cpu counts.
 * @needs_idle_state: the policy reads the per-LLC idle masks, which are
 *	maintained only while such a policy is active or shadowed: the core
 *	starts them before @init and stops them after @exit.
 * @tunables: the policy's knobs, @nr_tunables of them.
 * @nr_tunables: number of entries in @tunables.
 * @stats: per-CPU statistics (owned by the core).
 * @users: references: slots, cgroup assignments and their deferred puts
 *	(core).
 * @holders: how many slots and cgroup assignments publish the policy now
 *	(core; the context-switch observers are those with holders).
 * @kobj: the policy's directory under policies/ (core).
 */
struct wakeplace_policy {
	const char *name;
	const char *description;
	int (*select_cpu)(struct wp_wakeup *w);
	int (*init)(void);
	void (*exit)(void);
	void (*tunables_changed)(void);
	void (*context_switch)(bool preempt, struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state);
	ssize_t (*counters_show)(char *buf);
	bool needs_idle_state;
	struct wp_tunable *tunables;
	unsigned int nr_tunables;

	/* owned by the core */
	struct wp_pstats __percpu *stats;
	unsigned int users;
	unsigned int holders;
	struct kobject *kobj;
};

/* A tunable definition for a policy's table. */
#define WP_TUNABLE(n, lo, hi, d) \
	{ .name = (n), .min = (lo), .max = (hi), .def = (d), .val = (d) }

/* Tunable value for the wakeup path. */
static __always_inline int wp_tun(const struct wakeplace_policy *pol, int i)
{
	return READ_ONCE(pol->tunables[i].val);
}

/*
 * policies/list.h names each policy once; each policy file defines
 * wp_policy_<name>.  Declare them all in one declaration (parenthesised
 * declarators); the last one, never defined, only closes the list.
 */
#define WP_POLICY(n) (wp_policy_##n),
extern struct wakeplace_policy
#include "policies/list.h"
	wp_policy_list_end_;
#undef WP_POLICY

#endif /* WAKEPLACE_H */
