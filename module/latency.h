/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wakeup-to-run latency and placement quality: from the placement of a
 * wakeup to the switch-in of the task, per policy and per outcome.
 */
#ifndef WP_LATENCY_H
#define WP_LATENCY_H

#include <linux/types.h>
#include "wakeplace.h"

/*
 * Log-linear buckets, the indexing of bench-scripts/src/llhist.h ("L6ns"):
 * one bucket per ns below 64 ns, then 32 per power of two, so a bucket is
 * at most 1/32 of its value wide.  The module keeps the buckets of values
 * below 2^32 ns; longer latencies (4.29 s and more) land in the last one.
 */
#define WP_LAT_SUB_BITS		6
#define WP_LAT_HALF		(1U << (WP_LAT_SUB_BITS - 1))
#define WP_LAT_MAX_LOG2		32
#define WP_LAT_BUCKETS		((WP_LAT_MAX_LOG2 - WP_LAT_SUB_BITS + 1) * \
				 WP_LAT_HALF + WP_LAT_HALF)
#define WP_LAT_TAG		"L6ns"

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
u64 wp_lat_percentile(const u64 *b, u64 total, unsigned int num,
		      unsigned int den);

#endif /* WP_LATENCY_H */
