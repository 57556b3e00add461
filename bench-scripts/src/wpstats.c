// SPDX-License-Identifier: GPL-2.0
/*
 * wpstats - A/B statistics for wakeplace benchmark runs.
 *
 * Input: long-format CSV with the header
 *	timestamp,rep,block,policy,workload,level,metric,value
 * one line per sample.  A block is one uninterrupted run of one policy; a
 * rep (round) is one ABBA sequence in which every policy has its blocks.
 *
 * For every (workload, level, metric, policy) it reports:
 *	n		blocks
 *	samples		samples in those blocks
 *	mean		Hmean for throughput metrics, Amean for times, the
 *			percentile of the merged histogram for histograms
 *			(each block first reduced to one value the same way)
 *	cv%		100 * sd / mean of the block values
 *	ratio		mean / mean of the baseline
 *	gmean, CI	geometric mean of the paired per-round ratios
 *			policy/baseline and its bootstrap interval (expanded
 *			percentile method, seeded: output is deterministic)
 *	*		the interval excludes 1.0 and there are at least
 *			min-pairs pairs
 * and an A/A control row per group: the two baseline blocks of each round
 * compared with each other (first / second).
 *
 * Exit status: 0 ok, 2 bad usage or input, 3 when -f PCT is given and a
 * significant ratio is worse than the baseline by more than PCT percent.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>

#include "wpcommon.h"
#include "json.h"

enum kind { K_THR, K_TIME, K_HIST, K_INFO };

static const char *prog = "wpstats";

struct mdef {
	char *workload, *metric, *unit;
	int higher;
	enum kind kind;
};

struct group {
	char *workload, *level, *metric;
	const struct mdef *def;
	char *qname[4];		/* hist: the rows' names, one per quantile */
};

struct block {
	int group, policy;
	long rep, id;
	long n;
	double sum, suminv;
	int nonpos;
	uint64_t *hist;
};

struct row {
	const struct group *g;
	const char *metric;		/* shown name (derived for hist) */
	const char *policy;
	const char *role;		/* baseline, compare, aa */
	int n;
	long samples;
	double mean, cv, ratio;
	int pairs;
	double gmean, lo, hi;
	int sig, regress;
};

static struct mdef *defs;
static int ndefs;
static struct group *groups;
static int ngroups;
static char **policies;
static int npolicies;
static struct block *blocks;
static int nblocks;
static struct row *rows;
static int nrows;

static uint64_t seed = 1;
static int resamples = 4000;
static int min_pairs = 5;
static double conf = 0.95;
static double fail_pct = -1;
static const char *baseline;
static int base_idx = -1;

enum format { F_OURS, F_MMTESTS, F_LKP };

static enum format format = F_OURS;

static const double hist_q[] = { 0.50, 0.90, 0.99, 0.999 };
static const char *const hist_suffix[] = {
	"p50_us", "p90_us", "p99_us", "p999_us"
};

/* Bad usage or input: message and exit 2, as in the load generators. */
#define die(...)	wp_die(prog, __VA_ARGS__)

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("out of memory");
	return d;
}

/*
 * Name of a histogram's percentile row: the workloads' own "hist" gives
 * lat_p50_us ..., any other histogram metric M gives M_p50_us ...
 */
static const char *hist_row_name(struct group *g, int qi)
{
	const char *m = g->metric;
	size_t n;

	if (g->qname[qi])
		return g->qname[qi];
	if (!strcmp(m, "hist"))
		m = "lat";
	n = strlen(m) + strlen(hist_suffix[qi]) + 2;
	g->qname[qi] = xrealloc(NULL, n);
	snprintf(g->qname[qi], n, "%s_%s", m, hist_suffix[qi]);
	return g->qname[qi];
}

/* ---------------------------------------------------------- metrics -- */

static void load_metrics(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int lineno = 0;

	if (!f)
		die("cannot open metrics table %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char w[128], m[128], b[16], k[16], u[64] = "-";
		struct mdef *d;
		int nf;

		lineno++;
		if (line[strspn(line, " \t")] == '#' ||
		    line[strspn(line, " \t\r\n")] == '\0')
			continue;
		nf = sscanf(line, "%127s %127s %15s %15s %63s", w, m, b, k, u);
		if (nf < 4)
			die("%s:%d: expected: workload metric better kind [unit]",
			    path, lineno);
		defs = xrealloc(defs, (ndefs + 1) * sizeof(*defs));
		d = &defs[ndefs++];
		d->workload = xstrdup(w);
		d->metric = xstrdup(m);
		d->unit = xstrdup(u);
		if (!strcmp(b, "higher"))
			d->higher = 1;
		else if (!strcmp(b, "lower"))
			d->higher = 0;
		else
			die("%s:%d: better must be higher or lower", path,
			    lineno);
		if (!strcmp(k, "throughput"))
			d->kind = K_THR;
		else if (!strcmp(k, "time") || !strcmp(k, "pct") ||
			 !strcmp(k, "count"))
			d->kind = K_TIME;
		else if (!strcmp(k, "hist"))
			d->kind = K_HIST;
		else if (!strcmp(k, "info"))
			d->kind = K_INFO;
		else
			die("%s:%d: kind must be throughput, time, pct, count, hist or info",
			    path, lineno);
	}
	fclose(f);
}

