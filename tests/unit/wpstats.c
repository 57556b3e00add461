// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics of bench-scripts/src/wpstats.c, compiled in (its main()
 * is left out with WP_UNIT): quantiles, the normal and t quantiles, the
 * expanded bootstrap tail, the generator and hash that seed it, the
 * geometric mean and its interval, block means and a whole analysis.
 * Expected values are worked out by hand or from tables: the normal
 * quantiles from Python's statistics.NormalDist, Student's t from the
 * usual two-sided 95% table, splitmix64's first outputs from its
 * reference implementation.
 */
#define WP_UNIT
#include "../../bench-scripts/src/wpstats.c"
#include "tap.h"

static void test_quantile(void)
{
	static const double a[] = { 1, 2, 3, 4 }, one[] = { 7 };

	is_near(quantile(a, 4, 0), 1, 0, "quantile q=0: the minimum");
	is_near(quantile(a, 4, 0.25), 1.75, 1e-15, "q=0.25 interpolates");
	is_near(quantile(a, 4, 0.5), 2.5, 1e-15, "q=0.5: 2.5");
	is_near(quantile(a, 4, 1), 4, 0, "q=1: the maximum");
	is_near(quantile(one, 1, 0.5), 7, 0, "one value: itself");
}

static void test_normal_t(void)
{
	is_near(z_upper(0.025), 1.959963984540054, 1e-9, "z 97.5%%");
	is_near(z_upper(0.05), 1.644853626951472, 1e-9, "z 95%%");
	is_near(z_upper(0.005), 2.575829303548901, 1e-9, "z 99.5%%");
	ok(fabs(z_upper(0.5)) < 1e-9, "z 50%%: 0");
	/* Cornish-Fisher: within 0.1% of the table from 4 degrees on. */
	is_near(t_upper(z_upper(0.025), 4), 2.776445, 1e-3, "t 97.5%% df 4");
	is_near(t_upper(z_upper(0.025), 10), 2.228139, 1e-4, "t 97.5%% df 10");
	is_near(t_upper(z_upper(0.025), 30), 2.042272, 1e-5, "t 97.5%% df 30");
	is_near(t_upper(z_upper(0.025), 1e9), 1.959963985, 1e-9,
		"t with infinite df is z");
	/* sqrt(n / (n - 1)) t(n - 1) = 3.10416 for n = 5: P(Z > it). */
	conf = 0.95;
	is_near(expanded_tail(5), 0.000954101, 0.01, "expanded tail, n 5");
	is_near(expanded_tail(10), 0.00855064, 0.001, "expanded tail, n 10");
	/* t(999) = 1.962341: a little under the plain 2.5%. */
	is_near(expanded_tail(1000), 0.0248043, 0.001,
		"expanded tail, n 1000");
}

static void test_seed(void)
{
	uint64_t x = 0;

	is_u(splitmix(&x), 0xe220a8397b1dcdafULL, "splitmix64(0) #1");
	is_u(splitmix(&x), 0x6e789e6aa1b965f4ULL, "splitmix64(0) #2");
	is_u(splitmix(&x), 0x06c45d188009454fULL, "splitmix64(0) #3");
	/* FNV-1a 64 of the key, then of one 0xff byte as a terminator. */
	is_u(fnv("", 0xcbf29ce484222325ULL), 0xaf64724c8602eb6eULL,
	     "fnv of \"\"");
	is_u(fnv("a", 0xcbf29ce484222325ULL), 0x089bc907b544c769ULL,
	     "fnv of \"a\"");
}

static struct mdef thr = { "t", "ops", "ops/s", 1, K_THR };
static struct mdef lat = { "t", "lat", "usec", 0, K_TIME };
static struct group gthr = { "t", "1", "ops", &thr, { NULL } };
static struct group glat = { "t", "1", "lat", &lat, { NULL } };

/* gm_ci() on @k copies of @v, on a row of @g. */
static struct row ci_of(const double *logs, int k, struct group *g)
{
	struct row r = { .g = g };

	gm_ci(logs, k, "key", &r);
	return r;
}

