/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_HOOK_H
#define WP_HOOK_H

#include <linux/workqueue.h>
#include "wakeplace.h"

extern unsigned int wp_sample_period;

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
int wp_hook_want(bool on, bool block);
const char *wp_hook_state(void);
u64 wp_hook_attach_us(void);
bool wp_hook_lost(void);
void wp_hook_set_lost(work_func_t fn);
void wp_hook_reset_slow(struct wakeplace_policy *pol);
void wp_hook_set_revert(work_func_t fn);
void wp_hook_stop_revert(void);

#endif /* WP_HOOK_H */
