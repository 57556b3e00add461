// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics: counters are per CPU and only ever incremented by their own
 * CPU with IRQs off, so the wakeup path needs no atomics.  A reset does not
 * write other CPUs' counters (that would race with them): it records a
 * baseline that reads subtract.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/seqlock.h>
#include "registry.h"
#include "stats.h"

/* The outcome rows, named as in outcomes.h. */
#define WP_OUT_NAME(v, e, n, c, t, d)	#n
#define WP_OUT_STACKED(v, e, n, c, t, d)	"stacked_" #n
#define WP_OUT_MISSED(v, e, n, c, t, d)	"missed_" #n
#define WP_OUT_DOUBLE(v, e, n, c, t, d)	"double_" #n

const char * const wp_stat_names[WP_ST_NR] = {
	[WP_ST_PICKS]		= "picks",
	[WP_ST_OUT]		= WP_OUTCOMES(WP_OUT_NAME),
	[WP_ST_CLAIM_LOST]	= "claim_lost",
	[WP_ST_STALE_HINT]	= "stale_hint",
	[WP_ST_STALE_PENDING]	= "stale_pending",
	[WP_ST_STALE_RUNNING]	= "stale_running",
	[WP_ST_STALE_PREEMPTED]	= "stale_preempted",
	[WP_ST_SCANNED]		= "scanned",
	[WP_ST_REMOTE]		= "remote_lines",
	[WP_ST_CROSS_LLC]	= "cross_llc",
	[WP_ST_NOT_PREV]	= "not_prev",
	[WP_ST_COST_SAMPLES]	= "cost_samples",
	[WP_ST_COST_NS]		= "cost_ns",
	[WP_ST_SHADOW_CMP]	= "shadow_compared",
	[WP_ST_SHADOW_AGREE]	= "shadow_agreed",
	[WP_ST_TRACKED]		= "tracked",
	[WP_ST_STACKED]		= "stacked",
	[WP_ST_DOUBLE]		= "double_picks",
	[WP_ST_MOVED]		= "moved",
	[WP_ST_MIGRATED]	= "migrated",
	[WP_ST_MIGRATED_LLC]	= "migrated_llc",
	[WP_ST_MISSED]		= "missed_idle",
	[WP_ST_UNPLACED]	= "unplaced",
	[WP_ST_STACKED_OUT]	= WP_OUTCOMES(WP_OUT_STACKED),
	[WP_ST_MISSED_OUT]	= WP_OUTCOMES(WP_OUT_MISSED),
	[WP_ST_DOUBLE_OUT]	= WP_OUTCOMES(WP_OUT_DOUBLE),
};
#undef WP_OUT_NAME
#undef WP_OUT_STACKED
#undef WP_OUT_MISSED
#undef WP_OUT_DOUBLE

/*
 * The tracepoint prints an outcome by the value outcomes.h gives it: a
 * value that is not its enum's is a negative array size here.
 */
#define WP_OUT_CHECK(v, e, n, c, t, d)	sizeof(char[(v) == WP_OUT_##e ? 1 : -1])
static const char wp_out_check[] __maybe_unused = { WP_OUTCOMES(WP_OUT_CHECK) };
#undef WP_OUT_CHECK

const char * const wp_counter_names[WP_C_NR] = {
	[WP_C_CALLS]		= "calls",
	[WP_C_WAKEUPS]		= "wakeups",
	[WP_C_REDIRECTED]	= "redirected",
	[WP_C_HANDED_BACK]	= "handed_back",
	[WP_C_CORRECTED]	= "corrected",
	[WP_C_SLOW]		= "slow",
	[WP_C_REVERTED]		= "reverted",
	[WP_C_SWITCHES]		= "switches",
	[WP_C_REBUILDS]		= "rebuilds",
	[WP_C_STALE]		= "stale",
	[WP_C_UNBUILT]		= "unbuilt",
	[WP_C_CORE_CLAIMS]	= "core_claims",
	[WP_C_CORE_CLAIM_BUSY]	= "core_claim_busy",
	[WP_C_LAT_DROPPED]	= "lat_dropped",
	[WP_C_INACTIVE]		= "inactive",
	[WP_C_IDLE_PENDING]	= "idle_pending",
	[WP_C_REMARK_HELD]	= "remark_held",
	[WP_C_CG_WAKEUPS]	= "cgroup_wakeups",
	[WP_C_CG_CHANGES]	= "cgroup_changes",
	[WP_C_CG_REMOVED]	= "cgroup_removed",
	[WP_C_CG_MISSES]	= "cgroup_lookup_misses",
#ifdef WAKEPLACE_TEST
	[WP_C_AUDITED]		= "audited",
	[WP_C_FALSE_BUSY]	= "false_busy",
	[WP_C_PROBE_HITS]	= "probe_hits",
	[WP_C_HOOK_HITS]	= "hook_hits",
	[WP_C_CG_WRONG]		= "cgroup_cache_wrong",
#endif
};

DEFINE_PER_CPU(struct wp_counters, wp_counters);
static struct wp_counters wp_counters_base;