/* The workload column may carry arguments: "rr:-p1" is workload rr. */
static const struct mdef *find_def(const char *workload, const char *metric)
{
	size_t wl = strcspn(workload, ":");
	int i;

	for (i = 0; i < ndefs; i++) {
		const char *dw = defs[i].workload;

		if (strcmp(defs[i].metric, metric))
			continue;
		if (!strcmp(dw, "*") ||
		    (strlen(dw) == wl && !strncmp(dw, workload, wl)))
			return &defs[i];
	}
	return NULL;
}

/* ------------------------------------------------------------ input -- */

static int policy_index(const char *name)
{
	int i;

	for (i = 0; i < npolicies; i++)
		if (!strcmp(policies[i], name))
			return i;
	policies = xrealloc(policies, (npolicies + 1) * sizeof(*policies));
	policies[npolicies] = xstrdup(name);
	return npolicies++;
}

struct warned {
	char *key;
	struct warned *next;
};

static struct warned *warned;

static void warn_unknown(const char *w, const char *m)
{
	struct warned *x;
	char key[512];

	snprintf(key, sizeof(key), "%s %s", w, m);
	for (x = warned; x; x = x->next)
		if (!strcmp(x->key, key))
			return;
	x = xrealloc(NULL, sizeof(*x));
	x->key = xstrdup(key);
	x->next = warned;
	warned = x;
	fprintf(stderr, "%s: warning: metric '%s' of workload '%s' is not in the metrics table: ignored\n", prog, m, w);
}

static int group_index(const char *w, const char *l, const char *m,
		       const struct mdef *d)
{
	static int last = -1;
	int i;

	if (last >= 0 && !strcmp(groups[last].metric, m) &&
	    !strcmp(groups[last].level, l) && !strcmp(groups[last].workload, w))
		return last;
	for (i = 0; i < ngroups; i++)
		if (!strcmp(groups[i].metric, m) &&
		    !strcmp(groups[i].level, l) &&
		    !strcmp(groups[i].workload, w))
			return last = i;
	groups = xrealloc(groups, (ngroups + 1) * sizeof(*groups));
	groups[ngroups].workload = xstrdup(w);
	groups[ngroups].level = xstrdup(l);
	groups[ngroups].metric = xstrdup(m);
	groups[ngroups].def = d;
	memset(groups[ngroups].qname, 0, sizeof(groups[ngroups].qname));
	return last = ngroups++;
}

static struct block *block_get(int g, int p, long rep, long id)
{
	static int last = -1;
	struct block *b;
	int i;

	if (last >= 0 && blocks[last].group == g && blocks[last].id == id) {
		b = &blocks[last];
		goto check;
	}
	for (i = nblocks - 1; i >= 0; i--) {
		if (blocks[i].group == g && blocks[i].id == id) {
			last = i;
			b = &blocks[i];
			goto check;
		}
	}
	blocks = xrealloc(blocks, (nblocks + 1) * sizeof(*blocks));
	b = &blocks[nblocks];
	memset(b, 0, sizeof(*b));
	b->group = g;
	b->policy = p;
	b->rep = rep;
	b->id = id;
	if (groups[g].def->kind == K_HIST) {
		b->hist = calloc(LLH_NBUCKETS, sizeof(uint64_t));
		if (!b->hist)
			die("out of memory");
	}
	last = nblocks++;
	return b;
check:
	if (b->policy != p || b->rep != rep)
		die("block %ld appears with two policies or rounds", id);
	return b;
}

static const char header[] =
	"timestamp,rep,block,policy,workload,level,metric,value";

static void read_csv(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	ssize_t len;

	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *fld[8], *s = line, *end;
		const struct mdef *d;
		struct block *b;
		long rep, id;
		double v;
		int i, g;

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (lineno == 1) {
			if (strcmp(line, header))
				die("%s: first line must be the header '%s'",
				    path, header);
			continue;
		}
		if (!len)
			continue;
		for (i = 0; i < 8; i++) {
			fld[i] = s;
			s = i < 7 ? strchr(s, ',') : NULL;
			if (i < 7 && !s)
				die("%s:%ld: expected 8 fields", path, lineno);
			if (s)
				*s++ = '\0';
		}
		if (strchr(fld[7], ','))
			die("%s:%ld: expected 8 fields", path, lineno);
		rep = strtol(fld[1], &end, 10);
		if (end == fld[1] || *end)
			die("%s:%ld: bad rep '%s'", path, lineno, fld[1]);
		id = strtol(fld[2], &end, 10);
		if (end == fld[2] || *end)
			die("%s:%ld: bad block '%s'", path, lineno, fld[2]);
		if (!*fld[3] || !*fld[4] || !*fld[5] || !*fld[6])
			die("%s:%ld: empty field", path, lineno);
		d = find_def(fld[4], fld[6]);
		if (!d) {
			warn_unknown(fld[4], fld[6]);
			continue;
		}
		if (d->kind == K_INFO)
			continue;
		g = group_index(fld[4], fld[5], fld[6], d);
		b = block_get(g, policy_index(fld[3]), rep, id);
		if (d->kind == K_HIST) {
			if (llh_parse_add(fld[7], b->hist))
				die("%s:%ld: bad histogram", path, lineno);
			b->n++;
			continue;
		}
		v = strtod(fld[7], &end);
		if (end == fld[7] || *end || !isfinite(v))
			die("%s:%ld: bad value '%s'", path, lineno, fld[7]);
		b->n++;
		b->sum += v;
		if (v > 0)
			b->suminv += 1.0 / v;
		else
			b->nonpos = 1;
	}
	free(line);
	if (f != stdin)
		fclose(f);
}

