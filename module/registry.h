/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry: what every floor of the module reads (see registry.c for
 * the floors).  Calls nothing above it.
 */
#ifndef WP_REGISTRY_H
#define WP_REGISTRY_H

#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include "llbucket.h"
#include "wakeplace.h"

/* The most cgroup assignments at once (the cgroups_max file). */
#define WP_CG_MAX	64

extern struct wakeplace_policy *wp_policies[];
extern unsigned int wp_nr_policies;

/* The policies' indices in wp_policies[], and their number at build. */
#define WP_POLICY(n) WP_POLICY_IDX_##n,
enum {
#include "policies/list.h"
	WP_NR_POLICIES
};
#undef WP_POLICY

/* Serialises switches, tunables, resets and the revert work. */
extern struct mutex wp_mutex;

/*
 * The slots: the active policy (never NULL once loaded) and the shadow
 * (NULL: off).  Written under wp_mutex (switch.c), read under RCU-sched by
 * the hook and the probes.
 */
extern struct wakeplace_policy __rcu *wp_active;
extern struct wakeplace_policy __rcu *wp_shadow;

/*
 * Per assignment, per CPU: what became of its tasks' wakeups (the hook),
 * then the quality of its tracked ones (latency.c, at switch-in, while
 * measurement is on), as in stats/<policy>.
 */
enum wp_cg_count {
	WP_CGC_WAKEUPS,		/* seen by the hook */
	WP_CGC_REDIRECTED,	/* placed by the assignment's policy */
	WP_CGC_HANDED_BACK,	/* declined by it: the kernel placed */
	WP_CGC_OUT,		/* WP_OUT_NR outcomes of the redirected */
	WP_CGC_TRACKED = WP_CGC_OUT + WP_OUT_NR,
	WP_CGC_UNPLACED,
	WP_CGC_STACKED,
	WP_CGC_MISSED,
	WP_CGC_DOUBLE,
	WP_CGC_NR,
};

struct wp_cg_counters {
	u64 v[WP_CGC_NR];
	u64 lat[WP_CG_LAT_BUCKETS];	/* llbucket.h's coarse buckets */
};

/*
 * A remembered answer of the lookup: @task, while its css_set is @cset,
 * resolves to assignment @idx (-1: none), as of cache generation @gen.
 * @seq is odd while a writer fills or empties the slot.
 */
struct wp_cg_slot {
	u32 seq;
	s32 idx;
	const struct task_struct *task;
	const struct css_set *cset;
	unsigned long gen;
};

/* The lookup cache's sets (two slots each) in a table. */
#define WP_CG_SETS	32

/*
 * The cgroup assignments as the wakeup path reads them (cgroup.c writes
 * them under wp_mutex): the assigned cgroups' addresses, sorted, with
 * their policies, counters and serial numbers (a tracked wakeup names its
 * assignment by index and serial: an index reused by a later table for
 * another assignment does not match), and the lookup's cache of answers
 * per task, which starts empty with the table.  One allocation of under
 * a page.  Published under RCU, freed after a grace period; NULL when
 * there is none.
 */
struct wp_cg_table {
	struct rcu_head rcu;
	unsigned long levels;	/* bit L: a cgroup at level L is assigned */
	int max_level;
	unsigned int nr;
	struct cgroup *cg[WP_CG_MAX];
	struct wakeplace_policy *pol[WP_CG_MAX];
	struct wp_cg_counters __percpu *cnt[WP_CG_MAX];
	u32 serial[WP_CG_MAX];
	struct wp_cg_slot slot[WP_CG_SETS][2] ____cacheline_aligned;
};

extern struct wp_cg_table __rcu *wp_cg_tab;

/*
 * The lookup cache's generation.  Odd: the cache is off (nothing tells it
 * of tasks moved or freed, so no answer may be kept); even: on, and every
 * move of tasks between cgroups adds 2, which makes every answer kept
 * before it stale (cgroup.c's probes).
 */
extern atomic_long_t wp_cg_gen;

void wp_cg_slot_drop(struct wp_cg_table *t, const struct task_struct *p);

/* Levels at or past BITS_PER_LONG - 1 share the last bit of ->levels. */
static inline unsigned long wp_cg_level_bit(int level)
{
	return BIT(min_t(int, level, BITS_PER_LONG - 1));
}

/* How wp_cg_lookup() answered. */
enum wp_cg_how {
	WP_CG_HIT,	/* kept in the table */
	WP_CG_MISS,	/* walked, then kept */
	WP_CG_WRONG,	/* test builds: kept, and not what the walk says */
};

int wp_cg_lookup(struct wp_cg_table *t, struct task_struct *p,
		 enum wp_cg_how *how);
int wp_cg_find_serial(const struct wp_cg_table *t, unsigned int i, u32 serial);

/*
 * The shadow's scope (the shadow_cgroup file): NULL, every wakeup the
 * shadow sees; else only those of tasks in @cg or below it.  @cg NULL:
 * the cgroup was removed, the shadow compares nothing.
 */
struct wp_shadow_scope {
	struct rcu_head rcu;
	struct cgroup *cg;
	int level;
};

extern struct wp_shadow_scope __rcu *wp_sh_scope;

bool wp_cg_in_scope(const struct wp_shadow_scope *sc, struct task_struct *p);

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