/*
 * Readers of statistics and counters take no lock (they must not delay a
 * switch or the revert): a reset, under wp_mutex, moves the baselines
 * inside this sequence count, and a reader that overlapped one retries.
 */
static seqcount_mutex_t wp_base_seq;

/* Baselines of the policies' stats, indexed like wp_policies[]. */
static struct wp_pstats *wp_base;

int wp_stats_init(void)
{
	unsigned int i;

	seqcount_mutex_init(&wp_base_seq, &wp_mutex);
	wp_base = kcalloc(wp_nr_policies, sizeof(*wp_base), GFP_KERNEL);
	if (!wp_base)
		return -ENOMEM;
	for (i = 0; i < wp_nr_policies; i++) {
		wp_policies[i]->stats = alloc_percpu(struct wp_pstats);
		if (!wp_policies[i]->stats) {
			wp_stats_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

void wp_stats_exit(void)
{
	unsigned int i;

	for (i = 0; i < wp_nr_policies; i++) {
		free_percpu(wp_policies[i]->stats);
		wp_policies[i]->stats = NULL;
	}
	kfree(wp_base);
	wp_base = NULL;
}

static void wp_stats_raw(struct wakeplace_policy *pol, struct wp_pstats *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		struct wp_pstats *s = per_cpu_ptr(pol->stats, cpu);

		for (i = 0; i < WP_ST_NR; i++)
			sum->v[i] += READ_ONCE(s->v[i]);
		for (i = 0; i < WP_HIST_BUCKETS; i++) {
			sum->scan_hist[i] += READ_ONCE(s->scan_hist[i]);
			sum->cost_hist[i] += READ_ONCE(s->cost_hist[i]);
		}
	}
}

/**
 * wp_stats_sum() - @pol's statistics since load or its last reset.
 * @pol: a registered policy.
 * @sum: out: the per-CPU statistics added up, minus the reset baseline.
 *
 * Lock-free; may be called while wakeups and resets go on.
 */
void wp_stats_sum(struct wakeplace_policy *pol, struct wp_pstats *sum)
{
	struct wp_pstats *b = &wp_base[wp_policy_index(pol)];
	unsigned int seq;
	int i;

	do {
		seq = read_seqcount_begin(&wp_base_seq);
		wp_stats_raw(pol, sum);
		for (i = 0; i < WP_ST_NR; i++)
			sum->v[i] -= READ_ONCE(b->v[i]);
		for (i = 0; i < WP_HIST_BUCKETS; i++) {
			sum->scan_hist[i] -= READ_ONCE(b->scan_hist[i]);
			sum->cost_hist[i] -= READ_ONCE(b->cost_hist[i]);
		}
	} while (read_seqcount_retry(&wp_base_seq, seq));
	/*
	 * Shadow agreements are derived from the disagreements the CPUs
	 * count: two counters summed while they run are no snapshot, and
	 * counting agreements let a read show more of them than
	 * comparisons.  This way agreed <= compared in every read.
	 */
	sum->v[WP_ST_SHADOW_AGREE] = sum->v[WP_ST_SHADOW_CMP] -
		min(sum->v[WP_ST_SHADOW_CMP], sum->v[WP_ST_SHADOW_AGREE]);
}

/**
 * wp_stats_reset() - zero @pol's statistics (move its baseline); its
 * latency histograms are wp_lat_reset()'s.
 * @pol: a registered policy.
 *
 * Context: wp_mutex held.
 */
void wp_stats_reset(struct wakeplace_policy *pol)
{
	lockdep_assert_held(&wp_mutex);
	write_seqcount_begin(&wp_base_seq);
	wp_stats_raw(pol, &wp_base[wp_policy_index(pol)]);
	write_seqcount_end(&wp_base_seq);
}

static u64 wp_counter_raw(enum wp_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&wp_counters, cpu)->c[c]);
	return sum;
}

/**
 * wp_counter_sum() - a hook counter since load or the last reset.
 * @c: the counter.
 *
 * Lock-free.
 *
 * Return: the sum over all CPUs minus the reset baseline.
 */
u64 wp_counter_sum(enum wp_counter c)
{
	unsigned int seq;
	u64 v;

	do {
		seq = read_seqcount_begin(&wp_base_seq);
		v = wp_counter_raw(c) - READ_ONCE(wp_counters_base.c[c]);
	} while (read_seqcount_retry(&wp_base_seq, seq));
	return v;
}

/**
 * wp_counters_reset() - zero the hook counters but switches and reverted.
 *
 * Context: wp_mutex held.
 */
void wp_counters_reset(void)
{
	int i;

	lockdep_assert_held(&wp_mutex);
	write_seqcount_begin(&wp_base_seq);
	for (i = 0; i < WP_C_NR; i++)
		if (i != WP_C_SWITCHES && i != WP_C_REVERTED)
			WRITE_ONCE(wp_counters_base.c[i], wp_counter_raw(i));
	write_seqcount_end(&wp_base_seq);
}