/* ------------------------------------------------------- statistics -- */

/* Value of one block: Hmean, Amean or the percentile of its histogram. */
static double block_value(const struct block *b, double q)
{
	switch (groups[b->group].def->kind) {
	case K_THR:
		return b->nonpos ? 0.0 : (double)b->n / b->suminv;
	case K_TIME:
		return b->sum / (double)b->n;
	case K_HIST:
		if (!llh_total(b->hist))
			return NAN;
		return llh_percentile(b->hist, q) / 1000.0;
	default:
		return NAN;
	}
}

/* Combine several blocks of one group into one value, the same way. */
static double combine(const int *idx, int k, enum kind kind, double q)
{
	double s = 0, v;
	int i;

	if (!k)
		return NAN;
	if (kind == K_HIST) {
		uint64_t *h = calloc(LLH_NBUCKETS, sizeof(*h));
		unsigned int j;

		if (!h)
			die("out of memory");
		for (i = 0; i < k; i++)
			for (j = 0; j < LLH_NBUCKETS; j++)
				h[j] += blocks[idx[i]].hist[j];
		v = llh_total(h) ? llh_percentile(h, q) / 1000.0 : NAN;
		free(h);
		return v;
	}
	for (i = 0; i < k; i++) {
		v = block_value(&blocks[idx[i]], q);
		if (kind == K_THR) {
			if (!(v > 0))
				return 0.0;
			s += 1.0 / v;
		} else {
			s += v;
		}
	}
	return kind == K_THR ? (double)k / s : s / (double)k;
}

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t fnv(const char *s, uint64_t h)
{
	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ull;
	}
	h ^= 0xff;
	return h * 0x100000001b3ull;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double quantile(const double *a, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	if (i >= n - 1)
		return a[n - 1];
	return a[i] + (pos - i) * (a[i + 1] - a[i]);
}

