// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: the statistics of the per-cgroup assignments.
 *
 *   stats show --cgroup PATH [-i SECONDS [-c N]]	one assignment
 *   stats cgroups [-i SECONDS [-c N]]			one line each
 *
 * From cgroup_stats ("ID key value key value ..." a line, read generically:
 * unknown keys are ignored, absent ones shown as "-" or null) and
 * cgroup_latency_hist ("ID L6ns;IDX:COUNT;..." a line, the text form of
 * latency_hist/<policy>; a module without it has no per-cgroup latency),
 * both matched to the cgroups file by ID.  An interval's numbers are the
 * differences of two reads; an assignment that went away or appeared in
 * between is said so.  The latency percentiles use stats.c's rule (the
 * midpoint, rounded down, of the bucket of rank ceil(q * count)); the
 * module keeps these histograms at 1/8 of latency_hist's resolution, so a
 * percentile is within about 12 % of the truth.
 *
 * Quality and latency count only while latency measurement is on
 * (latency_sample > 0): an interval run switches it on for the run when it
 * is off and puts back what it found at the end, as bench-scripts/ab does.
 */
#define _GNU_SOURCE		/* open_memstream */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wakeplacectl.h"
#include "llhist.h"
#include "stats.h"

#define CGS_FILE	"cgroup_stats"
#define CGL_FILE	"cgroup_latency_hist"

/* The keys of cgroup_stats this tool knows, in the order shown. */
#define CG_OUT_KEY(v, e, name, col, tag, desc)	#name
enum { K_WAKEUPS, K_REDIRECTED, K_HANDED_BACK, K_OUT,
	K_TRACKED = K_OUT + N_OUTCOMES, K_UNPLACED, K_STACKED, K_MISSED_IDLE,
	K_DOUBLE_PICKS, K_N };
static const char *const kname[K_N] = {
	"wakeups", "redirected", "handed_back", WP_OUTCOMES(CG_OUT_KEY),
	"tracked", "unplaced", "stacked", "missed_idle", "double_picks",
};
_Static_assert(K_OUT + N_OUTCOMES + 5 == K_N, "kname order");

static const double cq[LAT_Q] = { 0.50, 0.90, 0.99, 0.999 };
static const char *const cq_key[LAT_Q] = {
	"p50_ns", "p90_ns", "p99_ns", "p999_ns",
};
static const char *const cq_name[LAT_Q] = { "p50", "p90", "p99", "p99.9" };

struct cgrow {
	struct cg_assignment a;
	bool stats;			/* a line in cgroup_stats */
	bool has[K_N];
	uint64_t v[K_N];
	bool hist;			/* a line in cgroup_latency_hist */
	uint64_t h[LLH_NBUCKETS];
	bool fresh;			/* interval: new since the last read */
};

struct cgsnap {
	double t;
	int n;
	struct cgrow *r;
	bool have_hist;			/* the module has cgroup_latency_hist */
	long long lat_sample;		/* -1: no latency_sample */
};

/* What a row shows: counts, shares, latency. */
struct cgview {
	uint64_t count;			/* latency samples */
	double pct[LAT_Q];		/* ns, NAN without samples */
	double redir_pct, hb_pct, out_pct[N_OUTCOMES];
	double unpl_pct, stk_pct, mis_pct, dbl_pct;
};

static void cgsnap_free(struct cgsnap *s)
{
	free(s->r);
	s->r = NULL;
	s->n = 0;
}

static struct cgrow *row_by_id(struct cgsnap *s, uint64_t id)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->r[i].a.id == id)
			return &s->r[i];
	return NULL;
}

