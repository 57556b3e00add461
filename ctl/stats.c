// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: stats show/reset/period/latency-sample; the snapshots,
 * deltas and text layout that `watch` (watch.c) draws with too.
 *
 * Cost percentiles come from the log2 cost histogram (bucket i counts costs
 * in [2^i, 2^(i+1)) ns): the percentile's bucket is reported as its
 * geometric midpoint 2^i * sqrt(2) ns, bucket 0 as 1 ns.  The estimate is
 * within a factor sqrt(2) of the true value.
 *
 * Wakeup latency percentiles come from latency_hist/<policy>, the
 * log-linear histograms of bench-scripts/src/llhist.h, with its rule (the
 * midpoint, rounded down, of the bucket holding the sample of rank
 * ceil(q * count)), so that an interval's percentiles are taken from the
 * difference of two snapshots.  Without latency_hist they are read from
 * latency/<policy>; an older module has neither and latency is absent.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wakeplacectl.h"
#include "llhist.h"
#include "stats.h"

#define OUT_STACKED(v, e, name, col, tag, desc)	"stacked_" #name
#define OUT_MISSED(v, e, name, col, tag, desc)	"missed_" #name
#define OUT_DOUBLE(v, e, name, col, tag, desc)	"double_" #name
static const char *const skeys[S_NKEYS] = {
	"picks", "target", "prev", "recent", "scan", "mask", "claim_lost",
	"stale_hint", "fallback", "handback", "local", "scanned", "remote_lines",
	"cross_llc", "not_prev", "cost_samples", "cost_ns",
	"shadow_compared", "shadow_agreed",
	"tracked", "stacked", "double_picks", "moved", "migrated",
	"migrated_llc", "missed_idle", "unplaced",
	[S_STACKED_OUT] = WP_OUTCOMES(OUT_STACKED),
	[S_MISSED_OUT] = WP_OUTCOMES(OUT_MISSED),
	[S_STALE_PENDING] = "stale_pending", "stale_running", "stale_preempted",
	"audited", "false_busy",
	[S_DOUBLE_OUT] = WP_OUTCOMES(OUT_DOUBLE),
};
_Static_assert(S_MISSED_OUT + N_OUTCOMES == S_STALE_PENDING, "skeys order");
_Static_assert(S_FALSE_BUSY + 1 == S_DOUBLE_OUT, "skeys order");

static const char *const ckeys[C_NKEYS] = {
	"calls", "wakeups", "redirected", "handed_back", "corrected", "slow",
	"reverted", "switches", "rebuilds", "stale", "lat_dropped",
	"idle_pending", "remark_held", "audited", "false_busy",
};

const char *counter_key(int i)
{
	return ckeys[i];
}

/* The outcomes' keys in stats/<policy>, in the order of the tables. */
#define OUT_SKEY(v, e, name, col, tag, desc)	S_##e
static const int outcome[N_OUTCOMES] = { WP_OUTCOMES(OUT_SKEY) };

/* The quality counters, shown in % of tracked wakeups, in this order. */
static const int quality[] = {
	S_STACKED, S_MISSED_IDLE, S_DOUBLE_PICKS, S_MOVED, S_MIGRATED,
	S_MIGRATED_LLC,
};
_Static_assert(ARRAY_SIZE(quality) == N_QUALITY, "N_QUALITY in stats.h");

/* The rows of latency/<policy> and latency_hist/<policy>, in this order. */
#define OUT_NAME(v, e, name, col, tag, desc)	#name
static const char *const lat_row[LAT_ROWS] = {
	"all", WP_OUTCOMES(OUT_NAME), "unplaced"
};

static const double lat_q[] = { 0.50, 0.90, 0.99, 0.999 };
_Static_assert(ARRAY_SIZE(lat_q) == LAT_Q, "LAT_Q in stats.h");

static const char *const lat_qkey[LAT_Q] = {
	"p50_ns", "p90_ns", "p99_ns", "p999_ns",
};

/* Lock-free atomics are async-signal-safe (C11 7.14.1.1). */
atomic_int stop_flag, winch_flag;

static void on_signal(int sig)
{
	if (sig == SIGWINCH)
		winch_flag = 1;
	else
		stop_flag = 1;
}

void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: sleeps end early */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
}

/* ------------------------------------------------------------------------
 * Reading and arithmetic
 */

static void parse_hist(char *rest, uint64_t *h)
{
	char *tok, *save;
	int i = 0;

	for (tok = strtok_r(rest, " \t", &save); tok && i < WP_HIST;
	     tok = strtok_r(NULL, " \t", &save))
		if (parse_u64(tok, &h[i++]))
			h[i - 1] = 0;
}

static void parse_kv(char *buf, const char *const *keys, int nkeys,
		     uint64_t *v, bool *has, struct pstats *ps)
{
	char *line, *save;
	int i;

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = line + strcspn(line, " \t");

		if (!*sp)
			continue;
		*sp++ = '\0';
		if (ps && !strcmp(line, "scan_hist")) {
			parse_hist(sp, ps->scan_hist);
			continue;
		}
		if (ps && !strcmp(line, "cost_hist")) {
			parse_hist(sp, ps->cost_hist);
			continue;
		}
		for (i = 0; i < nkeys; i++) {
			if (strcmp(line, keys[i]))
				continue;
			has[i] = true;
			if (parse_u64(trim(sp), &v[i]))
				v[i] = 0;
		}
	}
}

static int lat_row_index(const char *name)
{
	int r;

	for (r = 0; r < LAT_ROWS; r++)
		if (!strcmp(name, lat_row[r]))
			return r;
	return -1;
}

/* Counts and percentiles of every row from its histogram. */
static void lat_finish(struct lat *l)
{
	int r, q;

	for (r = 0; r < LAT_ROWS; r++) {
		l->count[r] = llh_total(l->h[r]);
		for (q = 0; q < LAT_Q; q++)
			l->pct[r][q] = l->count[r] ? (double)(uint64_t)
				llh_percentile(l->h[r], lat_q[q]) : NAN;
	}
}