/* Standard normal upper quantile: z with P(Z > z) = p, by bisection. */
static double z_upper(double p)
{
	double lo = 0, hi = 40, mid;
	int i;

	for (i = 0; i < 200; i++) {
		mid = (lo + hi) / 2;
		if (0.5 * erfc(mid / M_SQRT2) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Student t upper quantile from z (Cornish-Fisher, A&S 26.7.5). */
static double t_upper(double z, double df)
{
	double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
	double z9 = z7 * z * z;
	double g1 = (z3 + z) / 4;
	double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
	double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
	double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) /
		    92160;

	return z + g1 / df + g2 / (df * df) + g3 / (df * df * df) +
	       g4 / (df * df * df * df);
}

/*
 * Tail probability for the "expanded percentile" bootstrap interval
 * (Hesterberg 2015): the plain percentile interval is too narrow for few
 * samples; widen it by taking the percentiles at the level whose normal
 * quantile is sqrt(n/(n-1)) * t(n-1) instead of z.
 */
static double expanded_tail(int n)
{
	double z = z_upper((1 - conf) / 2);
	double ze = sqrt((double)n / (n - 1)) * t_upper(z, n - 1);

	return 0.5 * erfc(ze / M_SQRT2);
}

/*
 * Geometric mean of exp(logs) and a percentile bootstrap interval: the
 * mean of the logs is recomputed on @resamples resamples drawn with
 * replacement, with a generator seeded from the seed and the row's key.
 */
static void gm_ci(const double *logs, int k, const char *key, struct row *r)
{
	uint64_t st = seed ^ fnv(key, 0xcbf29ce484222325ull);
	double s = 0, *m, tail;
	int i, j;

	r->pairs = k;
	r->gmean = r->lo = r->hi = NAN;
	if (!k)
		return;
	for (i = 0; i < k; i++)
		s += logs[i];
	r->gmean = exp(s / k);
	if (k < 2)
		return;
	m = malloc(resamples * sizeof(*m));
	if (!m)
		die("out of memory");
	for (j = 0; j < resamples; j++) {
		s = 0;
		for (i = 0; i < k; i++)
			s += logs[splitmix(&st) % (uint64_t)k];
		m[j] = s / k;
	}
	qsort(m, resamples, sizeof(*m), cmp_double);
	tail = expanded_tail(k);
	r->lo = exp(quantile(m, resamples, tail));
	r->hi = exp(quantile(m, resamples, 1 - tail));
	free(m);
	r->sig = k >= min_pairs && (r->lo > 1.0 || r->hi < 1.0);
	if (r->sig && fail_pct >= 0) {
		const struct mdef *d = r->g->def;

		r->regress = d->higher ? r->gmean < 1 - fail_pct / 100
				       : r->gmean > 1 + fail_pct / 100;
	}
}

static struct row *new_row(const struct group *g, const char *metric,
			   const char *policy, const char *role)
{
	struct row *r;

	rows = xrealloc(rows, (nrows + 1) * sizeof(*rows));
	r = &rows[nrows++];
	memset(r, 0, sizeof(*r));
	r->g = g;
	r->metric = metric;
	r->policy = policy;
	r->role = role;
	r->mean = r->cv = r->ratio = r->gmean = r->lo = r->hi = NAN;
	return r;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Blocks of group g, policy p (rep < 0: any), in block order. */
static int select_blocks(int g, int p, long rep, int *out)
{
	int i, k = 0;

	for (i = 0; i < nblocks; i++)
		if (blocks[i].group == g && blocks[i].policy == p &&
		    (rep < 0 || blocks[i].rep == rep))
			out[k++] = i;
	/* blocks[] is in input order; sort by block id for A/A pairs */
	for (i = 1; i < k; i++) {
		int j = i, t = out[i];

		while (j > 0 && blocks[out[j - 1]].id > blocks[t].id) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = t;
	}
	return k;
}

static void analyse_group(int g, int qi, int base)
{
	const struct group *gr = &groups[g];
	enum kind kind = gr->def->kind;
	double q = kind == K_HIST ? hist_q[qi] : 0;
	const char *metric = kind == K_HIST ? hist_row_name(&groups[g], qi)
					    : gr->metric;
	int *idx = malloc((nblocks + 1) * sizeof(int));
	int *idx2 = malloc((nblocks + 1) * sizeof(int));
	long *reps = malloc((nblocks + 1) * sizeof(long));
	double *logs = malloc((nblocks + 1) * sizeof(double));
	double base_mean = NAN;
	int nreps = 0, i, p, k, order;
	char key[1024];

	if (!idx || !idx2 || !reps || !logs)
		die("out of memory");
	for (i = 0; i < nblocks; i++) {
		if (blocks[i].group != g)
			continue;
		reps[nreps++] = blocks[i].rep;
	}
	qsort(reps, nreps, sizeof(*reps), cmp_long);
	for (i = 0, k = 0; i < nreps; i++)
		if (!k || reps[k - 1] != reps[i])
			reps[k++] = reps[i];
	nreps = k;

	/* baseline first, then the other policies in order of appearance */
	for (order = -1; order < npolicies; order++) {
		struct row *r;
		double s = 0, s2 = 0, v;
		int nlog = 0, j;

		p = order < 0 ? base : order;
		if (order >= 0 && p == base)
			continue;
		k = select_blocks(g, p, -1, idx);
		if (!k)
			continue;
		r = new_row(gr, metric, policies[p],
			    p == base ? "baseline" : "compare");
		r->n = k;
		for (i = 0; i < k; i++) {
			v = block_value(&blocks[idx[i]], q);
			r->samples += blocks[idx[i]].n;
			s += v;
			s2 += v * v;
		}
		r->mean = combine(idx, k, kind, q);
		if (k >= 2 && s != 0) {
			double am = s / k;
			double var = (s2 - k * am * am) / (k - 1);

			r->cv = 100.0 * sqrt(var > 0 ? var : 0) / fabs(am);
		}
		if (p == base)
			base_mean = r->mean;
		r->ratio = r->mean / base_mean;
		snprintf(key, sizeof(key), "%s|%s|%s|%s", gr->workload,
			 gr->level, metric, policies[p]);
		if (p == base) {
			r->ratio = 1.0;
			continue;
		}
		for (j = 0; j < nreps; j++) {
			int ka = select_blocks(g, p, reps[j], idx);
			int kb = select_blocks(g, base, reps[j], idx2);
			double va, vb;

			if (!ka || !kb)
				continue;
			va = combine(idx, ka, kind, q);
			vb = combine(idx2, kb, kind, q);
			if (va > 0 && vb > 0 && isfinite(va) && isfinite(vb))
				logs[nlog++] = log(va / vb);
		}
		gm_ci(logs, nlog, key, r);
	}

	/* A/A control: first vs second baseline block of every round */
	if (base >= 0) {
		struct row *r;
		int nlog = 0, j;

		for (j = 0; j < nreps; j++) {
			double va, vb;

			k = select_blocks(g, base, reps[j], idx);
			if (k < 2)
				continue;
			va = block_value(&blocks[idx[0]], q);
			vb = block_value(&blocks[idx[1]], q);
			if (va > 0 && vb > 0 && isfinite(va) && isfinite(vb))
				logs[nlog++] = log(va / vb);
		}
		if (nlog) {
			r = new_row(gr, metric, "A/A", "aa");
			r->n = nlog * 2;
			snprintf(key, sizeof(key), "%s|%s|%s|A/A", gr->workload,
				 gr->level, metric);
			gm_ci(logs, nlog, key, r);
			/* A/A is a control: never counted as a regression */
			r->regress = 0;
		}
	}
	free(idx);
	free(idx2);
	free(reps);
	free(logs);
}

/* ----------------------------------------------------------- output -- */

static const char *mean_name(const struct row *r)
{
	switch (r->g->def->kind) {
	case K_THR:
		return "Hmean";
	case K_TIME:
		return "Amean";
	default:
		return "Merged";
	}
}

static void fmt_num(char *buf, size_t n, double v, const char *fmt)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, fmt, v);
}

static void print_text(FILE *f)
{
	int ww = 8, lw = 5, mw = 6, pw = 6, i;
	char mean[32], cv[32], ratio[32], gm[32], ci[64];

	for (i = 0; i < nrows; i++) {
		int a = (int)strlen(rows[i].g->workload);
		int b = (int)strlen(rows[i].g->level);
		int c = (int)strlen(rows[i].metric);
		int d = (int)strlen(rows[i].policy);

		ww = a > ww ? a : ww;
		lw = b > lw ? b : lw;
		mw = c > mw ? c : mw;
		pw = d > pw ? d : pw;
	}
	fprintf(f, "# baseline %s; gmean = geometric mean of the per-round paired ratios policy/baseline;\n", baseline ? baseline : "-");
	fprintf(f, "# %.0f%% bootstrap interval (expanded percentile, %d resamples, seed %llu); * = interval excludes 1.0 with >= %d pairs\n",
		conf * 100, resamples, (unsigned long long)seed, min_pairs);
	fprintf(f, "%-*s %-*s %-*s %-6s %-6s %-*s %4s %12s %7s %7s %7s  %s\n",
		ww, "workload", lw, "level", mw, "metric", "better", "mean",
		pw, "policy", "n", "value", "cv%", "ratio", "gmean",
		"95% CI");
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		fmt_num(mean, sizeof(mean), r->mean, "%.6g");
		fmt_num(cv, sizeof(cv), r->cv, "%.2f");
		fmt_num(ratio, sizeof(ratio), r->ratio, "%.3f");
		fmt_num(gm, sizeof(gm), r->gmean, "%.3f");
		if (isnan(r->lo))
			snprintf(ci, sizeof(ci), "-");
		else
			snprintf(ci, sizeof(ci), "[%.3f, %.3f]%s%s", r->lo,
				 r->hi, r->sig ? " *" : "",
				 r->regress ? " REGRESSION" : "");
		if (!strcmp(r->role, "aa"))
			snprintf(mean, sizeof(mean), "-");
		fprintf(f, "%-*s %-*s %-*s %-6s %-6s %-*s %4d %12s %7s %7s %7s  %s\n",
			ww, r->g->workload, lw, r->g->level, mw, r->metric,
			r->g->def->higher ? "higher" : "lower",
			strcmp(r->role, "aa") ? mean_name(r) : "-", pw,
			r->policy, r->n, mean, cv,
			strcmp(r->role, "aa") ? ratio : "-", gm, ci);
	}
}

