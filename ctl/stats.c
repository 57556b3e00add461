// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: stats show/reset/period and the live `watch` screen.
 *
 * Cost percentiles come from the log2 cost histogram (bucket i counts costs
 * in [2^i, 2^(i+1)) ns): the percentile's bucket is reported as its
 * geometric midpoint 2^i * sqrt(2) ns, bucket 0 as 1 ns.  The estimate is
 * within a factor sqrt(2) of the true value.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "wakeplacectl.h"

enum {
	S_PICKS, S_TARGET, S_PREV, S_RECENT, S_SCAN, S_MASK, S_CLAIM_LOST,
	S_STALE_HINT, S_FALLBACK, S_HANDBACK, S_LOCAL, S_SCANNED, S_REMOTE_LINES,
	S_CROSS_LLC, S_NOT_PREV, S_COST_SAMPLES, S_COST_NS,
	S_SHADOW_COMPARED, S_SHADOW_AGREED, S_NKEYS
};

static const char *const skeys[S_NKEYS] = {
	"picks", "target", "prev", "recent", "scan", "mask", "claim_lost",
	"stale_hint", "fallback", "handback", "local", "scanned", "remote_lines",
	"cross_llc", "not_prev", "cost_samples", "cost_ns",
	"shadow_compared", "shadow_agreed",
};

enum {
	C_CALLS, C_WAKEUPS, C_REDIRECTED, C_HANDED_BACK, C_CORRECTED, C_SLOW,
	C_REVERTED, C_SWITCHES, C_REBUILDS, C_STALE, C_NKEYS
};

static const char *const ckeys[C_NKEYS] = {
	"calls", "wakeups", "redirected", "handed_back", "corrected", "slow",
	"reverted", "switches", "rebuilds", "stale",
};

/* The outcomes, as shown in the tables, in this order. */
static const int outcome[] = {
	S_TARGET, S_PREV, S_RECENT, S_SCAN, S_MASK, S_FALLBACK, S_HANDBACK,
	S_LOCAL,
};
#define N_OUTCOMES ((int)(sizeof(outcome) / sizeof(outcome[0])))

struct pstats {
	bool ok;
	uint64_t v[S_NKEYS];
	uint64_t scan_hist[WP_HIST];
	uint64_t cost_hist[WP_HIST];
};

struct snapshot {
	double t;
	struct wp_policies pol;
	struct pstats st[WP_MAX_POLICIES];
	bool have_ctr;
	uint64_t ctr[C_NKEYS];
	char shadow[WP_NAME_MAX + 2];
	char state[256];
	char version[64];
	long long period;
};

struct derived {
	double out_pct[N_OUTCOMES];
	double scan_len, rl_per_pick, xllc_pct, notprev_pct;
	double p50, p99, mean, shadow_pct;
};

/* Lock-free atomics are async-signal-safe (C11 7.14.1.1). */
static atomic_int stop_flag, winch_flag;

static void on_signal(int sig)
{
	if (sig == SIGWINCH)
		winch_flag = 1;
	else
		stop_flag = 1;
}

static void catch_signals(void)
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
		     uint64_t *v, struct pstats *ps)
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
		for (i = 0; i < nkeys; i++)
			if (!strcmp(line, keys[i]) && parse_u64(trim(sp), &v[i]))
				v[i] = 0;
	}
}

static int take_snapshot(struct snapshot *s)
{
	char buf[WP_FILE_MAX], rel[WP_NAME_MAX + 16];
	int i, rc;

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
		parse_kv(buf, skeys, S_NKEYS, s->st[i].v, &s->st[i]);
	}
	if (read_attr("counters", buf, sizeof(buf)) >= 0) {
		s->have_ctr = true;
		parse_kv(buf, ckeys, C_NKEYS, s->ctr, NULL);
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
	return 0;
}

static uint64_t sub(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : cur;	/* reset in between */
}

static void delta(const struct pstats *c, const struct pstats *p,
		  struct pstats *d)
{
	int i;