static void test_gm_ci(void)
{
	double l[8] = { 0 }, sym[6] = { 0.1, -0.1, 0.05, -0.05, 0.2, -0.2 };
	struct row r, r2;
	int i;

	seed = 1;
	resamples = 4000;
	min_pairs = 5;
	fail_pct = -1;
	r = ci_of(l, 0, &gthr);
	ok(r.pairs == 0 && isnan(r.gmean) && isnan(r.lo) && isnan(r.hi) &&
	   !r.sig, "no pairs: no mean, no interval");
	l[0] = log(2);
	r = ci_of(l, 1, &gthr);
	ok(fabs(r.gmean - 2) < 1e-12 && isnan(r.lo) && !r.sig,
	   "one pair: its ratio, no interval");
	l[1] = log(8);
	r = ci_of(l, 2, &gthr);
	is_near(r.gmean, 4, 1e-12, "gmean of 2 and 8 is 4");
	ok(r.lo >= 2 - 1e-12 && r.hi <= 8 + 1e-12 && r.lo <= r.hi,
	   "its interval lies within [2, 8]");

	for (i = 0; i < 8; i++)
		l[i] = log(1.1);
	r = ci_of(l, 4, &gthr);
	ok(fabs(r.lo - 1.1) < 1e-12 && fabs(r.hi - 1.1) < 1e-12 && !r.sig,
	   "4 equal pairs: [1.1, 1.1], under min-pairs: not significant");
	r = ci_of(l, 5, &gthr);
	ok(r.sig && !r.regress, "5 pairs of 1.1: significant");
	fail_pct = 5;
	r = ci_of(l, 5, &gthr);
	ok(r.sig && !r.regress, "higher is better: 1.1 is no regression");
	r = ci_of(l, 5, &glat);
	ok(r.sig && r.regress, "lower is better: 1.1 > 1.05 regresses");
	fail_pct = 10;
	r = ci_of(l, 5, &glat);
	ok(r.sig && !r.regress, "...but not by more than 10%%");
	fail_pct = -1;

	r = ci_of(sym, 6, &gthr);
	is_near(r.gmean, 1, 1e-12, "symmetric logs: gmean 1");
	ok(r.lo < 1 && r.hi > 1 && !r.sig, "an interval around 1: not *");
	r2 = ci_of(sym, 6, &gthr);
	ok(r.lo == r2.lo && r.hi == r2.hi, "the same seed, the same interval");
	seed = 2;
	r2 = ci_of(sym, 6, &gthr);
	ok(r.lo != r2.lo || r.hi != r2.hi, "another seed, other resamples");
	seed = 1;
}

/* Pass @text to @fn as a file, as wpstats' options do. */
static void read_tmp(void (*fn)(const char *path), const char *text)
{
	char name[] = "/tmp/wp-unit-XXXXXX";
	int fd = mkstemp(name);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		exit(2);
	close(fd);
	fn(name);
	unlink(name);
}

/*
 * Blocks and a whole analysis, from a CSV through read_csv(): two ABBA
 * rounds, one sample per block.  lat (time, Amean): stock 10 then 20,
 * new 12 then 18 in both rounds.  ops (throughput, Hmean): stock 1, 2, 4
 * in one block.  hist: 100 ns and 1000 ns in two blocks.
 */
static const char metrics[] =
	"u lat lower time usec\n"
	"u ops higher throughput ops/s\n"
	"u h lower hist usec\n";
static const char csv[] =
	"timestamp,rep,block,policy,workload,level,metric,value\n"
	"0,1,1,stock,u,1,lat,10\n"
	"0,1,2,new,u,1,lat,12\n"
	"0,1,3,new,u,1,lat,18\n"
	"0,1,4,stock,u,1,lat,20\n"
	"0,2,5,stock,u,1,lat,10\n"
	"0,2,6,new,u,1,lat,12\n"
	"0,2,7,new,u,1,lat,18\n"
	"0,2,8,stock,u,1,lat,20\n"
	"0,1,11,stock,u,1,ops,1\n"
	"0,1,11,stock,u,1,ops,2\n"
	"0,1,11,stock,u,1,ops,4\n"
	"0,1,12,new,u,1,ops,3\n"
	"0,1,13,new,u,1,ops,0\n"
	"0,1,21,stock,u,1,h,L6ns;82:1\n"
	"0,1,22,stock,u,1,h,L6ns;190:1\n"
	"0,1,23,new,u,1,h,L6ns\n";

