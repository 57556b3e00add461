/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_HOOK_H
#define WP_HOOK_H

#include <linux/rcupdate.h>
#include "wakeplace.h"

extern struct wakeplace_policy __rcu *wp_active;
extern struct wakeplace_policy __rcu *wp_shadow;
extern unsigned int wp_sample_period;
extern const void *wp_fair_class;

/* Why a policy tripped the self-protection. */
enum wp_trip_reason {
	WP_TRIP_BAD_CPU,
	WP_TRIP_SLOW,
	WP_TRIP_NR,
};

/*
 * 0, or which policy tripped and why (see wp_trip_decode()): while set, the
 * hook hands every wakeup back.  Set once by the first trip (cmpxchg on the
 * wakeup path), cleared under wp_mutex.
 */
extern int wp_tripped;
struct wakeplace_policy *wp_trip_decode(int t, const char **why);

int wp_hook_check_loader(void);
int wp_hook_init(void);
void wp_hook_exit(void);
int wp_hook_want(bool on);
bool wp_hook_attached(void);

/* core.c: the phases of the last switch (sysfs last_switch) */
ssize_t wp_last_switch_show(char *buf);
void wp_hook_reset_slow(void);

#endif /* WP_HOOK_H */