	d->ok = c->ok && p->ok;
	for (i = 0; i < S_NKEYS; i++)
		d->v[i] = sub(c->v[i], p->v[i]);
	for (i = 0; i < WP_HIST; i++) {
		d->scan_hist[i] = sub(c->scan_hist[i], p->scan_hist[i]);
		d->cost_hist[i] = sub(c->cost_hist[i], p->cost_hist[i]);
	}
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
}

/* ------------------------------------------------------------------------
 * Formatting
 */

static const char *fpct(char *b, double v, int prec)
{
	if (isnan(v))
		return "-";
	sprintf(b, "%.*f%%", prec, v);
	return b;
}

static const char *fnum(char *b, double v, int prec)
{
	if (isnan(v))
		return "-";
	sprintf(b, "%.*f", prec, v);
	return b;
}

static const char *fns(char *b, double v)
{
	if (isnan(v))
		return "-";
	if (v < 1e3)
		sprintf(b, "%.0fns", v);
	else if (v < 1e6)
		sprintf(b, "%.1fus", v / 1e3);
	else if (v < 1e9)
		sprintf(b, "%.1fms", v / 1e6);
	else
		sprintf(b, "%.1fs", v / 1e9);
	return b;
}

static const char *const outcome_hdr[N_OUTCOMES] = {
	"TARGET", "PREV", "RECENT", "SCAN", "MASK", "FALLBK", "HANDBK",
	"LOCAL",
};

static void table_header(bool rate)
{
	int i;

	printf("%-13s %12s", "POLICY", rate ? "PICKS/s" : "PICKS");
	for (i = 0; i < N_OUTCOMES; i++)
		printf(" %6s", outcome_hdr[i]);
	printf(" %7s %6s %6s %7s %7s %7s %6s\n", "SCAN/PK", "RL/PK", "XLLC",
	       "NOTPREV", "P50", "P99", "SHADOW");
}

static void table_row(const char *name, bool active, double picks,
		      const struct derived *d)
{
	char b[16][32], nm[WP_NAME_MAX + 2];
	int i;

	snprintf(nm, sizeof(nm), "%s%s", name, active ? "*" : "");
	printf("%-13s %12.0f", nm, picks);
	for (i = 0; i < N_OUTCOMES; i++)
		printf(" %6s", fpct(b[i], d->out_pct[i], 1));
	printf(" %7s %6s %6s %7s %7s %7s %6s\n",
	       fnum(b[8], d->scan_len, 2), fnum(b[9], d->rl_per_pick, 2),
	       fpct(b[10], d->xllc_pct, 1), fpct(b[11], d->notprev_pct, 1),
	       fns(b[12], d->p50), fns(b[13], d->p99),
	       fpct(b[14], d->shadow_pct, 1));
}

static void j_derived(const struct derived *d)
{
	static const char *const names[N_OUTCOMES] = {
		"target_pct", "prev_pct", "recent_pct", "scan_pct", "mask_pct",
		"fallback_pct", "handback_pct", "local_pct",
	};
	int i;

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
	j_end();
}

static void j_pstats(const struct pstats *s)
{
	int i;

	for (i = 0; i < S_NKEYS; i++)
		j_u64(skeys[i], s->v[i]);
	j_arr("scan_hist");
	for (i = 0; i < WP_HIST; i++)
		j_u64(NULL, s->scan_hist[i]);
	j_end();
	j_arr("cost_hist");
	for (i = 0; i < WP_HIST; i++)
		j_u64(NULL, s->cost_hist[i]);
	j_end();
}

static void j_counters(const char *key, const uint64_t *c, bool have)
{
	int i;

	if (!have) {
		j_null(key);
		return;
	}
	j_obj(key);
	for (i = 0; i < C_NKEYS; i++)
		j_u64(ckeys[i], c[i]);
	j_end();
}

/* ------------------------------------------------------------------------
 * stats show
 */