/*
 * The rows of one line of the mmtests and LKP tables: same group and row
 * name (baseline, compares, A/A are consecutive in rows[]).
 */
static int line_end(int i)
{
	int j = i + 1;

	while (j < nrows && rows[j].g == rows[i].g &&
	       !strcmp(rows[j].metric, rows[i].metric))
		j++;
	return j;
}

/* The row of policy p (or of the A/A control, p < 0) in rows [i, e). */
static const struct row *line_row(int i, int e, int p)
{
	for (; i < e; i++) {
		int aa = !strcmp(rows[i].role, "aa");

		if (p < 0 ? aa : !aa && !strcmp(rows[i].policy, policies[p]))
			return &rows[i];
	}
	return NULL;
}

/* Columns: the baseline first, then the others in order of appearance. */
static int column_policy(int c)
{
	if (base_idx < 0)
		return c;
	if (c == 0)
		return base_idx;
	return c <= base_idx ? c - 1 : c;
}

/* Drop trailing blanks and print the line. */
static void put_line(FILE *f, char *buf)
{
	size_t n = strlen(buf);

	while (n && buf[n - 1] == ' ')
		buf[--n] = '\0';
	fprintf(f, "%s\n", buf);
}

/* Append to a line buffer (the tables' lines are short). */
static void __attribute__((format(printf, 3, 4)))
cat(char *buf, size_t n, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, n - l, fmt, ap);
	va_end(ap);
}

static void mm_value(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, fabs(v) < 10 ? "%.4f" : "%.2f", v);
}

/* mmtests' %change is a gain: positive when better, whichever direction. */
static double mm_gain(const struct row *r, double ratio)
{
	return 100.0 * (r->g->def->higher ? ratio - 1 : 1 - ratio);
}

static void mm_change(char *buf, size_t n, double pct, int sig)
{
	if (isnan(pct))
		cat(buf, n, "%11s", "");
	else if (sig)
		cat(buf, n, " *%7.2f%%*", pct);
	else
		cat(buf, n, " (%7.2f%%)", pct);
}

/*
 * mmtests compare style, one section per workload:
 *
 *	wakelat
 *	                      stock              noscan
 *	Hmean     rps-1    345.89 (   0.00%)    398.43 *  15.19%*
 *
 * %change is mmtests' gain (positive = better); "*" around it when the
 * paired bootstrap interval excludes 1.0 with enough pairs.  The A/A row
 * shows the control's gain (geometric mean of second/first baseline
 * block) in the baseline column.
 */
