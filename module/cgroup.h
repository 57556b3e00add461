/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A policy per cgroup (v2): assignments, and the wakeup path's lookup of
 * a task's assigned policy.
 */
#ifndef WP_CGROUP_H
#define WP_CGROUP_H

#include <linux/types.h>
#include "wakeplace.h"

int wp_cg_write(const char *buf);
ssize_t wp_cg_show(char *buf, size_t size);
ssize_t wp_cg_stats_show(char *buf, size_t size);
ssize_t wp_cg_lat_show(char *buf, size_t size);
int wp_cg_shadow_write(const char *buf);
ssize_t wp_cg_shadow_show(char *buf);
bool wp_cg_revert(struct wakeplace_policy *pol, const char *why);
void wp_cg_exit(void);

#endif /* WP_CGROUP_H */
