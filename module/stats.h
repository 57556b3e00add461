/* SPDX-License-Identifier: GPL-2.0 */
/* Per-CPU statistics of the hook and of each policy, summed on read. */
#ifndef WP_STATS_H
#define WP_STATS_H

#include <linux/percpu.h>
#include <linux/log2.h>
#include "wakeplace.h"

enum wp_stat {
	WP_ST_PICKS,
	WP_ST_OUT,		/* WP_OUT_NR outcome counters follow */
	WP_ST_CLAIM_LOST = WP_ST_OUT + WP_OUT_NR,
	WP_ST_STALE_HINT,
	WP_ST_STALE_PENDING,	/* stale_hint by cause */
	WP_ST_STALE_RUNNING,
	WP_ST_STALE_PREEMPTED,
	WP_ST_SCANNED,
	WP_ST_REMOTE,
	WP_ST_CROSS_LLC,
	WP_ST_NOT_PREV,
	WP_ST_COST_SAMPLES,
	WP_ST_COST_NS,
	WP_ST_SHADOW_CMP,
	WP_ST_SHADOW_AGREE,	/* per CPU: disagreements; summed: agreements */
	WP_ST_TRACKED,		/* latency.c, at switch-in: */
	WP_ST_STACKED,
	WP_ST_DOUBLE,
	WP_ST_MOVED,
	WP_ST_MIGRATED,
	WP_ST_MIGRATED_LLC,
	WP_ST_MISSED,		/* stacked while an allowed CPU was idle */
	WP_ST_UNPLACED,		/* tracked wakeups no policy placed */
	WP_ST_STACKED_OUT,	/* WP_OUT_NR: stacked, per outcome */
	WP_ST_MISSED_OUT = WP_ST_STACKED_OUT + WP_OUT_NR, /* and missed */
	WP_ST_DOUBLE_OUT = WP_ST_MISSED_OUT + WP_OUT_NR, /* and double picks */
	WP_ST_NR = WP_ST_DOUBLE_OUT + WP_OUT_NR,
};

/**
 * struct wp_pstats - one policy's counters on one CPU.
 * @v: the counters of enum wp_stat.
 * @scan_hist: CPUs scanned per pick, log2 buckets (0: none).
 * @cost_hist: sampled cost per pick in ns, log2 buckets.
 */
struct wp_pstats {
	u64 v[WP_ST_NR];
	u64 scan_hist[WP_HIST_BUCKETS];
	u64 cost_hist[WP_HIST_BUCKETS];
};

enum wp_counter {
	WP_C_CALLS,
	WP_C_WAKEUPS,
	WP_C_REDIRECTED,
	WP_C_HANDED_BACK,
	WP_C_CORRECTED,
	WP_C_SLOW,
	WP_C_REVERTED,
	WP_C_SWITCHES,
	WP_C_REBUILDS,
	WP_C_STALE,
	WP_C_UNBUILT,
	WP_C_CORE_CLAIMS,
	WP_C_CORE_CLAIM_BUSY,
	WP_C_LAT_DROPPED,
	WP_C_INACTIVE,
	WP_C_IDLE_PENDING,
	WP_C_REMARK_HELD,
	WP_C_CG_WAKEUPS,
	WP_C_CG_CHANGES,
	WP_C_CG_REMOVED,
	WP_C_CG_MISSES,
#ifdef WAKEPLACE_TEST
	WP_C_AUDITED,
	WP_C_FALSE_BUSY,
	WP_C_PROBE_HITS,
	WP_C_HOOK_HITS,
	WP_C_CG_WRONG,
#endif
	WP_C_NR,
};

extern const char * const wp_stat_names[WP_ST_NR];
extern const char * const wp_counter_names[WP_C_NR];

struct wp_counters {
	u64 c[WP_C_NR];
};
DECLARE_PER_CPU(struct wp_counters, wp_counters);

static __always_inline void wp_count(enum wp_counter c)
{
	this_cpu_inc(wp_counters.c[c]);
}

/*
 * Test builds count every entry into a probe and the hook, so a test can
 * show that stock with measurement off runs none of them; other builds
 * pay nothing.
 */
#ifdef WAKEPLACE_TEST
#define wp_test_count(c)	wp_count(c)
#else
#define wp_test_count(c)	do { } while (0)
#endif

static __always_inline unsigned int wp_log2_bucket(u64 v)
{
	unsigned int b = v ? ilog2(v) + 1 : 0;

	return b < WP_HIST_BUCKETS ? b : WP_HIST_BUCKETS - 1;
}

static __always_inline unsigned int wp_cost_bucket(u64 ns)
{
	unsigned int b = ns ? ilog2(ns) : 0;

	return b < WP_HIST_BUCKETS ? b : WP_HIST_BUCKETS - 1;
}

int wp_stats_init(void);
void wp_stats_exit(void);
void wp_stats_sum(struct wakeplace_policy *pol, struct wp_pstats *sum);
void wp_stats_reset(struct wakeplace_policy *pol);
u64 wp_counter_sum(enum wp_counter c);
void wp_counters_reset(void);

#endif /* WP_STATS_H */