static void print_mmtests(FILE *f)
{
	int i, j, c, w, ncol = npolicies;
	char buf[4096], v[64];

	for (w = 0; w < nrows; w++) {
		int lw = 4, vw = 10;

		/* one section per workload, at its first row */
		for (j = 0; j < w; j++)
			if (!strcmp(rows[j].g->workload, rows[w].g->workload))
				break;
		if (j < w)
			continue;
		for (i = w; i < nrows; i++) {
			if (strcmp(rows[i].g->workload, rows[w].g->workload))
				continue;
			j = (int)(strlen(rows[i].metric) +
				  strlen(rows[i].g->level) + 1);
			lw = j > lw ? j : lw;
			mm_value(v, sizeof(v), rows[i].mean);
			j = (int)strlen(v);
			vw = j > vw ? j : vw;
		}
		if (w)
			fputc('\n', f);
		fprintf(f, "%s\n", rows[w].g->workload);
		snprintf(buf, sizeof(buf), "%*s", 10 + lw, "");
		for (c = 0; c < ncol; c++)
			cat(buf, sizeof(buf), " %*s", vw + 11,
			    policies[column_policy(c)]);
		put_line(f, buf);
		for (i = w; i < nrows; i = line_end(i)) {
			const struct row *r, *aa;
			char label[512];
			int e = line_end(i);

			if (strcmp(rows[i].g->workload, rows[w].g->workload))
				continue;
			snprintf(label, sizeof(label), "%s-%s", rows[i].metric,
				 rows[i].g->level);
			buf[0] = '\0';
			cat(buf, sizeof(buf), "%-9s %-*s",
			    mean_name(&rows[i]), lw, label);
			for (c = 0; c < ncol; c++) {
				r = line_row(i, e, column_policy(c));
				if (!r) {
					cat(buf, sizeof(buf), " %*s%11s", vw,
					    "", "");
					continue;
				}
				mm_value(v, sizeof(v), r->mean);
				cat(buf, sizeof(buf), " %*s", vw, v);
				if (c == 0)
					mm_change(buf, sizeof(buf), 0.0, 0);
				else
					mm_change(buf, sizeof(buf),
						  mm_gain(r, r->ratio), r->sig);
			}
			put_line(f, buf);
			aa = line_row(i, e, -1);
			if (!aa || isnan(aa->gmean))
				continue;
			buf[0] = '\0';
			cat(buf, sizeof(buf), "%-9s %-*s %*s", "A/A", lw,
			    label, vw, "-");
			mm_change(buf, sizeof(buf), mm_gain(aa, aa->gmean),
				  aa->sig);
			put_line(f, buf);
		}
	}
}