/* latency_hist/<policy>: "<row> L6ns;IDX:COUNT;..." lines. */
static bool parse_lat_hist(char *buf, struct lat *l)
{
	char *line, *save, *sp;
	bool any = false;
	int r;

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		sp = line + strcspn(line, " \t");
		if (!*sp)
			continue;
		*sp++ = '\0';
		r = lat_row_index(line);
		if (r < 0)
			continue;	/* a row of a newer module */
		if (llh_parse_add(trim(sp), l->h[r]))
			return false;
		any = true;
	}
	l->hist = any;
	if (any)
		lat_finish(l);
	return any;
}

/* latency/<policy>: "<row> <count> <p50> <p90> <p99> <p999>" lines. */
static bool parse_lat(char *buf, struct lat *l)
{
	char *line, *save, name[32], extra;
	unsigned long long v[1 + LAT_Q];
	bool any = false;
	int r, q;

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!*trim(line))
			continue;
		if (sscanf(line, "%31s %llu %llu %llu %llu %llu %c", name,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &extra) !=
		    1 + 1 + LAT_Q)
			return false;
		r = lat_row_index(name);
		if (r < 0)
			continue;
		l->count[r] = v[0];
		for (q = 0; q < LAT_Q; q++)
			l->pct[r][q] = v[0] ? (double)v[1 + q] : NAN;
		any = true;
	}
	return any;
}

/* The latency of one policy, or NULL when the module has none for it. */
static struct lat *read_lat(const char *policy)
{
	char rel[WP_NAME_MAX + 32], *buf;
	struct lat *l;
	bool ok;

	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	snprintf(rel, sizeof(rel), "latency_hist/%s", policy);
	if (read_attr_all(rel, &buf) >= 0) {
		ok = parse_lat_hist(buf, l);
		free(buf);
		if (ok)
			return l;
		verbose("malformed %s/%s, ignored", g.root, rel);
		memset(l, 0, sizeof(*l));
	}
	snprintf(rel, sizeof(rel), "latency/%s", policy);
	if (read_attr_all(rel, &buf) >= 0) {
		ok = parse_lat(buf, l);
		free(buf);
		if (ok)
			return l;
		verbose("malformed %s/%s, ignored", g.root, rel);
	}
	free(l);
	return NULL;
}

void snapshot_release(struct snapshot *s)
{
	int i;

	for (i = 0; i < WP_MAX_POLICIES; i++) {
		free(s->st[i].lat);
		s->st[i].lat = NULL;
	}
}

int take_snapshot(struct snapshot *s)
{
	char buf[WP_FILE_MAX], rel[WP_NAME_MAX + 16];
	int i, rc;

	snapshot_release(s);
	memset(s, 0, sizeof(*s));
	s->t = now_mono();
	rc = load_policies(&s->pol);
	if (rc)
		return rc;
	for (i = 0; i < s->pol.n; i++) {
		snprintf(rel, sizeof(rel), "stats/%s", s->pol.name[i]);
		rc = read_attr(rel, buf, sizeof(buf));
		if (rc < 0) {
			if (!module_loaded())
				return need_module();
			verbose("cannot read %s/%s: %s", g.root, rel,
				strerror(-rc));
			continue;
		}
		s->st[i].ok = true;
		parse_kv(buf, skeys, S_NKEYS, s->st[i].v, s->st[i].has,
			 &s->st[i]);
		s->st[i].lat = read_lat(s->pol.name[i]);
	}
	if (read_attr("counters", buf, sizeof(buf)) >= 0) {
		s->have_ctr = true;
		parse_kv(buf, ckeys, C_NKEYS, s->ctr, s->ctr_has, NULL);
	}
	if (read_attr("shadow", s->shadow, sizeof(s->shadow)) < 0)
		strcpy(s->shadow, "unknown");
	if (read_attr("state", s->state, sizeof(s->state)) < 0)
		strcpy(s->state, "unknown");
	if (read_attr("version", s->version, sizeof(s->version)) < 0)
		strcpy(s->version, "?");
	if (read_attr("sample_period", buf, 32) < 0 ||
	    parse_ll(trim(buf), &s->period))
		s->period = -1;
	if (read_attr("latency_sample", buf, 32) < 0 ||
	    parse_ll(trim(buf), &s->lat_sample))
		s->lat_sample = -1;
	return 0;
}

uint64_t sub(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : cur;	/* reset in between */
}

/*
 * The latency of an interval (malloc'd).  A row with a bucket that went
 * down was reset in between: its current histogram is the interval's.
 * Without histograms only the counts have deltas.
 */
static struct lat *lat_delta(const struct lat *c, const struct lat *p)
{
	struct lat *d;
	bool reset;
	int r, q;
	unsigned int i;

	if (!c)
		return NULL;
	d = malloc(sizeof(*d));
	if (!d)
		return NULL;
	*d = *c;
	if (!p)
		return d;
	if (!c->hist || !p->hist) {
		d->hist = false;
		for (r = 0; r < LAT_ROWS; r++) {
			d->count[r] = sub(c->count[r], p->count[r]);
			for (q = 0; q < LAT_Q; q++)
				d->pct[r][q] = NAN;
		}
		return d;
	}
	for (r = 0; r < LAT_ROWS; r++) {
		reset = false;
		for (i = 0; i < LLH_NBUCKETS; i++)
			if (c->h[r][i] < p->h[r][i])
				reset = true;
		if (reset)
			continue;
		for (i = 0; i < LLH_NBUCKETS; i++)
			d->h[r][i] = c->h[r][i] - p->h[r][i];
	}
	lat_finish(d);
	return d;
}

/* d->lat is malloc'd: the caller frees it. */
static void delta(const struct pstats *c, const struct pstats *p,
		  struct pstats *d)
{
	int i;

