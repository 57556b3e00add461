// SPDX-License-Identifier: GPL-2.0
/*
 * The latency histogram's buckets (module/llbucket.h) and the bench
 * tools' copy of the format (bench-scripts/src/llhist.h) against
 * docs/sysfs-kernel-wakeplace: bucket IDX < 64 holds the value IDX; above,
 * with s = IDX / 32 - 1, it holds [(IDX - 32 s) << s, (IDX - 32 s + 1) << s);
 * the module keeps 0..895, 2^32 ns or more in 895.  The expected values
 * below are worked out by hand from that text.
 */
#include <stdlib.h>
#include "llbucket.h"
#include "llhist.h"
#include "tap.h"

struct point {
	u64 v;
	unsigned int idx;	/* its bucket */
	u64 lower, width;	/* that bucket's */
};

static const struct point points[] = {
	{ 0, 0, 0, 1 },
	{ 1, 1, 1, 1 },
	{ 63, 63, 63, 1 },
	{ 64, 64, 64, 2 },		/* s = 1: [32 << 1, 33 << 1) */
	{ 65, 64, 64, 2 },
	{ 66, 65, 66, 2 },
	{ 127, 95, 126, 2 },		/* 63 << 1 */
	{ 128, 96, 128, 4 },		/* s = 2: 32 << 2 */
	{ 1000, 190, 992, 16 },		/* 2^9..2^10: s = 4, 62 << 4 */
	{ 5631, 267, 5504, 128 },	/* s = 7, 43 << 7 */
	{ 1000000, 509, 999424, 16384 },	/* s = 14, 61 << 14 */
	{ (1ULL << 32) - 1, 895, 63ULL << 26, 1ULL << 26 },
};

/* A histogram with @n samples of value @v each. */
static void put(u64 *b, u64 v, u64 n)
{
	b[wp_lat_bucket(v)] += n;
}

static void test_points(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		const struct point *p = &points[i];

		is_u(wp_lat_bucket(p->v), p->idx, "bucket(%llu)", p->v);
		is_u(wp_lat_lower(p->idx), p->lower, "lower(%u)", p->idx);
		is_u(wp_lat_width(p->idx), p->width, "width(%u)", p->idx);
		/* The bench tools read the module's text: same indexes. */
		is_u(llh_index(p->v), p->idx, "llh_index(%llu)", p->v);
		is_u(llh_lower(p->idx), p->lower, "llh_lower(%u)", p->idx);
		is_u(llh_width(p->idx), p->width, "llh_width(%u)", p->idx);
	}
	is_u(WP_LAT_BUCKETS, 896, "the module keeps indexes 0..895");
	is_u(wp_lat_bucket(1ULL << 32), 895, "2^32 ns lands in the last bucket");
	is_u(wp_lat_bucket(~0ULL), 895, "U64_MAX lands in the last bucket");
	/* Uncapped in llhist.h: 2^32 is 32 << 27, the top value 63 << 58. */
	is_u(llh_index(1ULL << 32), 27 * 32 + 32, "llh_index(2^32)");
	is_u(llh_index(~0ULL), 58 * 32 + 63, "llh_index(U64_MAX)");
	ok(llh_index(~0ULL) < LLH_NBUCKETS, "llhist.h has room for U64_MAX");
}

/*
 * Every bucket: it starts where the previous one ended, holds its lower
 * and last value, is at most 1/32 of its value wide above 64, and its
 * width is a power of two.
 */
static void test_tiling(void)
{
	unsigned int i, bad = 0, badw = 0, badx = 0;
	u64 lo, w;

	for (i = 0; i < WP_LAT_BUCKETS; i++) {
		lo = wp_lat_lower(i);
		w = wp_lat_width(i);
		if (i && lo != wp_lat_lower(i - 1) + wp_lat_width(i - 1))
			bad++;
		if (w & (w - 1) || (i >= 64 && w * 32 > lo))
			badw++;
		if (wp_lat_bucket(lo) != i || wp_lat_bucket(lo + w - 1) != i)
			badx++;
	}
	is_u(bad, 0, "buckets 0..895 are contiguous");
	is_u(badw, 0, "widths are powers of two, at most 1/32 of the value");
	is_u(badx, 0, "each bucket's first and last value map back to it");
	is_u(wp_lat_lower(895) + wp_lat_width(895), 1ULL << 32,
	     "bucket 895 ends at 2^32");
}

/*
 * A cgroup assignment's coarse buckets (runs of 8): every run within one
 * width, so the middle index printed for it stands for the whole run.
 */
static void test_coarse(void)
{
	unsigned int r, i, bad = 0;
	unsigned int run = 1U << WP_CG_LAT_SHIFT;

	for (r = 0; r < WP_CG_LAT_BUCKETS; r++)
		for (i = r * run + 1; i < (r + 1) * run; i++)
			if (wp_lat_width(i) != wp_lat_width(r * run))
				bad++;
	is_u(WP_CG_LAT_BUCKETS * run, WP_LAT_BUCKETS,
	     "the coarse buckets tile the module's exactly");
	is_u(bad, 0, "no run of 8 straddles a change of width");
	is_u(wp_lat_bucket(1000) >> WP_CG_LAT_SHIFT, 23,
	     "1000 ns is in coarse bucket 23 (module bucket 190)");
}

