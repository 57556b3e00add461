/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wakeup-to-run latency and placement quality: from the placement of a
 * wakeup to the switch-in of the task, per policy and per outcome.
 */
#ifndef WP_LATENCY_H
#define WP_LATENCY_H

#include <linux/types.h>
#include "llbucket.h"
#include "wakeplace.h"

/**
 * struct wp_lathist - one policy's latency histograms on one CPU.
 * @b: counts per outcome and bucket.
 */
struct wp_lathist {
	u64 b[WP_OUT_NR][WP_LAT_BUCKETS];
};

#define WP_LAT_PERIOD_MAX	65536

extern unsigned int wp_lat_period;

int wp_lat_init(void);
void wp_lat_exit(void);
int wp_lat_prepare(struct wakeplace_policy *pol);
int wp_lat_set_period(unsigned int n);
void wp_lat_placed(struct wakeplace_policy *pol, struct task_struct *p,
		   int prev, int cpu, enum wp_outcome outcome);
bool wp_lat_sum(struct wakeplace_policy *pol, struct wp_lathist *sum);
void wp_lat_reset(struct wakeplace_policy *pol);

#endif /* WP_LATENCY_H */
