/* SPDX-License-Identifier: GPL-2.0 */
/*
 * llhist.h - log-linear latency histogram shared by wakelat, rr and wpstats.
 *
 * Values are nanoseconds (uint64_t), in the module's buckets
 * (module/llbucket.h): values below 2^LLH_SUB_BITS get one bucket each;
 * above that every power of two is split into 2^(LLH_SUB_BITS - 1) equal
 * buckets, so a bucket is at most 1/32 (3.1%) of its value wide.  Bucket
 * i >= 2^LLH_SUB_BITS covers
 *	[m << s, (m + 1) << s)  with  s = i / H - 1,  m = i - s * H,
 * where H = 2^(LLH_SUB_BITS - 1).  Unlike the module's, the buckets here
 * go on to 2^64 - 1.
 *
 * The text form, used in the benchmark output lines and the CSV, is
 *	L6ns;IDX:COUNT;IDX:COUNT;...
 * listing the non-zero buckets in increasing order ("L6ns" alone when
 * empty).  It contains no spaces and no commas.  Two histograms are merged
 * by adding their counts bucket by bucket, which is exact: percentiles are
 * taken from merged histograms, never averaged.
 */
#ifndef WP_LLHIST_H
#define WP_LLHIST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/llbucket.h"

#define LLH_SUB_BITS	WP_LAT_SUB_BITS
#define LLH_HALF	WP_LAT_HALF
#define LLH_NBUCKETS	((64 - LLH_SUB_BITS + 1) * LLH_HALF + LLH_HALF * 2)
#define LLH_TAG		WP_LAT_TAG

#define llh_index(v)	wp_ll_index(v)
#define llh_lower(i)	wp_lat_lower(i)
#define llh_width(i)	wp_lat_width(i)

/* Midpoint of the bucket holding the sample of rank ceil(q * total). */
static inline double llh_percentile(const uint64_t *b, double q)
{
	uint64_t total = 0, rank, seen = 0;
	unsigned int i;

	for (i = 0; i < LLH_NBUCKETS; i++)
		total += b[i];
	if (!total)
		return -1.0;
	rank = (uint64_t)(q * (double)total + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (rank > total)
		rank = total;
	for (i = 0; i < LLH_NBUCKETS; i++) {
		seen += b[i];
		if (seen >= rank)
			break;
	}
	if (i == LLH_NBUCKETS)
		i = LLH_NBUCKETS - 1;
	return (double)llh_lower(i) + (double)(llh_width(i) - 1) / 2.0;
}

static inline uint64_t llh_total(const uint64_t *b)
{
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < LLH_NBUCKETS; i++)
		total += b[i];
	return total;
}

static inline void llh_print(FILE *f, const uint64_t *b)
{
	unsigned int i;

	fputs(LLH_TAG, f);
	for (i = 0; i < LLH_NBUCKETS; i++)
		if (b[i])
			fprintf(f, ";%u:%llu", i, (unsigned long long)b[i]);
}

/* Add the histogram in text form @s to @b.  Returns 0, or -1 if malformed. */
static inline int llh_parse_add(const char *s, uint64_t *b)
{
	size_t n = strlen(LLH_TAG);
	char *end;

	if (strncmp(s, LLH_TAG, n))
		return -1;
	s += n;
	while (*s == ';') {
		unsigned long idx;
		unsigned long long cnt;

		s++;
		/* Digits only: strtoul() would also take spaces and a sign. */
		if (*s < '0' || *s > '9')
			return -1;
		idx = strtoul(s, &end, 10);
		if (*end != ':' || idx >= LLH_NBUCKETS)
			return -1;
		s = end + 1;
		if (*s < '0' || *s > '9')
			return -1;
		cnt = strtoull(s, &end, 10);
		s = end;
		b[idx] += cnt;
	}
	return (*s == '\0' || *s == '\n' || *s == '\r') ? 0 : -1;
}

#endif /* WP_LLHIST_H */