/* LKP numbers: integers from 1000 up, 4 digits from 1e8, else 2 decimals. */
static void lkp_value(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else if (fabs(v) >= 1e8)
		snprintf(buf, n, "%.4g", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.2f", v);
}

/* " ± 18%": the blocks' relative standard deviation, shown from 2%. */
static void lkp_stddev(char *buf, size_t n, double cv)
{
	long p = isnan(cv) ? 0 : lround(cv);

	if (p < 2)
		cat(buf, n, "%6s", "");
	else
		cat(buf, n, " \u00b1%3ld%%", p);
}

/* %change as LKP prints it; percentages (unit "%") change in points. */
static void lkp_change(char *buf, size_t n, const struct row *r,
		       double ratio, int points, int sig)
{
	char c[64];
	double pct = 100.0 * (ratio - 1);

	if (isnan(ratio))
		snprintf(c, sizeof(c), "-");
	else if (points)
		snprintf(c, sizeof(c), "%+.1f", r->mean - ratio);
	else if (fabs(pct) >= 1e5)
		snprintf(c, sizeof(c), "%+.1e%%", pct);
	else
		snprintf(c, sizeof(c), "%+.1f%%", pct);
	cat(buf, n, "%10s%c", c, sig ? '*' : ' ');
}

/*
 * Kernel test robot (LKP) style, one section per load level:
 *
 *	           stock                      noscan
 *	---------------- ---------------------------
 *	         %stddev     %change         %stddev
 *	             \          |                \
 *	    345.89 ±  2%     +15.2%*    398.43 ±  3%  wakelat.rps
 *
 * %change is the raw change of the mean (new/base - 1; in points for
 * percentage metrics), "*" right after it when significant; the A/A row
 * shows the control's change in the first %change column.
 */
static void print_lkp(FILE *f)
{
	int i, j, c, l, ncol = npolicies;
	char buf[4096], v[64];

	for (l = 0; l < nrows; l++) {
		for (j = 0; j < l; j++)
			if (!strcmp(rows[j].g->level, rows[l].g->level))
				break;
		if (j < l)
			continue;
		if (l)
			fputc('\n', f);
		fprintf(f, "=========================================================================================\n");
		fprintf(f, "level:\n  %s\n\n", rows[l].g->level);
		snprintf(buf, sizeof(buf), "%-16s", policies[column_policy(0)]);
		for (c = 1; c < ncol; c++)
			cat(buf, sizeof(buf), " %-27s",
			    policies[column_policy(c)]);
		put_line(f, buf);
		snprintf(buf, sizeof(buf), "----------------");
		for (c = 1; c < ncol; c++)
			cat(buf, sizeof(buf), " ---------------------------");
		put_line(f, buf);
		snprintf(buf, sizeof(buf), "%16s", "%stddev");
		for (c = 1; c < ncol; c++)
			cat(buf, sizeof(buf), "%12s%16s", "%change",
			    "%stddev");
		put_line(f, buf);
		snprintf(buf, sizeof(buf), "%14s  ", "\\");
		for (c = 1; c < ncol; c++)
			cat(buf, sizeof(buf), "%9s%17s  ", "|", "\\");
		put_line(f, buf);
		for (i = l; i < nrows; i = line_end(i)) {
			const struct row *r, *b, *aa;
			int e = line_end(i);
			int points = !strcmp(rows[i].g->def->unit, "%");

			if (strcmp(rows[i].g->level, rows[l].g->level))
				continue;
			buf[0] = '\0';
			b = line_row(i, e, column_policy(0));
			lkp_value(v, sizeof(v), b ? b->mean : NAN);
			cat(buf, sizeof(buf), "%10s", b ? v : "");
			lkp_stddev(buf, sizeof(buf), b ? b->cv : NAN);
			for (c = 1; c < ncol; c++) {
				r = line_row(i, e, column_policy(c));
				if (!r) {
					cat(buf, sizeof(buf), "%28s", "");
					continue;
				}
				lkp_change(buf, sizeof(buf), r,
					   points ? (b ? b->mean : NAN)
						  : r->ratio,
					   points, r->sig);
				lkp_value(v, sizeof(v), r->mean);
				cat(buf, sizeof(buf), "%11s", v);
				lkp_stddev(buf, sizeof(buf), r->cv);
			}
			cat(buf, sizeof(buf), "  %s.%s", rows[i].g->workload,
			    rows[i].metric);
			put_line(f, buf);
			aa = line_row(i, e, -1);
			if (!aa || isnan(aa->gmean))
				continue;
			snprintf(buf, sizeof(buf), "%16s", "");
			lkp_change(buf, sizeof(buf), aa, aa->gmean, 0,
				   aa->sig);
			cat(buf, sizeof(buf), "%17s  %s.%s (A/A)", "",
			    rows[i].g->workload, rows[i].metric);
			put_line(f, buf);
		}
	}
}

/*
 * The JSON report: the header and the lists one member a line, each row
 * and block one line of its own.
 */
static int print_json(FILE *f, int with_blocks)
{
	struct json j;
	int i, nreg = 0;

	for (i = 0; i < nrows; i++)
		nreg += rows[i].regress;
	json_init(&j, f, JSON_LINES, JSON_EMPTY_BREAK);
	json_obj(&j, NULL);
	json_str(&j, "tool", "wpstats");
	json_i64(&j, "format", 1);
	json_str(&j, "baseline", baseline);
	json_u64(&j, "seed", seed);
	json_i64(&j, "resamples", resamples);
	json_gnum(&j, "confidence", conf, 6);
	json_i64(&j, "min_pairs", min_pairs);
	json_gnum(&j, "fail_if_regress_pct", fail_pct >= 0 ? fail_pct : NAN,
		  10);
	json_i64(&j, "regressions", nreg);
	json_arr(&j, "rows");
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		bool aa = !strcmp(r->role, "aa");

		json_obj_styled(&j, NULL, JSON_SPACED);
		json_str(&j, "workload", r->g->workload);
		json_str(&j, "level", r->g->level);
		json_str(&j, "metric", r->metric);
		json_str(&j, "better", r->g->def->higher ? "higher" : "lower");
		json_str(&j, "mean_kind", mean_name(r));
		json_str(&j, "unit", r->g->def->unit);
		json_str(&j, "policy", r->policy);
		json_str(&j, "role", r->role);
		json_i64(&j, "n", r->n);
		json_i64(&j, "samples", r->samples);
		json_gnum(&j, "mean", aa ? NAN : r->mean, 10);
		json_gnum(&j, "cv_pct", r->cv, 10);
		json_gnum(&j, "ratio", aa ? NAN : r->ratio, 10);
		json_i64(&j, "pairs", r->pairs);
		json_gnum(&j, "gmean", r->gmean, 10);
		json_gnum(&j, "ci_lo", r->lo, 10);
		json_gnum(&j, "ci_hi", r->hi, 10);
		json_bool(&j, "significant", r->sig);
		json_bool(&j, "regression", r->regress);
		json_end(&j);
	}
	json_end(&j);
	if (with_blocks) {
		json_arr(&j, "blocks");
		for (i = 0; i < nblocks; i++) {
			const struct block *b = &blocks[i];
			const struct group *g = &groups[b->group];

			json_obj_styled(&j, NULL, JSON_SPACED);
			json_i64(&j, "block", b->id);
			json_i64(&j, "rep", b->rep);
			json_str(&j, "policy", policies[b->policy]);
			json_str(&j, "workload", g->workload);
			json_str(&j, "level", g->level);
			json_str(&j, "metric", g->def->kind == K_HIST ?
					hist_row_name(&groups[b->group], 2) :
					g->metric);
			json_i64(&j, "samples", b->n);
			json_gnum(&j, "value", block_value(b, 0.99), 10);
			json_end(&j);
		}
		json_end(&j);
	}
	json_end(&j);
	fputc('\n', f);
	return nreg;
}