	d->ok = c->ok && p->ok;
	for (i = 0; i < S_NKEYS; i++) {
		d->v[i] = sub(c->v[i], p->v[i]);
		d->has[i] = c->has[i] && p->has[i];
	}
	for (i = 0; i < WP_HIST; i++) {
		d->scan_hist[i] = sub(c->scan_hist[i], p->scan_hist[i]);
		d->cost_hist[i] = sub(c->cost_hist[i], p->cost_hist[i]);
	}
	d->lat = lat_delta(c->lat, p->lat);
}

static double ratio(uint64_t a, uint64_t b, double scale)
{
	return b ? scale * (double)a / (double)b : NAN;
}

static double percentile(const uint64_t *h, double q)
{
	uint64_t total = 0, cum = 0, rank;
	int i;

	for (i = 0; i < WP_HIST; i++)
		total += h[i];
	if (!total)
		return NAN;
	rank = (uint64_t)(q * (double)total);
	if ((double)rank < q * (double)total || !rank)
		rank++;
	for (i = 0; i < WP_HIST; i++) {
		cum += h[i];
		if (cum >= rank)
			break;
	}
	if (i == WP_HIST)
		i--;
	return i ? (double)(1ULL << i) * M_SQRT2 : 1.0;
}

static void derive(const struct pstats *s, struct derived *d)
{
	uint64_t picks = s->v[S_PICKS];
	int i;

	for (i = 0; i < N_OUTCOMES; i++)
		d->out_pct[i] = ratio(s->v[outcome[i]], picks, 100.0);
	d->scan_len = ratio(s->v[S_SCANNED], picks, 1.0);
	d->rl_per_pick = ratio(s->v[S_REMOTE_LINES], picks, 1.0);
	d->xllc_pct = ratio(s->v[S_CROSS_LLC], picks, 100.0);
	d->notprev_pct = ratio(s->v[S_NOT_PREV], picks, 100.0);
	d->p50 = percentile(s->cost_hist, 0.50);
	d->p99 = percentile(s->cost_hist, 0.99);
	d->mean = ratio(s->v[S_COST_NS], s->v[S_COST_SAMPLES], 1.0);
	d->shadow_pct = ratio(s->v[S_SHADOW_AGREED], s->v[S_SHADOW_COMPARED],
			      100.0);
	for (i = 0; i < N_QUALITY; i++)
		d->q_pct[i] = s->has[S_TRACKED] && s->has[quality[i]] ?
			ratio(s->v[quality[i]], s->v[S_TRACKED], 100.0) : NAN;
	d->unplaced_pct = s->has[S_TRACKED] && s->has[S_UNPLACED] ?
		ratio(s->v[S_UNPLACED], s->v[S_TRACKED] + s->v[S_UNPLACED],
		      100.0) : NAN;
	d->claim_pct = ratio(s->v[S_CLAIM_LOST], picks, 100.0);
	d->stale_pct = ratio(s->v[S_STALE_HINT], picks, 100.0);
	/*
	 * Stacked, missed and double picks per row, in % of the row's tracked
	 * wakeups (its latency count): "all" from the totals; no policy
	 * places the unplaced row, nothing is stacked there.
	 */
	for (i = 0; i < LAT_ROWS; i++) {
		int sk = i ? S_STACKED_OUT + i - 1 : S_STACKED;
		int mk = i ? S_MISSED_OUT + i - 1 : S_MISSED_IDLE;
		int dk = i ? S_DOUBLE_OUT + i - 1 : S_DOUBLE_PICKS;
		uint64_t n = s->lat ? s->lat->count[i] : 0;

		d->stk_pct[i] = d->mis_pct[i] = d->dbl_pct[i] = NAN;
		if (i == LAT_UNPLACED)
			continue;
		if (s->has[sk])
			d->stk_pct[i] = ratio(s->v[sk], n, 100.0);
		if (s->has[mk])
			d->mis_pct[i] = ratio(s->v[mk], n, 100.0);
		if (s->has[dk])
			d->dbl_pct[i] = ratio(s->v[dk], n, 100.0);
	}
}

static bool shown(const struct stats_args *a, const struct snapshot *s,
		  int i, uint64_t picks)
{
	if (a->any_sel)
		return a->sel[i];
	return a->all || picks > 0 || i == s->pol.active;
}

/*
 * Without p: cumulative numbers (rates: per second unknown).  With p: the
 * deltas since p per second; a policy new since p is shown cumulative with
 * unknown rates if keep_new, else left out.
 */
void build_view(const struct stats_args *a, const struct snapshot *c,
		       const struct snapshot *p, bool rates, bool keep_new,
		       struct view *v)
{
	struct vrow *r;
	int i, j;

	v->n = 0;
	for (i = 0; i < c->pol.n; i++) {
		r = &v->r[v->n];
		j = p ? find_policy(&p->pol, c->pol.name[i]) : -1;
		if (p && j < 0 && !keep_new)
			continue;
		if (!shown(a, c, i, c->st[i].v[S_PICKS]))
			continue;
		if (j >= 0) {
			delta(&c->st[i], &p->st[j], &r->s);
			r->own = true;
			r->per = c->t - p->t;
		} else {
			r->s = c->st[i];
			r->own = false;
			r->per = rates ? NAN : 1.0;
		}
		if (!r->s.ok) {
			if (r->own)
				free(r->s.lat);
			continue;
		}
		r->name = c->pol.name[i];
		r->active = i == c->pol.active;
		derive(&r->s, &r->d);
		v->n++;
	}
}

void view_free(struct view *v)
{
	int i;

	for (i = 0; i < v->n; i++)
		if (v->r[i].own)
			free(v->r[i].s.lat);
	v->n = 0;
}

/* ------------------------------------------------------------------------
 * Formatting: every text line fits in TEXT_W columns
 */

static void out_line(const char *line)
{
	puts(line);
}

/*
 * v with prec decimals and unit in at most w characters: fewer decimals,
 * then multiples k, M, G, T, P, E; "#" if even that does not fit.
 */