static void test_percentile(void)
{
	u64 *b = calloc(WP_LAT_BUCKETS, sizeof(*b));
	uint64_t *l = calloc(LLH_NBUCKETS, sizeof(*l));
	unsigned int v;

	if (!b || !l)
		exit(2);
	is_u(wp_lat_percentile(b, 0, 1, 2), 0, "empty: 0");
	ok(llh_percentile(l, 0.5) < 0, "llhist.h: empty is -1");

	put(b, 100, 1);
	is_u(wp_lat_percentile(b, 1, 1, 2), 100, "one sample of 100: p50");
	is_u(wp_lat_percentile(b, 1, 999, 1000), 100, "one of 100: p999");
	b[wp_lat_bucket(100)] = 0;

	put(b, 1000, 1);
	/* [992, 1008): midpoint 992 + 15 / 2, rounded down. */
	is_u(wp_lat_percentile(b, 1, 1, 2), 999, "one of 1000: 999");
	b[wp_lat_bucket(1000)] = 0;

	/* Values 1..10 once: ranks ceil(10 q) are 5, 9, 10, 10. */
	for (v = 1; v <= 10; v++) {
		put(b, v, 1);
		l[llh_index(v)]++;
	}
	is_u(wp_lat_percentile(b, 10, 1, 2), 5, "1..10: p50");
	is_u(wp_lat_percentile(b, 10, 9, 10), 9, "1..10: p90");
	is_u(wp_lat_percentile(b, 10, 99, 100), 10, "1..10: p99");
	is_u(wp_lat_percentile(b, 10, 999, 1000), 10, "1..10: p999");
	is_u(wp_lat_percentile(b, 10, 0, 1), 1, "1..10: rank 0 counts as 1");
	is_near(llh_percentile(l, 0.5), 5, 0, "llhist.h 1..10: p50");
	is_near(llh_percentile(l, 0.9), 9, 0, "llhist.h 1..10: p90");
	is_near(llh_percentile(l, 0.99), 10, 0, "llhist.h 1..10: p99");
	memset(b, 0, WP_LAT_BUCKETS * sizeof(*b));

	/* 999 of 1 and one of 50: rank 999 of 1000 is a 1, of 1001 the 50. */
	put(b, 1, 999);
	put(b, 50, 1);
	is_u(wp_lat_percentile(b, 1000, 999, 1000), 1, "rank 999 of 1000");
	put(b, 50, 1);
	is_u(wp_lat_percentile(b, 1001, 999, 1000), 50, "rank 1000 of 1001");
	memset(b, 0, WP_LAT_BUCKETS * sizeof(*b));

	/* 4.3 s: the last bucket, [63 << 26, 2^32), midpoint rounded down. */
	put(b, 5000000000ULL, 3);
	is_u(wp_lat_percentile(b, 3, 1, 2), (63ULL << 26) + (1ULL << 25) - 1,
	     "beyond 2^32 ns: the last bucket's midpoint");
	/* A total above the counts (torn read) ends in the last bucket. */
	memset(b, 0, WP_LAT_BUCKETS * sizeof(*b));
	put(b, 10, 1);
	is_u(wp_lat_percentile(b, 2, 1, 1), (63ULL << 26) + (1ULL << 25) - 1,
	     "total above the counts: the last bucket");
	/* 2^44 samples (hours at a billion wakeups a second): exact rank. */
	memset(b, 0, WP_LAT_BUCKETS * sizeof(*b));
	put(b, 7, (1ULL << 44) - 1);
	put(b, 8, 1);
	is_u(wp_lat_percentile(b, 1ULL << 44, 999, 1000), 7,
	     "2^44 samples: p999 without overflow");
	is_u(wp_lat_percentile(b, 1ULL << 44, 1, 1), 8,
	     "2^44 samples: p100 is the largest");
	free(b);
	free(l);
}

/* The text form: what the module prints, wpstats and the tools parse. */
static void test_text(void)
{
	static const char * const bad[] = {
		"", "L5ns", "l6ns", "L6ns;", "L6ns;5", "L6ns;5:", "L6ns;:3",
		"L6ns;5:3;", "L6ns;5:3x", "L6ns 5:3", "L6ns;1952:1",
		"L6ns;-1:3", "L6ns;5:-3", "L6ns;5:+3", "L6ns;5: 3",
		"L6ns;+5:3", "L6ns;5:3,6:1",
	};
	uint64_t *l = calloc(LLH_NBUCKETS, sizeof(*l));
	unsigned int i;
	char buf[256];
	FILE *f;

	if (!l)
		exit(2);
	ok(llh_parse_add("L6ns", l) == 0 && llh_total(l) == 0,
	   "\"L6ns\" alone: empty");
	ok(llh_parse_add("L6ns;5:3;895:2\n", l) == 0 && l[5] == 3 &&
	   l[895] == 2 && llh_total(l) == 5, "two buckets, newline");
	ok(llh_parse_add("L6ns;5:1", l) == 0 && l[5] == 4,
	   "merging adds counts");
	ok(llh_parse_add("L6ns;1951:1", l) == 0 && l[1951] == 1,
	   "the last index of llhist.h");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(l, 0, LLH_NBUCKETS * sizeof(*l));
		ok(llh_parse_add(bad[i], l) == -1, "rejects \"%s\"", bad[i]);
	}
	memset(l, 0, LLH_NBUCKETS * sizeof(*l));
	l[0] = 1;
	l[64] = 18446744073709551615ULL;
	f = fmemopen(buf, sizeof(buf), "w");
	if (!f)
		exit(2);
	llh_print(f, l);
	fclose(f);
	ok(!strcmp(buf, "L6ns;0:1;64:18446744073709551615"),
	   "printed as \"%s\"", buf);
	free(l);
}

int main(void)
{
	test_points();
	test_tiling();
	test_coarse();
	test_percentile();
	test_text();
	return tap_done();
}