/* A cgroup_stats line: "ID key value ...". */
static void parse_stats_line(struct cgsnap *s, char *line)
{
	char *tok, *save, *key;
	struct cgrow *r;
	uint64_t id, v;
	int k;

	tok = strtok_r(line, " \t", &save);
	if (!tok || parse_u64(tok, &id))
		return;
	r = row_by_id(s, id);
	if (!r)
		return;		/* assigned or unset between the reads */
	r->stats = true;
	while ((key = strtok_r(NULL, " \t", &save)) &&
	       (tok = strtok_r(NULL, " \t", &save))) {
		if (parse_u64(tok, &v))
			continue;
		for (k = 0; k < K_N; k++) {
			if (!strcmp(key, kname[k])) {
				r->v[k] = v;
				r->has[k] = true;
			}
		}
	}
}

/* A cgroup_latency_hist line: "ID L6ns;IDX:COUNT;...". */
static void parse_hist_line(struct cgsnap *s, char *line)
{
	char *sp = line + strcspn(line, " \t");
	struct cgrow *r;
	uint64_t id;

	if (!*sp)
		return;
	*sp++ = '\0';
	if (parse_u64(line, &id))
		return;
	r = row_by_id(s, id);
	if (!r)
		return;
	memset(r->h, 0, sizeof(r->h));
	if (llh_parse_add(trim(sp), r->h)) {
		verbose("malformed histogram of id %s in %s/%s, ignored", line,
			g.root, CGL_FILE);
		memset(r->h, 0, sizeof(r->h));
		return;
	}
	r->hist = true;
}