const char *fitnum(char *b, double v, int prec, const char *unit,
			  int w)
{
	static const char sfx[] = "kMGTPE";
	int p, k;

	if (isnan(v))
		return "-";
	for (p = prec; p >= 0; p--)
		if (snprintf(b, 32, "%.*f%s", p, v, unit) <= w)
			return b;
	for (k = 0; sfx[k]; k++) {
		v /= 1000;
		for (p = 1; p >= 0; p--)
			if (snprintf(b, 32, "%.*f%c%s", p, v, sfx[k], unit) <=
			    w)
				return b;
	}
	return "#";
}

/* Nanoseconds in human units, at most 7 characters. */
const char *fns(char *b, double v)
{
	if (isnan(v))
		return "-";
	if (v < 1e3)
		return fitnum(b, v, 0, "ns", 7);
	if (v < 1e6)
		return fitnum(b, v / 1e3, 1, "us", 7);
	if (v < 1e9)
		return fitnum(b, v / 1e6, 1, "ms", 7);
	return fitnum(b, v / 1e9, 1, "s", 7);
}

void wrap_start(struct wrap *w, emit_fn emit, const char *cont)
{
	w->emit = emit;
	w->cont = cont;
	w->n = 0;
	w->b[0] = '\0';
	w->empty = true;
}

void wrap_end(struct wrap *w)
{
	if (!w->empty)
		w->emit(w->b);
	w->n = strlen(w->cont);
	memcpy(w->b, w->cont, w->n + 1);
	w->empty = true;
}

void wrap_add(struct wrap *w, const char *fmt, ...)
{
	char f[1024], *s = f;
	size_t len, room, used;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f, sizeof(f), fmt, ap);
	va_end(ap);
	for (;;) {
		len = strlen(s);
		/* a full line (n == TEXT_W) leaves no room, not a wrapped one */
		used = w->n + (w->empty ? 0 : 2);
		room = used < TEXT_W ? TEXT_W - used : 0;
		if (len <= room) {
			if (!w->empty)
				strcat(w->b, "  ");
			strcat(w->b, s);
			w->n = strlen(w->b);
			w->empty = false;
			return;
		}
		if (!w->empty) {
			wrap_end(w);
			continue;
		}
		/* longer than a whole line: cut */
		memcpy(w->b + w->n, s, room);
		w->b[w->n + room] = '\0';
		w->n += room;
		w->empty = false;
		s += room;
		wrap_end(w);
	}
}

/* The name column of a row: a wider name gets a line of its own. */
const char *name_cell(char *nm, const char *name, bool active,
			     int width, emit_fn emit)
{
	sprintf(nm, "%s%s", name, active ? "*" : "");
	if ((int)strlen(nm) <= width)
		return nm;
	emit(nm);
	return "";
}

#define OUT_COLUMN(v, e, name, col, tag, desc)	col
static const char *const outcome_hdr[N_OUTCOMES] = {
	WP_OUTCOMES(OUT_COLUMN)
};

#define OUT_TAG(v, e, name, col, tag, desc)	tag
const char *const outcome_tag[N_OUTCOMES] = { WP_OUTCOMES(OUT_TAG) };

static const char *const quality_hdr[N_QUALITY] = {
	"STACKED", "MISSED", "DOUBLE", "MOVED", "MIGRATED", "MIG-LLC",
};

/* A count of a row: per second in an interval, "-" when absent. */
static const char *row_count(char *b, const struct vrow *r, int key, int w)
{
	return r->s.has[key] ? fitnum(b, r->s.v[key] / r->per, 0, "", w) :
		"-";
}

/*
 * The idle mask's line of a policy that used it: candidates lost to
 * another waker or found busy on re-check (stale_hint, and by cause when
 * the module splits it), in % of picks; a test build's audit of the
 * mask's busy bits.  Keys the module does not have are left out.
 */
static void text_mask(const struct view *v, bool rate, emit_fn emit)
{
	static const int extra[] = {
		S_STALE_PENDING, S_STALE_RUNNING, S_STALE_PREEMPTED,
		S_AUDITED, S_FALSE_BUSY,
	};
	char b[4][32], nm[WP_NAME_MAX + 3];	/* name, '*', ':' */
	const struct vrow *r;
	bool title = false, any;
	struct wrap w;
	unsigned int k;
	int i;

	for (i = 0; i < v->n; i++) {
		r = &v->r[i];
		any = r->s.v[S_MASK] || r->s.v[S_CLAIM_LOST] ||
			r->s.v[S_STALE_HINT];
		for (k = 0; k < ARRAY_SIZE(extra); k++)
			any |= r->s.has[extra[k]] && r->s.v[extra[k]];
		if (!any || !r->s.has[S_CLAIM_LOST])
			continue;
		if (!title) {
			emit("");
			emit(rate ? "IDLE MASK (per second; % of picks)" :
			     "IDLE MASK (% of picks)");
			title = true;
		}
		wrap_start(&w, emit, "    ");
		sprintf(nm, "%s%s:", r->name, r->active ? "*" : "");
		wrap_add(&w, "%s", nm);
		wrap_add(&w, "claim_lost %s (%s)",
			 row_count(b[0], r, S_CLAIM_LOST, 12),
			 fitnum(b[1], r->d.claim_pct, 1, "%", 8));
		wrap_add(&w, "stale_hint %s (%s)",
			 row_count(b[0], r, S_STALE_HINT, 12),
			 fitnum(b[1], r->d.stale_pct, 1, "%", 8));
		for (k = 0; k < 3; k++)
			if (r->s.has[extra[k]])
				wrap_add(&w, "%s %s", skeys[extra[k]],
					 row_count(b[0], r, extra[k], 12));
		if (r->s.has[S_AUDITED] && r->s.has[S_FALSE_BUSY])
			wrap_add(&w, "false_busy %s of %s audited (%s)",
				 row_count(b[0], r, S_FALSE_BUSY, 12),
				 row_count(b[1], r, S_AUDITED, 12),
				 fitnum(b[2], ratio(r->s.v[S_FALSE_BUSY],
						    r->s.v[S_AUDITED], 100.0),
					2, "%", 8));
		wrap_end(&w);
	}
}