struct stats_args {
	bool all;
	bool sel[WP_MAX_POLICIES];	/* --policy given for these */
	bool any_sel;
	double interval;		/* 0: one cumulative report */
	uint64_t count;			/* 0: until interrupted */
};

static bool shown(const struct stats_args *a, const struct snapshot *s,
		  int i, uint64_t picks)
{
	if (a->any_sel)
		return a->sel[i];
	return a->all || picks > 0 || i == s->pol.active;
}

static int parse_interval(const char *s, double *d)
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
		} else if (opt_match(&i, argc, argv, "--interval", "-i", &val,
				     &rc)) {
			if (rc)
				return rc;
			rc = parse_interval(val, &a->interval);
			if (rc)
				return rc;
		} else if (opt_match(&i, argc, argv, "--count", "-c", &val,
				     &rc)) {
			if (rc)
				return rc;
			if (parse_u64(val, &a->count) || !a->count ||
			    a->count > 100000000)
				return usage_err("invalid count '%s' (a positive integer)",
						 val);
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

static void human_cumulative(const struct stats_args *a,
			     const struct snapshot *s)
{
	struct derived d;
	int i;

	printf("active: %s  shadow: %s  state: %s  sample_period: %lld\n",
	       s->pol.active >= 0 ? s->pol.name[s->pol.active] : "?",
	       s->shadow, s->state, s->period);
	table_header(false);
	for (i = 0; i < s->pol.n; i++) {
		if (!s->st[i].ok ||
		    !shown(a, s, i, s->st[i].v[S_PICKS]))
			continue;
		derive(&s->st[i], &d);
		table_row(s->pol.name[i], i == s->pol.active,
			  s->st[i].v[S_PICKS], &d);
	}
}

static void json_cumulative(const struct stats_args *a,
			    const struct snapshot *s)
{
	struct derived d;
	int i;

	j_str("active", s->pol.active >= 0 ? s->pol.name[s->pol.active] : NULL);
	j_str("shadow", s->shadow);
	j_str("state", s->state);
	if (s->period >= 0)
		j_i64("sample_period", s->period);
	else
		j_null("sample_period");
	j_counters("counters", s->ctr, s->have_ctr);
	j_arr("policies");
	for (i = 0; i < s->pol.n; i++) {
		if (!s->st[i].ok ||
		    !shown(a, s, i, s->st[i].v[S_PICKS]))
			continue;
		derive(&s->st[i], &d);
		j_obj(NULL);
		j_str("name", s->pol.name[i]);
		j_bool("active", i == s->pol.active);
		j_pstats(&s->st[i]);
		j_derived(&d);
		j_end();
	}
	j_end();
}

static void report_interval(const struct stats_args *a, int k,
			    const struct snapshot *c, const struct snapshot *p)
{
	double el = c->t - p->t;
	uint64_t dc[C_NKEYS];
	struct pstats d;
	struct derived dv;
	int i, j;

	for (i = 0; i < C_NKEYS; i++)
		dc[i] = sub(c->ctr[i], p->ctr[i]);
	if (g.json) {
		j_obj(NULL);
		j_num("timestamp", c->t, 6);
		j_num("elapsed", el, 6);
		j_str("active", c->pol.active >= 0 ?
		      c->pol.name[c->pol.active] : NULL);
		j_counters("counters", dc, c->have_ctr && p->have_ctr);
		j_arr("policies");
	} else {
		printf("# interval %d: %.3f s  active: %s  shadow: %s  state: %s\n",
		       k, el, c->pol.active >= 0 ?
		       c->pol.name[c->pol.active] : "?", c->shadow, c->state);
		if (c->have_ctr && p->have_ctr)
			printf("# hook/s: calls %.0f  wakeups %.0f  redirected %.0f  handed_back %.0f  corrected %.0f\n",
			       dc[C_CALLS] / el, dc[C_WAKEUPS] / el,
			       dc[C_REDIRECTED] / el, dc[C_HANDED_BACK] / el,
			       dc[C_CORRECTED] / el);
		table_header(true);
	}
	for (i = 0; i < c->pol.n; i++) {
		j = find_policy(&p->pol, c->pol.name[i]);
		if (j < 0)
			continue;
		delta(&c->st[i], &p->st[j], &d);
		if (!d.ok || !shown(a, c, i, c->st[i].v[S_PICKS]))
			continue;
		derive(&d, &dv);
		if (!g.json) {
			table_row(c->pol.name[i], i == c->pol.active,
				  d.v[S_PICKS] / el, &dv);
			continue;
		}
		j_obj(NULL);
		j_str("name", c->pol.name[i]);
		j_bool("active", i == c->pol.active);
		j_num("picks_per_s", d.v[S_PICKS] / el, 3);
		j_pstats(&d);
		j_derived(&dv);
		j_end();
	}
	if (g.json) {
		j_end();
		j_end();
	} else {
		fflush(stdout);
	}
}

static void sleep_until(double t)
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
	int rc;

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
	return 0;
}

