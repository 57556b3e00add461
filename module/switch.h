/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live switch: a slot changes policy while wakeups run, and a tripped
 * policy is reverted to stock.
 */
#ifndef WP_SWITCH_H
#define WP_SWITCH_H

#include <linux/types.h>
#include "wakeplace.h"

int wp_set_policy(const char *name);
int wp_set_shadow(const char *name);
const char *wp_active_name(void);
const char *wp_shadow_name(void);
const char *wp_state(void);

/* For cgroup.c's assignments (the same floor). */
int wp_assign_get(struct wakeplace_policy *pol);
void wp_assign_swap(struct wakeplace_policy *old, struct wakeplace_policy *new);
ssize_t wp_last_switch_show(char *buf);

/* Load and unload (main.c), in this order. */
int wp_switch_init(void);
int wp_switch_start(struct wakeplace_policy *pol, struct wakeplace_policy *sh);
void wp_switch_stock(void);
void wp_switch_drain(void);
void wp_switch_exit(void);

#endif /* WP_SWITCH_H */