/*
 * The four tables of `stats`: outcome mix; scan, cost and shadow; wakeup
 * latency; placement quality.  Each is at most 78 columns wide.  Then the
 * idle mask's lines.
 */
static void text_tables(const struct view *v, bool rate, emit_fn emit)
{
	char l[256], b[16][32], nm[WP_NAME_MAX + 2];
	const struct vrow *r;
	const struct lat *la;
	const char *n;
	int i, k, o;

	o = snprintf(l, sizeof(l), "%-12s %9s", "POLICY",
		     rate ? "PICKS/s" : "PICKS");
	for (k = 0; k < N_OUTCOMES; k++)
		o += snprintf(l + o, sizeof(l) - o, " %6s", outcome_hdr[k]);
	emit(l);
	for (i = 0; i < v->n; i++) {
		r = &v->r[i];
		n = name_cell(nm, r->name, r->active, 12, emit);
		o = snprintf(l, sizeof(l), "%-12s %9s", n,
			     fitnum(b[8], r->s.v[S_PICKS] / r->per, 0, "", 9));
		for (k = 0; k < N_OUTCOMES; k++)
			o += snprintf(l + o, sizeof(l) - o, " %6s",
				      fitnum(b[k], r->d.out_pct[k], 1, "%", 6));
		emit(l);
	}

	emit("");
	snprintf(l, sizeof(l), "%-12s %7s %6s %6s %7s %7s %7s %6s", "POLICY",
		 "SCAN/PK", "RL/PK", "XLLC", "NOTPREV", "COST50", "COST99",
		 "SHADOW");
	emit(l);
	for (i = 0; i < v->n; i++) {
		r = &v->r[i];
		n = name_cell(nm, r->name, r->active, 12, emit);
		snprintf(l, sizeof(l), "%-12s %7s %6s %6s %7s %7s %7s %6s", n,
			 fitnum(b[0], r->d.scan_len, 2, "", 7),
			 fitnum(b[1], r->d.rl_per_pick, 2, "", 6),
			 fitnum(b[2], r->d.xllc_pct, 1, "%", 6),
			 fitnum(b[3], r->d.notprev_pct, 1, "%", 7),
			 fns(b[4], r->d.p50), fns(b[5], r->d.p99),
			 fitnum(b[6], r->d.shadow_pct, 1, "%", 6));
		emit(l);
	}

	/* unplaced: not in tracked, UNPL% of both together */
	emit("");
	snprintf(l, sizeof(l), "%-12s %10s %10s %6s %8s %8s %8s %8s", "POLICY",
		 rate ? "TRACKED/s" : "TRACKED",
		 rate ? "UNPLACED/s" : "UNPLACED", "UNPL%", "LAT50", "LAT90",
		 "LAT99", "LAT99.9");
	emit(l);
	for (i = 0; i < v->n; i++) {
		r = &v->r[i];
		la = r->s.lat;
		n = name_cell(nm, r->name, r->active, 12, emit);
		o = snprintf(l, sizeof(l), "%-12s %10s %10s %6s", n, !la ? "-" :
			     fitnum(b[8], la->count[0] / r->per, 0, "", 10),
			     row_count(b[9], r, S_UNPLACED, 10),
			     fitnum(b[10], r->d.unplaced_pct, 1, "%", 6));
		for (k = 0; k < LAT_Q; k++)
			o += snprintf(l + o, sizeof(l) - o, " %8s",
				      la ? fns(b[k], la->pct[0][k]) : "-");
		emit(l);
	}

	emit("");
	o = snprintf(l, sizeof(l), "%-12s", "POLICY");
	for (k = 0; k < N_QUALITY; k++)
		o += snprintf(l + o, sizeof(l) - o, " %8s", quality_hdr[k]);
	emit(l);
	for (i = 0; i < v->n; i++) {
		r = &v->r[i];
		n = name_cell(nm, r->name, r->active, 12, emit);
		o = snprintf(l, sizeof(l), "%-12s", n);
		for (k = 0; k < N_QUALITY; k++)
			o += snprintf(l + o, sizeof(l) - o, " %8s",
				      fitnum(b[k], r->d.q_pct[k], 1, "%", 8));
		emit(l);
	}
	text_mask(v, rate, emit);
}

/*
 * --outcomes: the latency rows of every shown policy (all, the outcomes,
 * unplaced), each with its stacked, missed-idle and double-pick share.
 */
static void text_outcomes(const struct view *v, bool rate, emit_fn emit)
{
	char l[256], b[8][32], nm[WP_NAME_MAX + 2];
	const struct vrow *r;
	const struct lat *la;
	int i, k, q, o;

	emit("");
	snprintf(l, sizeof(l), "%-11s %8s %7s %7s %7s %8s %8s %8s %8s",
		 "OUTCOME", rate ? "COUNT/s" : "COUNT", "STACKED", "MISSED",
		 "DOUBLE", "LAT50", "LAT90", "LAT99", "LAT99.9");
	emit(l);
	for (i = 0; i < v->n; i++) {
		r = &v->r[i];
		la = r->s.lat;
		emit(name_cell(nm, r->name, r->active, TEXT_W, emit));
		for (k = 0; k < LAT_ROWS; k++) {
			o = snprintf(l, sizeof(l), "  %-9s %8s %7s %7s %7s",
				     lat_row[k], !la ? "-" :
				     fitnum(b[4], la->count[k] / r->per, 0, "",
					    8),
				     fitnum(b[5], r->d.stk_pct[k], 1, "%", 7),
				     fitnum(b[6], r->d.mis_pct[k], 1, "%", 7),
				     fitnum(b[7], r->d.dbl_pct[k], 1, "%", 7));
			for (q = 0; q < LAT_Q; q++)
				o += snprintf(l + o, sizeof(l) - o, " %8s",
					      la ? fns(b[q], la->pct[k][q]) :
					      "-");
			emit(l);
		}
	}
}

/* ------------------------------------------------------------------------
 * JSON
 */