static int find_block(long id)
{
	int i;

	for (i = 0; i < nblocks; i++)
		if (blocks[i].id == id)
			return i;
	exit(2);
}

static const struct row *find_row(const char *metric, const char *policy)
{
	int i;

	for (i = 0; i < nrows; i++)
		if (!strcmp(rows[i].metric, metric) &&
		    !strcmp(rows[i].policy, policy))
			return &rows[i];
	return NULL;
}

static void test_analysis(void)
{
	int stock, g, idx[2];
	const struct row *b, *n, *aa;

	read_tmp(load_metrics, metrics);
	read_tmp(read_csv, csv);
	stock = policy_index("stock");

	is_near(block_value(&blocks[find_block(11)], 0), 12.0 / 7, 1e-12,
		"Hmean of 1, 2, 4 is 3 / 1.75");
	is_near(block_value(&blocks[find_block(13)], 0), 0, 0,
		"a block with a value <= 0: Hmean 0");
	idx[0] = find_block(11);
	idx[1] = find_block(12);
	is_near(combine(idx, 2, K_THR, 0), 24.0 / 11, 1e-12,
		"Hmean of the blocks' Hmeans 12/7 and 3: 2 / (7/12 + 1/3)");
	idx[1] = find_block(13);
	is_near(combine(idx, 2, K_THR, 0), 0, 0, "...with a 0 block: 0");
	idx[0] = find_block(1);
	idx[1] = find_block(4);
	is_near(combine(idx, 2, K_TIME, 0), 15, 1e-12, "Amean of 10, 20");
	/* Histograms: 100 ns in [100, 102), 1000 in [992, 1008), in usec. */
	idx[0] = find_block(21);
	idx[1] = find_block(22);
	is_near(block_value(&blocks[idx[0]], 0.5), 0.1005, 1e-12,
		"hist block p50: the bucket's midpoint 100.5 ns");
	is_near(combine(idx, 2, K_HIST, 0.5), 0.1005, 1e-12,
		"merged p50: rank 1 of 2");
	is_near(combine(idx, 2, K_HIST, 0.99), 0.9995, 1e-12,
		"merged p99: rank 2 of 2, 999.5 ns");
	ok(isnan(block_value(&blocks[find_block(23)], 0.5)),
	   "an empty histogram has no value");

	for (g = 0; g < ngroups; g++)
		if (!strcmp(groups[g].metric, "lat"))
			analyse_group(g, 0, stock);
	b = find_row("lat", "stock");
	n = find_row("lat", "new");
	aa = find_row("lat", "A/A");
	if (!ok(b && n && aa, "baseline, compare and A/A rows"))
		return;
	ok(b->n == 4 && b->samples == 4 && n->n == 4, "4 blocks each");
	is_near(b->mean, 15, 1e-12, "stock: Amean 15");
	/* sd of 10, 20, 10, 20 (n - 1): sqrt(100 / 3); of 12, 18, ...: sqrt(12) */
	is_near(b->cv, 100 * sqrt(100.0 / 3) / 15, 1e-12, "stock: cv 38.5%%");
	is_near(n->cv, 100 * sqrt(12.0) / 15, 1e-12, "new: cv 23.1%%");
	is_near(n->ratio, 1, 1e-12, "new / stock = 1");
	ok(n->pairs == 2 && fabs(n->gmean - 1) < 1e-12 &&
	   fabs(n->lo - 1) < 1e-12 && fabs(n->hi - 1) < 1e-12 && !n->sig,
	   "two rounds of 15 / 15: gmean 1, interval [1, 1]");
	ok(aa->n == 4 && aa->pairs == 2 && fabs(aa->gmean - 0.5) < 1e-12,
	   "A/A: first / second stock block, 10 / 20 twice");
}

int main(void)
{
	test_quantile();
	test_normal_t();
	test_seed();
	test_gm_ci();
	test_analysis();
	return tap_done();
}