static void print_blocks(FILE *f)
{
	int i;

	fprintf(f, "# per-block values (Hmean/Amean of the block's samples; histograms: merged p99)\n");
	fprintf(f, "%6s %4s %-12s %-12s %-6s %-14s %7s %12s\n", "block", "rep",
		"policy", "workload", "level", "metric", "samples", "value");
	for (i = 0; i < nblocks; i++) {
		const struct block *b = &blocks[i];
		const struct group *g = &groups[b->group];

		fprintf(f, "%6ld %4ld %-12s %-12s %-6s %-14s %7ld %12.6g\n",
			b->id, b->rep, policies[b->policy], g->workload,
			g->level, g->def->kind == K_HIST ?
					hist_row_name(&groups[b->group], 2) :
					g->metric,
			b->n, block_value(b, 0.99));
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [options] CSV...\n  -m, --metrics FILE     metrics table (default: metrics next to\n                         this program's directory)\n  -b, --baseline NAME    baseline policy (default: first seen)\n  -s, --seed N           bootstrap seed (default 1)\n  -B, --resamples N      bootstrap resamples (default 4000)\n  -c, --confidence C     interval level (default 0.95)\n  -p, --min-pairs N      pairs needed for a * (default 5)\n  -f, --fail-if-regress PCT  exit 3 on a significant regression\n                         worse than PCT percent\n  -j, --json FILE        write JSON ('-' = stdout, no text)\n  -k, --blocks           also list per-block values\n  -q, --quiet            no text table\n  -F, --format FMT       table style: ours (default), mmtests (compare-\n                         kernels: Hmean ... (%%change), * = significant)\n                         or lkp (kernel test robot: %%stddev %%change)\n", prog);
	exit(2);
}

static char *default_metrics(const char *argv0)
{
	char *p = realpath("/proc/self/exe", NULL), *s;
	static char buf[4096];

	(void)argv0;
	if (!p)
		return "metrics";
	s = strrchr(p, '/');
	if (s)
		*s = '\0';
	/* bin/wpstats -> ../metrics */
	snprintf(buf, sizeof(buf), "%s/../metrics", p);
	free(p);
	return buf;
}

/* tests/unit/wpstats.c includes this file for its statistics. */
#ifndef WP_UNIT
int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "metrics", 1, NULL, 'm' },
		{ "baseline", 1, NULL, 'b' },
		{ "seed", 1, NULL, 's' },
		{ "resamples", 1, NULL, 'B' },
		{ "confidence", 1, NULL, 'c' },
		{ "min-pairs", 1, NULL, 'p' },
		{ "fail-if-regress", 1, NULL, 'f' },
		{ "json", 1, NULL, 'j' },
		{ "blocks", 0, NULL, 'k' },
		{ "quiet", 0, NULL, 'q' },
		{ "format", 1, NULL, 'F' },
		{ "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *metrics = NULL, *json = NULL;
	int opt, quiet = 0, with_blocks = 0, base = -1, g, q, nreg;
	char *end;

	while ((opt = getopt_long(argc, argv, "m:b:s:B:c:p:f:j:kqF:h", lopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'm':
			metrics = optarg;
			break;
		case 'b':
			baseline = optarg;
			break;
		case 's':
			seed = strtoull(optarg, &end, 0);
			if (end == optarg || *end)
				die("bad seed '%s'", optarg);
			break;
		case 'B':
			resamples = atoi(optarg);
			if (resamples < 100 || resamples > 1000000)
				die("resamples must be 100..1000000");
			break;
		case 'c':
			conf = strtod(optarg, &end);
			if (end == optarg || *end || conf <= 0.5 || conf >= 1)
				die("confidence must be in (0.5, 1)");
			break;
		case 'p':
			min_pairs = atoi(optarg);
			if (min_pairs < 2)
				die("min-pairs must be >= 2");
			break;
		case 'f':
			fail_pct = strtod(optarg, &end);
			if (end == optarg || *end || fail_pct < 0)
				die("bad percentage '%s'", optarg);
			break;
		case 'j':
			json = optarg;
			break;
		case 'k':
			with_blocks = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'F':
			if (!strcmp(optarg, "ours"))
				format = F_OURS;
			else if (!strcmp(optarg, "mmtests"))
				format = F_MMTESTS;
			else if (!strcmp(optarg, "lkp"))
				format = F_LKP;
			else
				die("bad format '%s': ours, mmtests or lkp",
				    optarg);
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	load_metrics(metrics ? metrics : default_metrics(argv[0]));
	for (; optind < argc; optind++)
		read_csv(argv[optind]);
	if (baseline) {
		for (base = 0; base < npolicies; base++)
			if (!strcmp(policies[base], baseline))
				break;
		if (base == npolicies)
			die("baseline policy '%s' not in the data", baseline);
	} else if (npolicies) {
		base = 0;
		baseline = policies[0];
	}
	base_idx = base;
	for (g = 0; g < ngroups; g++) {
		if (groups[g].def->kind == K_HIST)
			for (q = 0; q < 4; q++)
				analyse_group(g, q, base);
		else
			analyse_group(g, 0, base);
	}
	if (json && !strcmp(json, "-")) {
		nreg = print_json(stdout, with_blocks);
	} else {
		if (!quiet) {
			if (format == F_MMTESTS)
				print_mmtests(stdout);
			else if (format == F_LKP)
				print_lkp(stdout);
			else
				print_text(stdout);
			if (with_blocks) {
				putchar('\n');
				print_blocks(stdout);
			}
		}
		nreg = 0;
		if (json) {
			FILE *f = fopen(json, "w");

			if (!f)
				die("cannot write %s: %s", json,
				    strerror(errno));
			nreg = print_json(f, with_blocks);
			if (fclose(f))
				die("write %s: %s", json, strerror(errno));
		} else {
			int i;

			for (i = 0; i < nrows; i++)
				nreg += rows[i].regress;
		}
	}
	return fail_pct >= 0 && nreg ? 3 : 0;
}
#endif /* WP_UNIT */