static void j_derived(const struct derived *d)
{
#define OUT_PCT(v, e, name, col, tag, desc)	#name "_pct"
	static const char *const names[N_OUTCOMES] = { WP_OUTCOMES(OUT_PCT) };
	static const char *const qnames[N_QUALITY] = {
		"stacked_pct", "missed_idle_pct", "double_picks_pct",
		"moved_pct", "migrated_pct", "migrated_llc_pct",
	};
	const struct {
		const char *what;
		const double *pct;
	} per_row[] = {
		{ "stacked", d->stk_pct }, { "missed", d->mis_pct },
		{ "double", d->dbl_pct },
	};
	char key[64];
	int i, k;

	j_obj("derived");
	for (i = 0; i < N_OUTCOMES; i++)
		j_num(names[i], d->out_pct[i], 3);
	j_num("scan_length", d->scan_len, 3);
	j_num("remote_lines_per_pick", d->rl_per_pick, 3);
	j_num("cross_llc_pct", d->xllc_pct, 3);
	j_num("not_prev_pct", d->notprev_pct, 3);
	j_num("cost_p50_ns", d->p50, 0);
	j_num("cost_p99_ns", d->p99, 0);
	j_num("cost_mean_ns", d->mean, 1);
	j_num("shadow_agreement_pct", d->shadow_pct, 3);
	for (i = 0; i < N_QUALITY; i++)
		j_num(qnames[i], d->q_pct[i], 3);
	j_num("unplaced_pct", d->unplaced_pct, 3);
	/* per outcome, % of the outcome's tracked wakeups (latency count) */
	for (k = 0; k < (int)ARRAY_SIZE(per_row); k++)
		for (i = 0; i < N_OUTCOMES; i++) {
			snprintf(key, sizeof(key), "%s_%s_pct", per_row[k].what,
				 lat_row[1 + i]);
			j_num(key, per_row[k].pct[1 + i], 3);
		}
	j_num("claim_lost_pct", d->claim_pct, 3);
	j_num("stale_hint_pct", d->stale_pct, 3);
	j_end();
}

static void j_pstats(const struct pstats *s)
{
	int i;

	for (i = 0; i < S_NKEYS; i++) {
		if (i >= S_TRACKED && !s->has[i])
			j_null(skeys[i]);
		else
			j_u64(skeys[i], s->v[i]);
	}
	j_arr("scan_hist");
	for (i = 0; i < WP_HIST; i++)
		j_u64(NULL, s->scan_hist[i]);
	j_end();
	j_arr("cost_hist");
	for (i = 0; i < WP_HIST; i++)
		j_u64(NULL, s->cost_hist[i]);
	j_end();
}

/* "latency": {ROW: {count, p50_ns, p90_ns, p99_ns, p999_ns, hist}} */
static void j_lat(const struct lat *l)
{
	char *h = NULL;
	size_t hn;
	FILE *f;
	int r, q;

	if (!l) {
		j_null("latency");
		return;
	}
	j_obj("latency");
	for (r = 0; r < LAT_ROWS; r++) {
		j_obj(lat_row[r]);
		j_u64("count", l->count[r]);
		for (q = 0; q < LAT_Q; q++)
			j_num(lat_qkey[q], l->pct[r][q], 0);
		f = l->hist ? open_memstream(&h, &hn) : NULL;
		if (f) {
			llh_print(f, l->h[r]);
			fclose(f);
			j_str("hist", h);
			free(h);
		} else {
			j_null("hist");
		}
		j_end();
	}
	j_end();
}

static void j_row(const struct vrow *r, bool rate)
{
	j_obj(NULL);
	j_str("name", r->name);
	j_bool("active", r->active);
	if (rate)
		j_num("picks_per_s", r->s.v[S_PICKS] / r->per, 3);
	j_pstats(&r->s);
	j_derived(&r->d);
	j_lat(r->s.lat);
	j_end();
}

static void j_counters(const char *key, const uint64_t *c, const bool *has,
		       bool have)
{
	int i;

	if (!have) {
		j_null(key);
		return;
	}
	j_obj(key);
	for (i = 0; i < C_NKEYS; i++) {
		if (i >= C_LAT_DROPPED && !has[i])
			j_null(ckeys[i]);
		else
			j_u64(ckeys[i], c[i]);
	}
	j_end();
}

void j_lat_sample(long long v)
{
	if (v >= 0)
		j_i64("latency_sample", v);
	else
		j_null("latency_sample");
}

/* ------------------------------------------------------------------------
 * stats show
 */

int parse_interval(const char *s, double *d)
{
	char *end;

	errno = 0;
	*d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*d) || *d < 0.1 ||
	    *d > 86400)
		return usage_err("invalid interval '%s' (seconds, 0.1 to 86400)",
				 s);
	return 0;
}

/*
 * --interval S and --count N of stats and stats --cgroup: true when argv[*i]
 * is one of them (then *rc is 0 or a usage exit code).
 */
bool interval_opt(int *i, int argc, char **argv, double *interval,
		  uint64_t *count, int *rc)
{
	char *val = NULL;

	if (opt_match(i, argc, argv, "--interval", "-i", &val, rc)) {
		if (!*rc)
			*rc = parse_interval(val, interval);
		return true;
	}
	if (!opt_match(i, argc, argv, "--count", "-c", &val, rc))
		return false;
	if (!*rc && (parse_u64(val, count) || !*count ||
		     *count > 100000000))
		*rc = usage_err("invalid count '%s' (a positive integer)", val);
	return true;
}

