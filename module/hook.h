/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_HOOK_H
#define WP_HOOK_H

#include <linux/rcupdate.h>
#include "wakeplace.h"

extern struct wakeplace_policy __rcu *wp_active;
extern struct wakeplace_policy __rcu *wp_shadow;
extern unsigned int wp_sample_period;
extern int wp_tripped;

int wp_hook_init(void);
void wp_hook_exit(void);
void wp_hook_reset_slow(void);

#endif /* WP_HOOK_H */
