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

/* fair_sched_class, compared with p->sched_class; set by wp_hook_init(). */
extern const void *wp_fair_class;

struct wakeplace_policy *wp_policy_find(const char *name);
unsigned int wp_policy_index(struct wakeplace_policy *pol);
void wp_policies_context_switch(bool preempt, struct task_struct *prev,
				struct task_struct *next,
				unsigned int prev_state);

#endif /* WP_REGISTRY_H */