static int parse_stats_args(int argc, char **argv, struct stats_args *a)
{
	struct wp_policies p;
	char *val;
	int i, idx, rc = 0;
	bool loaded = false;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		val = NULL;
		if (opt_match(&i, argc, argv, "--all", "-a", NULL, &rc)) {
			a->all = true;
		} else if (opt_match(&i, argc, argv, "--outcomes", "-o", NULL,
				     &rc)) {
			a->outcomes = true;
		} else if (opt_match(&i, argc, argv, "--policy", "-P", &val,
				     &rc)) {
			if (rc)
				return rc;
			if (!loaded) {
				rc = load_policies(&p);
				if (rc)
					return rc;
				loaded = true;
			}
			rc = lookup_policy(&p, val, &idx);
			if (rc)
				return rc;
			a->sel[idx] = a->any_sel = true;
		} else if (interval_opt(&i, argc, argv, &a->interval,
					&a->count, &rc)) {
			if (rc)
				return rc;
		} else {
			return usage_err("unknown stats argument '%s'; see `wakeplacectl stats help`",
					 argv[i]);
		}
	}
	if (a->count && !a->interval)
		return usage_err("--count needs --interval");
	if (g.json && a->interval && !a->count)
		return usage_err("with -j, --interval needs --count (one JSON document is printed at the end)");
	return 0;
}

const char *active_name(const struct snapshot *s)
{
	return s->pol.active >= 0 ? s->pol.name[s->pol.active] : NULL;
}

static void human_cumulative(const struct stats_args *a,
			     const struct snapshot *s)
{
	static char scope[PATH_MAX + 16];
	static struct view v;
	struct wrap w;
	int i;

	wrap_start(&w, out_line, "");
	wrap_add(&w, "active: %s", active_name(s) ? active_name(s) : "?");
	wrap_add(&w, "shadow: %s", s->shadow);
	read_shadow_scope(scope, sizeof(scope));
	if (strcmp(s->shadow, "off") && *scope && strcmp(scope, "none"))
		wrap_add(&w, "shadow_cgroup: %s", scope);
	wrap_add(&w, "state: %s", s->state);
	wrap_add(&w, "sample_period: %lld", s->period);
	if (s->lat_sample >= 0)
		wrap_add(&w, "latency_sample: %lld", s->lat_sample);
	else
		wrap_add(&w, "latency_sample: -");
	for (i = C_LAT_DROPPED; i < C_NKEYS; i++)
		if (s->have_ctr && s->ctr_has[i])
			wrap_add(&w, "%s: %llu", ckeys[i],
				 (unsigned long long)s->ctr[i]);
	wrap_end(&w);
	build_view(a, s, NULL, false, false, &v);
	text_tables(&v, false, out_line);
	if (a->outcomes)
		text_outcomes(&v, false, out_line);
	view_free(&v);
}

static void json_cumulative(const struct stats_args *a,
			    const struct snapshot *s)
{
	static char scope[PATH_MAX + 16];
	static struct view v;
	int i;

	j_str("active", active_name(s));
	j_str("shadow", s->shadow);
	read_shadow_scope(scope, sizeof(scope));
	j_shadow_scope(scope);
	j_str("state", s->state);
	if (s->period >= 0)
		j_i64("sample_period", s->period);
	else
		j_null("sample_period");
	j_lat_sample(s->lat_sample);
	j_counters("counters", s->ctr, s->ctr_has, s->have_ctr);
	build_view(a, s, NULL, false, false, &v);
	j_arr("policies");
	for (i = 0; i < v.n; i++)
		j_row(&v.r[i], false);
	j_end();
	view_free(&v);
}