/* ------------------------------------------------------------------------
 * stats reset, stats period
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

/* ------------------------------------------------------------------------
 * watch
 */

static struct termios saved_tio;
static bool tio_saved;
static int scr_cols = 80, scr_rows = 24, scr_line;

static void screen_size(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col &&
	    ws.ws_row) {
		scr_cols = ws.ws_col;
		scr_rows = ws.ws_row;
	}
}

static void term_enter(void)
{
	struct termios t;

	if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_tio) == 0) {
		tio_saved = true;
		t = saved_tio;
		t.c_lflag &= ~(ICANON | ECHO);
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &t);
	}
	/* alternate screen, hide cursor */
	fputs("\033[?1049h\033[?25l", stdout);
	fflush(stdout);
}

static void term_leave(void)
{
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	if (tio_saved)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	tio_saved = false;
}

/* One screen line, cut to the width; nothing beyond the last row. */
static void sline(const char *fmt, ...)
{
	char b[1024];
	va_list ap;

	if (scr_line >= scr_rows - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if ((int)strlen(b) > scr_cols)
		b[scr_cols] = '\0';
	fputs(b, stdout);
	fputs("\033[K\n", stdout);
	scr_line++;
}

static const char *wrate(char *b, double v)
{
	if (isnan(v))
		return "-";
	sprintf(b, "%.0f", v);
	return b;
}

static void draw(const struct snapshot *c, const struct snapshot *p,
		 bool all, double interval)
{
	struct stats_args a = { .all = all };
	double el = p ? c->t - p->t : NAN;
	struct pstats d;
	struct derived dv;
	char b[16][32];
	int i, j, k;

	screen_size();
	scr_line = 0;
	fputs("\033[H", stdout);
	sline("wakeplace %s  policy: %s  shadow: %s  state: %s", c->version,
	      c->pol.active >= 0 ? c->pol.name[c->pol.active] : "?",
	      c->shadow, c->state);
	if (c->have_ctr && p && p->have_ctr)
		sline("every %.1fs  calls/s %s  redirected/s %s  handed_back/s %s  corrected %llu  reverted %llu",
		      interval,
		      wrate(b[0], sub(c->ctr[C_CALLS], p->ctr[C_CALLS]) / el),
		      wrate(b[1], sub(c->ctr[C_REDIRECTED],
				      p->ctr[C_REDIRECTED]) / el),
		      wrate(b[2], sub(c->ctr[C_HANDED_BACK],
				      p->ctr[C_HANDED_BACK]) / el),
		      (unsigned long long)c->ctr[C_CORRECTED],
		      (unsigned long long)c->ctr[C_REVERTED]);
	else
		sline("every %.1fs  (rates after the first interval)", interval);
	sline("");
	/* 80 columns: an 11-character name (10 + "*"), 7-character rates. */
	sline("%-11s %7s %4s %4s %4s %4s %4s %4s %4s %4s %7s %7s %4s",
	      "POLICY", "PICKS/s", "TGT", "PRV", "RCT", "SCN", "MSK", "FBK",
	      "HBK", "LCL", "P50", "P99", "SHDW");
	for (i = 0; i < c->pol.n; i++) {
		char nm[WP_NAME_MAX + 2];

		j = p ? find_policy(&p->pol, c->pol.name[i]) : -1;
		if (j >= 0)
			delta(&c->st[i], &p->st[j], &d);
		else
			d = c->st[i];
		if (!d.ok || !shown(&a, c, i, c->st[i].v[S_PICKS]))
			continue;
		derive(&d, &dv);
		for (k = 0; k < N_OUTCOMES; k++) {
			if (isnan(dv.out_pct[k]))
				strcpy(b[k], "-");
			else
				sprintf(b[k], "%.0f%%", dv.out_pct[k]);
		}
		snprintf(nm, sizeof(nm), "%s%s", c->pol.name[i],
			 i == c->pol.active ? "*" : "");
		sline("%-11s %7s %4s %4s %4s %4s %4s %4s %4s %4s %7s %7s %4s",
		      nm, j >= 0 ? wrate(b[8], d.v[S_PICKS] / el) : "-",
		      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
		      fns(b[9], dv.p50), fns(b[10], dv.p99),
		      isnan(dv.shadow_pct) ? "-" :
		      (sprintf(b[11], "%.0f%%", dv.shadow_pct), b[11]));
	}
	sline("");
	sline("q quit  a %s  (* active; %% of the interval's picks)",
	      all ? "busy policies only" : "all policies");
	fputs("\033[J", stdout);
	fflush(stdout);
}

int cmd_watch(int argc, char **argv)
{
	static struct snapshot snap[2];
	struct snapshot *cur = &snap[0], *prev = &snap[1], *tmp;
	bool all = false, have_prev = false, in_ok = true;
	double interval = 1.0, next;
	char *val;
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		if (opt_match(&i, argc, argv, "--interval", "-i", &val, &rc)) {
			if (rc)
				return rc;
			rc = parse_interval(val, &interval);
			if (rc)
				return rc;
		} else if (opt_match(&i, argc, argv, "--all", "-a", NULL,
				     &rc)) {
			all = true;
		} else {
			return usage_err("unknown watch argument '%s'; see `wakeplacectl watch help`",
					 argv[i]);
		}
	}
	if (g.json)
		return usage_err("watch has no JSON output; use `wakeplacectl -j stats --interval S --count N`");
	rc = take_snapshot(cur);
	if (rc)
		return rc;
	catch_signals();
	term_enter();
	draw(cur, NULL, all, interval);
	next = cur->t + interval;
	while (!stop_flag) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		double left = next - now_mono();
		char ch[64];
		ssize_t n;

		if (left <= 0) {
			tmp = prev;
			prev = cur;
			cur = tmp;
			rc = take_snapshot(cur);
			if (rc)
				break;
			have_prev = true;
			draw(cur, prev, all, interval);
			next += interval;
			if (next < now_mono())
				next = now_mono() + interval;
			continue;
		}
		if (winch_flag) {
			winch_flag = 0;
			draw(cur, have_prev ? prev : NULL, all, interval);
		}
		if (poll(&pfd, in_ok ? 1 : 0, (int)(left * 1000) + 1) <= 0)
			continue;
		n = read(STDIN_FILENO, ch, sizeof(ch));
		if (n <= 0) {
			in_ok = false;	/* EOF: only signals end it now */
			continue;
		}
		for (i = 0; i < n; i++) {
			if (ch[i] == 'q' || ch[i] == 'Q' || ch[i] == 3)
				stop_flag = 1;
			else if (ch[i] == 'a' || ch[i] == 'A')
				all = !all;
		}
		if (!stop_flag)
			draw(cur, have_prev ? prev : NULL, all, interval);
	}
	term_leave();
	if (rc)
		fprintf(stderr, "wakeplacectl: watch stopped: %s\n",
			error_message());
	return rc;
}
