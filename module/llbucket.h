/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The latency histogram's bucket arithmetic, shared by the module and, in
 * userspace, by bench-scripts/src/llhist.h (the bench tools and
 * wakeplacectl read the module's histograms) and tests/unit, which checks
 * it against the format documented in docs/sysfs-kernel-wakeplace.  So
 * it uses only <linux/types.h>, the kernel's or the UAPI's.
 */
#ifndef WP_LLBUCKET_H
#define WP_LLBUCKET_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/math64.h>
#define wp_ll_div(a, b)		div64_u64(a, b)
#else
#define wp_ll_div(a, b)		((a) / (b))
#endif

/*
 * Log-linear buckets ("L6ns"): one bucket per ns below 64 ns, then 32 per
 * power of two, so a bucket is at most 1/32 of its value wide.  The
 * module keeps the buckets of values below 2^32 ns; longer latencies
 * (4.29 s and more) land in the last one.
 */
#define WP_LAT_SUB_BITS		6
#define WP_LAT_HALF		(1U << (WP_LAT_SUB_BITS - 1))
#define WP_LAT_MAX_LOG2		32
#define WP_LAT_BUCKETS		((WP_LAT_MAX_LOG2 - WP_LAT_SUB_BITS + 1) * \
				 WP_LAT_HALF + WP_LAT_HALF)
#define WP_LAT_TAG		"L6ns"

/*
 * The coarse histogram of a cgroup assignment (cgroup_latency_hist): one
 * bucket for each run of 1 << WP_CG_LAT_SHIFT of the module's, index
 * wp_lat_bucket(v) >> WP_CG_LAT_SHIFT.  Runs never straddle a power of
 * two (32 buckets each, and the 64 one-ns ones): 4 per power of two.
 */
#define WP_CG_LAT_SHIFT		3
#define WP_CG_LAT_BUCKETS	(WP_LAT_BUCKETS >> WP_CG_LAT_SHIFT)

/* The bucket of @v ns, uncapped (inline, so notrace in the kernel). */
static inline unsigned int wp_ll_index(__u64 v)
{
	unsigned int shift;

	if (v < (1ULL << WP_LAT_SUB_BITS))
		return v;
	/* fls64(v) - WP_LAT_SUB_BITS, in userspace too (v is not 0) */
	shift = 64 - __builtin_clzll(v) - WP_LAT_SUB_BITS;
	return shift * WP_LAT_HALF + (unsigned int)(v >> shift);
}

/* The module's bucket of a latency of @v ns. */
static inline unsigned int wp_lat_bucket(__u64 v)
{
	if (v >= (1ULL << WP_LAT_MAX_LOG2))
		return WP_LAT_BUCKETS - 1;
	return wp_ll_index(v);
}

/* The smallest value of bucket @i. */
static inline __u64 wp_lat_lower(unsigned int i)
{
	unsigned int shift;

	if (i < (1U << WP_LAT_SUB_BITS))
		return i;
	shift = i / WP_LAT_HALF - 1;
	return (__u64)(i - shift * WP_LAT_HALF) << shift;
}

/* How many values bucket @i holds. */
static inline __u64 wp_lat_width(unsigned int i)
{
	if (i < (1U << WP_LAT_SUB_BITS))
		return 1;
	return 1ULL << (i / WP_LAT_HALF - 1);
}

/**
 * wp_lat_percentile() - a percentile of one histogram row.
 * @b: WP_LAT_BUCKETS counts.
 * @total: their sum.
 * @num: the quantile's numerator (e.g. 999)...
 * @den: ...and denominator (e.g. 1000).
 *
 * Return: the midpoint, rounded down, of the bucket holding the sample of
 * rank ceil(@total * @num / @den), in ns (llhist.h's rule); 0 if empty.
 */
static inline __u64 wp_lat_percentile(const __u64 *b, __u64 total,
				      unsigned int num, unsigned int den)
{
	__u64 rank, seen = 0;
	unsigned int i;

	if (!total)
		return 0;
	rank = wp_ll_div(total * num + den - 1, den);
	if (!rank)
		rank = 1;
	for (i = 0; i < WP_LAT_BUCKETS - 1; i++) {
		seen += b[i];
		if (seen >= rank)
			break;
	}
	return wp_lat_lower(i) + (wp_lat_width(i) - 1) / 2;
}

#endif /* WP_LLBUCKET_H */