static void report_interval(const struct stats_args *a, int k,
			    const struct snapshot *c, const struct snapshot *p)
{
	static struct view v;
	double el = c->t - p->t;
	uint64_t dc[C_NKEYS];
	bool dhas[C_NKEYS], hc = c->have_ctr && p->have_ctr;
	struct wrap w;
	int i;

	for (i = 0; i < C_NKEYS; i++) {
		dc[i] = sub(c->ctr[i], p->ctr[i]);
		dhas[i] = c->ctr_has[i] && p->ctr_has[i];
	}
	build_view(a, c, p, true, false, &v);
	if (g.json) {
		j_obj(NULL);
		j_num("timestamp", c->t, 6);
		j_num("elapsed", el, 6);
		j_str("active", active_name(c));
		j_lat_sample(c->lat_sample);
		j_counters("counters", dc, dhas, hc);
		j_arr("policies");
		for (i = 0; i < v.n; i++)
			j_row(&v.r[i], true);
		j_end();
		j_end();
		view_free(&v);
		return;
	}
	wrap_start(&w, out_line, "# ");
	wrap_add(&w, "# interval %d: %.3f s", k, el);
	wrap_add(&w, "active: %s", active_name(c) ? active_name(c) : "?");
	wrap_add(&w, "shadow: %s", c->shadow);
	wrap_add(&w, "state: %s", c->state);
	wrap_end(&w);
	if (hc) {
		wrap_start(&w, out_line, "# ");
		wrap_add(&w, "# hook/s: calls %.0f", dc[C_CALLS] / el);
		wrap_add(&w, "wakeups %.0f", dc[C_WAKEUPS] / el);
		wrap_add(&w, "redirected %.0f", dc[C_REDIRECTED] / el);
		wrap_add(&w, "handed_back %.0f", dc[C_HANDED_BACK] / el);
		wrap_add(&w, "corrected %.0f", dc[C_CORRECTED] / el);
		for (i = C_LAT_DROPPED; i < C_NKEYS; i++)
			if (dhas[i])
				wrap_add(&w, "%s %.0f", ckeys[i], dc[i] / el);
		wrap_end(&w);
	}
	text_tables(&v, true, out_line);
	if (a->outcomes)
		text_outcomes(&v, true, out_line);
	view_free(&v);
	fflush(stdout);
}
void sleep_until(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (!stop_flag &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

int cmd_stats_show(int argc, char **argv)
{
	static struct snapshot snap[2];
	struct stats_args a;
	struct snapshot *cur = &snap[0], *prev = &snap[1], *tmp;
	double start;
	uint64_t k;
	int i, rc;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--cgroup") ||
		    !strncmp(argv[i], "--cgroup=", 9))
			return cgroup_stats_show(argc, argv);
	rc = parse_stats_args(argc, argv, &a);
	if (rc)
		return rc;
	rc = take_snapshot(cur);
	if (rc)
		return rc;
	if (!a.interval) {
		if (g.json)
			json_cumulative(&a, cur);
		else
			human_cumulative(&a, cur);
		snapshot_release(cur);
		return 0;
	}
	catch_signals();
	if (g.json) {
		j_num("interval", a.interval, 3);
		j_arr("samples");
	}
	verbose("sampled 0");
	start = cur->t;
	for (k = 1; !a.count || k <= a.count; k++) {
		sleep_until(start + k * a.interval);
		if (stop_flag)
			break;
		tmp = prev;
		prev = cur;
		cur = tmp;
		rc = take_snapshot(cur);
		if (rc)
			return rc;
		verbose("sampled %llu", (unsigned long long)k);
		report_interval(&a, k, cur, prev);
	}
	snapshot_release(cur);
	snapshot_release(prev);
	return 0;
}

/* ------------------------------------------------------------------------
 * stats reset, stats period, stats latency, stats latency-sample
 */

int cmd_stats_reset(int argc, char **argv)
{
	struct wp_policies p;
	const char *what = "all";
	int idx, rc, err;

	if (argc > 2)
		return usage_err("usage: wakeplacectl stats reset [NAME|all]");
	rc = load_policies(&p);
	if (rc)
		return rc;
	if (argc == 2 && strcmp(argv[1], "all")) {
		rc = lookup_policy(&p, argv[1], &idx);
		if (rc)
			return rc;
		what = argv[1];
	}
	err = write_attr("stats/reset", what);
	if (err)
		return write_err("stats/reset", -err, NULL);
	if (g.json)
		j_str("reset", what);
	else if (g.verbose)
		printf("statistics reset: %s\n", what);
	return 0;
}

int cmd_stats_period(int argc, char **argv)
{
	char buf[64], val[32];
	long long v;
	int r;

	if (argc > 2)
		return usage_err("usage: wakeplacectl stats period [N]");
	r = need_module();
	if (r)
		return r;
	if (argc == 2) {
		if (parse_ll(argv[1], &v) || v < 1 || v > 65536)
			return usage_err("invalid sample period '%s' (1 to 65536)",
					 argv[1]);
		snprintf(val, sizeof(val), "%lld", v);
		r = write_attr("sample_period", val);
		if (r)
			return write_err("sample_period", -r, NULL);
	}
	r = read_attr("sample_period", buf, sizeof(buf));
	if (r < 0)
		return read_err("sample_period", -r);
	if (parse_ll(trim(buf), &v))
		return fail(EX_FAIL, "malformed %s/sample_period '%s'", g.root,
			    trim(buf));
	if (g.json)
		j_i64("sample_period", v);
	else if (argc < 2 || g.verbose)
		printf("sample_period: %lld (one pick in %lld is timed)\n", v, v);
	return 0;
}

/*
 * Write latency_sample (@set >= 0) and show it: shown when nothing was
 * written (@show) or with -v, always with -j.
 */
static int latency_sample_apply(long long set, bool show, bool only_if_off)
{
	const char *old =
		"this module has no latency tracking (no %s/latency_sample): it is older than this tool";
	char buf[64], val[32];
	long long v;
	int r;

	r = need_module();
	if (r)
		return r;
	if (only_if_off) {
		/* `on` keeps a sample already set, so N survives an on. */
		r = read_attr("latency_sample", buf, sizeof(buf));
		if (r == -ENOENT && module_loaded())
			return fail(EX_FAIL, old, g.root);
		if (r < 0)
			return read_err("latency_sample", -r);
		if (!parse_ll(trim(buf), &v) && v > 0)
			set = -1;
	}
	if (set >= 0) {
		snprintf(val, sizeof(val), "%lld", set);
		r = write_attr("latency_sample", val);
		if (r == -ENOENT && module_loaded())
			return fail(EX_FAIL, old, g.root);
		if (r)
			return write_err("latency_sample", -r, NULL);
	}
	r = read_attr("latency_sample", buf, sizeof(buf));
	if (r == -ENOENT && module_loaded()) {
		/* an older module: absent, which is no error when reading */
		if (g.json)
			j_null("latency_sample");
		else
			printf("latency_sample: - (%s)\n",
			       "this module has no latency tracking");
		return 0;
	}
	if (r < 0)
		return read_err("latency_sample", -r);
	if (parse_ll(trim(buf), &v))
		return fail(EX_FAIL, "malformed %s/latency_sample '%s'", g.root,
			    trim(buf));
	if (g.json)
		j_i64("latency_sample", v);
	else if ((show || g.verbose) && v)
		printf("latency_sample: %lld (one wakeup in %lld is tracked on every CPU)\n",
		       v, v);
	else if (show || g.verbose)
		printf("latency_sample: 0 (latency tracking off)\n");
	return 0;
}

static int parse_sample(const char *s, long long *v)
{
	if (parse_ll(s, v) || *v < 0 || *v > 65536)
		return usage_err("invalid latency sample '%s' (0 to 65536; 0: off)",
				 s);
	return 0;
}

int cmd_stats_latency_sample(int argc, char **argv)
{
	long long v = -1;
	int r;

	if (argc > 2)
		return usage_err("usage: wakeplacectl stats latency-sample [N]");
	if (argc == 2) {
		r = parse_sample(argv[1], &v);
		if (r)
			return r;
	}
	return latency_sample_apply(v, argc < 2, false);
}

/* stats latency [on|off|sample N]: the measurement switch. */
int cmd_stats_latency(int argc, char **argv)
{
	const char *use = "usage: wakeplacectl stats latency [on|off|sample N]";
	long long v;
	int r;

	if (argc < 2)
		return latency_sample_apply(-1, true, false);
	if (!strcmp(argv[1], "on") && argc == 2)
		return latency_sample_apply(1, false, true);
	if (!strcmp(argv[1], "off") && argc == 2)
		return latency_sample_apply(0, false, false);
	if (!strcmp(argv[1], "sample") && argc == 3) {
		r = parse_sample(argv[2], &v);
		if (r)
			return r;
		return latency_sample_apply(v, false, false);
	}
	return usage_err("%s", use);
}