static int cgsnap_take(struct cgsnap *s)
{
	struct cg_assignment *a;
	char *buf, *line, *save, val[32];
	int i, n, rc;

	cgsnap_free(s);
	s->t = now_mono();
	rc = cgroup_entries(&a, &n);
	if (rc)
		return rc;
	s->r = calloc(n ? n : 1, sizeof(*s->r));
	if (!s->r) {
		free(a);
		return fail(EX_FAIL, "out of memory");
	}
	for (i = 0; i < n; i++)
		s->r[i].a = a[i];
	s->n = n;
	free(a);
	rc = read_attr_all(CGS_FILE, &buf);
	if (rc < 0) {
		if (!module_loaded())
			return need_module();
		if (rc == -ENOENT)
			return fail(EX_FAIL, "this module has no per-cgroup statistics (no %s/%s); load a newer one",
				    g.root, CGS_FILE);
		return read_err(CGS_FILE, -rc);
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		parse_stats_line(s, line);
	free(buf);
	rc = read_attr_all(CGL_FILE, &buf);
	s->have_hist = rc >= 0;
	if (rc >= 0) {
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			parse_hist_line(s, line);
		free(buf);
	} else if (rc != -ENOENT) {
		return read_err(CGL_FILE, -rc);
	}
	if (read_attr("latency_sample", val, sizeof(val)) < 0 ||
	    parse_ll(trim(val), &s->lat_sample))
		s->lat_sample = -1;
	return 0;
}

/* The interval's row: c minus p (p NULL: c as it is). */
static void row_delta(const struct cgrow *c, const struct cgrow *p,
		      struct cgrow *d)
{
	unsigned int i;
	bool reset = false;
	int k;

	*d = *c;
	if (!p)
		return;
	for (k = 0; k < K_N; k++) {
		d->v[k] = sub(c->v[k], p->v[k]);
		d->has[k] = c->has[k] && p->has[k];
	}
	d->hist = c->hist && p->hist;
	for (i = 0; i < LLH_NBUCKETS; i++)
		if (c->h[i] < p->h[i])
			reset = true;	/* dropped and made again */
	for (i = 0; !reset && i < LLH_NBUCKETS; i++)
		d->h[i] = c->h[i] - p->h[i];
}

static double pct(const struct cgrow *r, int a, int b)
{
	if (!r->has[a] || !r->has[b] || !r->v[b])
		return NAN;
	return 100.0 * (double)r->v[a] / (double)r->v[b];
}

static void cg_derive(const struct cgrow *r, struct cgview *v)
{
	uint64_t tu;
	int q, k;

	v->count = r->hist ? llh_total(r->h) : 0;
	for (q = 0; q < LAT_Q; q++)
		v->pct[q] = v->count ?
			(double)(uint64_t)llh_percentile(r->h, cq[q]) : NAN;
	v->redir_pct = pct(r, K_REDIRECTED, K_WAKEUPS);
	v->hb_pct = pct(r, K_HANDED_BACK, K_WAKEUPS);
	for (k = 0; k < N_OUTCOMES; k++)
		v->out_pct[k] = pct(r, K_OUT + k, K_REDIRECTED);
	v->stk_pct = pct(r, K_STACKED, K_TRACKED);
	v->mis_pct = pct(r, K_MISSED_IDLE, K_TRACKED);
	v->dbl_pct = pct(r, K_DOUBLE_PICKS, K_TRACKED);
	tu = r->v[K_TRACKED] + r->v[K_UNPLACED];
	v->unpl_pct = r->has[K_TRACKED] && r->has[K_UNPLACED] && tu ?
		100.0 * (double)r->v[K_UNPLACED] / (double)tu : NAN;
}

/* ------------------------------------------------------------------------
 * Text
 */

static void out_line(const char *line)
{
	puts(line);
}

static const char *kv(char *b, const struct cgrow *r, int k)
{
	if (!r->has[k])
		return "-";
	snprintf(b, 32, "%llu", (unsigned long long)r->v[k]);
	return b;
}

static const char *lat_note(const struct cgsnap *s)
{
	if (!s->have_hist)
		return " (this module has no cgroup_latency_hist)";
	if (s->lat_sample == 0)
		return " (measurement off: latency_sample 0)";
	return "";
}

/* One assignment, as lines of at most TEXT_W columns. */
static void text_one(const struct cgsnap *s, const struct cgrow *r)
{
	char b[4][32];
	struct cgview v;
	struct wrap w;
	int k, q;

	cg_derive(r, &v);
	wrap_start(&w, out_line, "  ");
	wrap_add(&w, "wakeups %s", kv(b[0], r, K_WAKEUPS));
	wrap_add(&w, "redirected %s (%s)", kv(b[1], r, K_REDIRECTED),
		 fitnum(b[2], v.redir_pct, 1, "%", 8));
	wrap_add(&w, "handed_back %s (%s)", kv(b[0], r, K_HANDED_BACK),
		 fitnum(b[3], v.hb_pct, 1, "%", 8));
	wrap_end(&w);
	wrap_start(&w, out_line, "  ");
	wrap_add(&w, "outcomes (%% of redirected):");
	for (k = 0; k < N_OUTCOMES; k++)
		wrap_add(&w, "%s %s", kname[K_OUT + k],
			 fitnum(b[0], v.out_pct[k], 1, "%", 8));
	wrap_end(&w);
	wrap_start(&w, out_line, "  ");
	wrap_add(&w, "tracked %s", kv(b[0], r, K_TRACKED));
	wrap_add(&w, "unplaced %s (%s)", kv(b[1], r, K_UNPLACED),
		 fitnum(b[2], v.unpl_pct, 1, "%", 8));
	wrap_add(&w, "stacked %s", fitnum(b[3], v.stk_pct, 1, "%", 8));
	wrap_add(&w, "missed_idle %s", fitnum(b[0], v.mis_pct, 1, "%", 8));
	wrap_add(&w, "double_picks %s", fitnum(b[1], v.dbl_pct, 1, "%", 8));
	wrap_end(&w);
	wrap_start(&w, out_line, "  ");
	if (!s->have_hist) {
		wrap_add(&w, "latency: -%s", lat_note(s));
	} else {
		wrap_add(&w, "latency (%llu samples%s):",
			 (unsigned long long)v.count,
			 s->lat_sample == 0 ? ", measurement off" : "");
		for (q = 0; q < LAT_Q; q++)
			wrap_add(&w, "%s %s", cq_name[q], fns(b[q], v.pct[q]));
	}
	wrap_end(&w);
}

static void text_head(const struct cgrow *r)
{
	struct wrap w;

	wrap_start(&w, out_line, "  ");
	wrap_add(&w, "cgroup %s", r->a.path);
	wrap_add(&w, "id %llu", (unsigned long long)r->a.id);
	wrap_add(&w, "policy %s", r->a.policy);
	if (strcmp(r->a.state, "assigned"))
		wrap_add(&w, "(%s)", r->a.state);
	wrap_end(&w);
}

/* The table of stats cgroups: 78 columns; a longer path on its own line. */
static void text_table(const struct cgsnap *s, const struct cgrow *rows,
		       int n)
{
	char l[256], b[8][32], nm[4096 + 2];
	struct cgview v;
	const char *c;
	int i;

	snprintf(l, sizeof(l), "%-18s %-10s %8s %6s %8s %7s %7s %7s",
		 "CGROUP", "POLICY", "WAKEUPS", "REDIR", "TRACKED", "STACKED",
		 "LAT50", "LAT99");
	out_line(l);
	for (i = 0; i < n; i++) {
		cg_derive(&rows[i], &v);
		c = name_cell(nm, rows[i].a.path, false, 18, out_line);
		snprintf(l, sizeof(l), "%-18s %-10.10s %8s %6s %8s %7s %7s %7s",
			 c, rows[i].a.policy,
			 rows[i].has[K_WAKEUPS] ?
			 fitnum(b[0], rows[i].v[K_WAKEUPS], 0, "", 8) : "-",
			 fitnum(b[1], v.redir_pct, 1, "%", 6),
			 rows[i].has[K_TRACKED] ?
			 fitnum(b[2], rows[i].v[K_TRACKED], 0, "", 8) : "-",
			 fitnum(b[3], v.stk_pct, 1, "%", 7),
			 fns(b[4], v.pct[0]), fns(b[5], v.pct[2]));
		out_line(l);
	}
	if (!s->have_hist || s->lat_sample == 0)
		printf("latency: -%s\n", lat_note(s));
}

/* ------------------------------------------------------------------------
 * JSON
 */

static void j_cgrow(const struct cgrow *r, bool have_hist)
{
	struct cgview v;
	char *h = NULL;
	size_t hn;
	FILE *f;
	int k, q;

	cg_derive(r, &v);
	j_str("cgroup", r->a.path);
	j_u64("id", r->a.id);
	j_str("policy", r->a.policy);
	j_str("state", r->a.state);
	j_obj("counters");
	for (k = 0; k < K_TRACKED; k++) {
		if (r->has[k])
			j_u64(kname[k], r->v[k]);
		else
			j_null(kname[k]);
	}
	j_num("redirected_pct", v.redir_pct, 3);
	j_num("handed_back_pct", v.hb_pct, 3);
	j_end();
	j_obj("quality");
	for (k = K_TRACKED; k < K_N; k++) {
		if (r->has[k])
			j_u64(kname[k], r->v[k]);
		else
			j_null(kname[k]);
	}
	j_num("unplaced_pct", v.unpl_pct, 3);
	j_num("stacked_pct", v.stk_pct, 3);
	j_num("missed_idle_pct", v.mis_pct, 3);
	j_num("double_picks_pct", v.dbl_pct, 3);
	j_end();
	if (!have_hist) {
		j_null("latency");
		return;
	}
	j_obj("latency");
	j_u64("count", v.count);
	for (q = 0; q < LAT_Q; q++)
		j_num(cq_key[q], v.pct[q], 0);
	f = open_memstream(&h, &hn);
	if (f) {
		llh_print(f, r->h);
		fclose(f);
		j_str("hist", h);
		free(h);
	} else {
		j_null("hist");
	}
	j_end();
}

/* ------------------------------------------------------------------------
 * The measurement: on for an interval run, put back at its end
 */

static long long lat_saved = -1;

static void measure_on(void)
{
	char buf[32];
	long long v;
	int r;

	if (read_attr("latency_sample", buf, sizeof(buf)) < 0 ||
	    parse_ll(trim(buf), &v) || v)
		return;		/* none, or already on */
	r = write_attr("latency_sample", "1");
	if (r) {
		fprintf(stderr, "wakeplacectl: could not switch the measurement on (%s/latency_sample: %s); quality and latency stay empty\n",
			g.root, strerror(-r));
		return;
	}
	lat_saved = v;
	verbose("latency measurement on for this run (latency_sample was 0)");
}

static void measure_restore(void)
{
	char val[32];

	if (lat_saved < 0)
		return;
	snprintf(val, sizeof(val), "%lld", lat_saved);
	if (write_attr("latency_sample", val))
		fprintf(stderr, "wakeplacectl: could not restore latency_sample %s\n",
			val);
	lat_saved = -1;
}

/* ------------------------------------------------------------------------
 * The commands
 */

struct cg_args {
	const char *cgroup;	/* NULL: every assignment */
	double interval;
	uint64_t count;
};

static int parse_cg_args(int argc, char **argv, struct cg_args *a,
			 bool one)
{
	char *val;
	int i, rc = 0;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		val = NULL;
		if (one && opt_match(&i, argc, argv, "--cgroup", NULL, &val,
				     &rc)) {
			if (rc)
				return rc;
			if (a->cgroup)
				return usage_err("--cgroup given twice");
			a->cgroup = val;
		} else if (interval_opt(&i, argc, argv, &a->interval,
					&a->count, &rc)) {
			if (rc)
				return rc;
		} else {
			return usage_err("%s takes --interval and --count only ('%s'); see `wakeplacectl stats help`",
					 one ? "stats --cgroup" :
					 "stats cgroups", argv[i]);
		}
	}
	if (a->count && !a->interval)
		return usage_err("--count needs --interval");
	if (g.json && a->interval && !a->count)
		return usage_err("with -j, --interval needs --count (one JSON document is printed at the end)");
	return 0;
}

