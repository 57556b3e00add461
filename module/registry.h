/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry: what every floor of the module reads (see registry.c for
 * the floors).  Calls nothing above it.
 */
#ifndef WP_REGISTRY_H
#define WP_REGISTRY_H

#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include "wakeplace.h"

/* The most cgroup assignments at once (the cgroups_max file). */
#define WP_CG_MAX	64

extern struct wakeplace_policy *wp_policies[];
extern unsigned int wp_nr_policies;

/* Serialises switches, tunables, resets and the revert work. */
extern struct mutex wp_mutex;

/*
 * The slots: the active policy (never NULL once loaded) and the shadow
 * (NULL: off).  Written under wp_mutex (switch.c), read under RCU-sched by
 * the hook and the probes.
 */
extern struct wakeplace_policy __rcu *wp_active;
extern struct wakeplace_policy __rcu *wp_shadow;

/* Per assignment, per CPU: what became of its tasks' wakeups. */
enum wp_cg_count {
	WP_CGC_WAKEUPS,		/* seen by the hook */
	WP_CGC_REDIRECTED,	/* placed by the assignment's policy */
	WP_CGC_HANDED_BACK,	/* declined by it: the kernel placed */
	WP_CGC_OUT,		/* WP_OUT_NR outcomes of the redirected */
	WP_CGC_NR = WP_CGC_OUT + WP_OUT_NR,
};

struct wp_cg_counters {
	u64 v[WP_CGC_NR];
};

/*
 * The cgroup assignments as the wakeup path reads them (cgroup.c writes
 * them under wp_mutex): the assigned cgroups' addresses, sorted, with
 * their policies and counters.  Published under RCU, freed after a grace
 * period; NULL when there is none.
 */
struct wp_cg_table {
	struct rcu_head rcu;
	unsigned long levels;	/* bit L: a cgroup at level L is assigned */
	int max_level;
	unsigned int nr;
	struct cgroup *cg[WP_CG_MAX];
	struct wakeplace_policy *pol[WP_CG_MAX];
	struct wp_cg_counters __percpu *cnt[WP_CG_MAX];
};

extern struct wp_cg_table __rcu *wp_cg_tab;

/* Levels at or past BITS_PER_LONG - 1 share the last bit of ->levels. */
static inline unsigned long wp_cg_level_bit(int level)
{
	return BIT(min_t(int, level, BITS_PER_LONG - 1));
}

struct wakeplace_policy *wp_cg_policy(struct task_struct *p,
				      struct wp_cg_counters __percpu **cnt);

/* fair_sched_class, compared with p->sched_class; set by wp_hook_init(). */
extern const void *wp_fair_class;

/*
 * The policies with a context_switch hook that are published somewhere
 * (a slot or a cgroup assignment): bit i is wp_policies[i].  Written under
 * wp_mutex by wp_hold(), read by the sched_switch probe.
 */
extern unsigned long wp_observers;

struct wakeplace_policy *wp_policy_find(const char *name);
void wp_hold(struct wakeplace_policy *pol, int delta);
unsigned int wp_policy_index(struct wakeplace_policy *pol);
void wp_policies_context_switch(bool preempt, struct task_struct *prev,
				struct task_struct *next,
				unsigned int prev_state);

#endif /* WP_REGISTRY_H */
