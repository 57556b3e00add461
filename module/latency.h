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

/*
 * The histogram rows: one per outcome (the wakeups the policy placed, or
 * handed back to the kernel), then WP_LAT_UNPLACED, the wakeups that no
 * policy places (stamped at sched_waking like the others, queued without
 * a call to select_task_rq_fair): every policy has that row, so the
 * outcome rows of two policies cover the same kind of wakeups.
 */
#define WP_LAT_UNPLACED		WP_OUT_NR
#define WP_LAT_ROWS		(WP_OUT_NR + 1)

/**
 * struct wp_lathist - one policy's latency histograms on one CPU.
 * @b: counts per row (outcome, then unplaced) and bucket.
 */
struct wp_lathist {
	u64 b[WP_LAT_ROWS][WP_LAT_BUCKETS];
};

#define WP_LAT_PERIOD_MAX	65536

extern unsigned int wp_lat_period;

int wp_lat_init(void);
void wp_lat_exit(void);
int wp_lat_prepare(struct wakeplace_policy *pol);
int wp_lat_set_period(unsigned int n);
void wp_lat_placed(struct wakeplace_policy *pol, struct task_struct *p,
		   enum wp_outcome outcome);
bool wp_lat_sum(struct wakeplace_policy *pol, struct wp_lathist *sum);
void wp_lat_reset(struct wakeplace_policy *pol);
size_t wp_lat_mem(struct wakeplace_policy *pol, unsigned int *ncpus);

#endif /* WP_LATENCY_H */