/* The row of cgroup cg in s, or NULL. */
static struct cgrow *row_by_path(struct cgsnap *s, const char *cg)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->r[i].a.path, cg))
			return &s->r[i];
	return NULL;
}

/*
 * One report: cumulative (p NULL) or the interval from p to c.  Returns
 * an exit code: the one assignment shown went away.
 */
static int report(const char *cg, uint64_t id,
		  uint64_t k, struct cgsnap *c, struct cgsnap *p)
{
	static struct cgrow d;
	struct cgrow *rc, *rp, *rows;
	struct wrap w;
	int i, n = 0;

	if (cg) {
		rc = row_by_id(c, id);
		if (!rc)
			return fail(EX_FAIL, "cgroup %s: its assignment went away (unset, cleared, or the cgroup removed)",
				    cg);
		rp = p ? row_by_id(p, id) : NULL;
		row_delta(rc, rp, &d);
		if (g.json) {
			if (p) {
				j_obj(NULL);
				j_num("timestamp", c->t, 6);
				j_num("elapsed", c->t - p->t, 6);
			}
			j_lat_sample(c->lat_sample);
			j_cgrow(&d, c->have_hist);
			if (p)
				j_end();
			return 0;
		}
		if (p) {
			wrap_start(&w, out_line, "# ");
			wrap_add(&w, "# interval %llu: %.3f s",
				 (unsigned long long)k, c->t - p->t);
			wrap_add(&w, "policy %s", d.a.policy);
			wrap_end(&w);
		} else {
			text_head(&d);
		}
		text_one(c, &d);
		fflush(stdout);
		return 0;
	}
	rows = calloc(c->n ? c->n : 1, sizeof(*rows));
	if (!rows)
		return fail(EX_FAIL, "out of memory");
	for (i = 0; i < c->n; i++) {
		rp = p ? row_by_id(p, c->r[i].a.id) : NULL;
		row_delta(&c->r[i], rp, &rows[n]);
		rows[n++].fresh = p && !rp;
	}
	if (g.json) {
		if (p) {
			j_obj(NULL);
			j_num("timestamp", c->t, 6);
			j_num("elapsed", c->t - p->t, 6);
		}
		j_lat_sample(c->lat_sample);
		j_arr("cgroups");
		for (i = 0; i < n; i++) {
			j_obj(NULL);
			j_cgrow(&rows[i], c->have_hist);
			if (p)
				j_bool("appeared", rows[i].fresh);
			j_end();
		}
		j_end();
		if (p) {
			j_arr("vanished");
			for (i = 0; i < p->n; i++) {
				if (row_by_id(c, p->r[i].a.id))
					continue;
				j_obj(NULL);
				j_u64("id", p->r[i].a.id);
				j_str("cgroup", p->r[i].a.path);
				j_end();
			}
			j_end();
			j_end();
		}
		free(rows);
		return 0;
	}
	if (p)
		printf("# interval %llu: %.3f s\n", (unsigned long long)k,
		       c->t - p->t);
	text_table(c, rows, n);
	for (i = 0; p && i < n; i++)
		if (rows[i].fresh)
			printf("# appeared: %s (id %llu): its numbers since it was made\n",
			       rows[i].a.path,
			       (unsigned long long)rows[i].a.id);
	for (i = 0; p && i < p->n; i++)
		if (!row_by_id(c, p->r[i].a.id))
			printf("# vanished: %s (id %llu)\n", p->r[i].a.path,
			       (unsigned long long)p->r[i].a.id);
	free(rows);
	fflush(stdout);
	return 0;
}

static int cg_stats_run(const struct cg_args *a)
{
	static struct cgsnap snap[2];
	struct cgsnap *cur = &snap[0], *prev = &snap[1], *tmp;
	char cg[PATH_MAX];
	const char *one = NULL;
	struct cgrow *r;
	uint64_t id = 0, k;
	double start;
	int rc;

	if (a->cgroup) {
		rc = cgroup_arg(a->cgroup, cg, &id);
		if (rc)
			return rc;
		one = cg;
	} else {
		rc = need_module();
		if (rc)
			return rc;
	}
	if (a->interval)
		measure_on();	/* before the first read: whole intervals */
	rc = cgsnap_take(cur);
	if (rc)
		goto out;
	if (one) {
		r = row_by_path(cur, one);
		if (!r) {
			rc = fail(EX_FAIL, "cgroup %s has no policy of its own; see `wakeplacectl policy list`",
				  one);
			goto out;
		}
		id = r->a.id;	/* the module's */
	}
	if (!a->interval) {
		rc = report(one, id, 0, cur, NULL);
		goto out;
	}
	catch_signals();
	if (g.json) {
		j_num("interval", a->interval, 3);
		if (one) {
			j_str("cgroup", one);
			j_u64("id", id);
		}
		j_arr("samples");
	}
	verbose("sampled 0");
	start = cur->t;
	for (k = 1; !a->count || k <= a->count; k++) {
		sleep_until(start + k * a->interval);
		if (stop_flag)
			break;
		tmp = prev;
		prev = cur;
		cur = tmp;
		rc = cgsnap_take(cur);
		if (!rc)
			rc = report(one, id, k, cur, prev);
		if (rc)
			break;
		verbose("sampled %llu", (unsigned long long)k);
	}
out:
	measure_restore();
	cgsnap_free(&snap[0]);
	cgsnap_free(&snap[1]);
	return rc;
}

/* stats show --cgroup PATH ... (stats.c hands it over). */
int cgroup_stats_show(int argc, char **argv)
{
	struct cg_args a;
	int rc;

	rc = parse_cg_args(argc, argv, &a, true);
	if (rc)
		return rc;
	if (!a.cgroup)
		return usage_err("stats --cgroup needs a PATH");
	return cg_stats_run(&a);
}

int cmd_stats_cgroups(int argc, char **argv)
{
	struct cg_args a;
	int rc;

	rc = parse_cg_args(argc, argv, &a, false);
	if (rc)
		return rc;
	return cg_stats_run(&a);
}
