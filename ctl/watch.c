// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl watch: a live screen of the statistics, redrawn every
 * interval with ANSI escapes on the terminal's alternate screen.
 */
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "wakeplacectl.h"
#include "stats.h"

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

static void scr_emit(const char *line)
{
	sline("%s", line);
}

/*
 * 80 columns: a 10-character name (9 + "*"; a longer one gets a line of
 * its own), then the interval's rates, outcome mix and cost; below, the
 * interval's wakeup latency and placement quality, missed idle (the
 * oracle) beside stacked.
 */
/* The quality columns (stats.h's quality order), 5 characters each. */
static const char *const qtag[N_QUALITY] = {
	"STACK", "MISS", "DBL", "MOVED", "MIGR", "MGLLC",
};

static void draw(const struct snapshot *c, const struct snapshot *p,
		 bool all, double interval)
{
	static struct view v;
	struct stats_args a = { .all = all };
	double el = p ? c->t - p->t : NAN;
	char b[16][32], nm[WP_NAME_MAX + 2], l[256];
	const char *n;
	const struct vrow *r;
	const struct lat *la;
	struct wrap w;
	int i, k, o;

	screen_size();
	scr_line = 0;
	fputs("\033[H", stdout);
	wrap_start(&w, scr_emit, "  ");
	wrap_add(&w, "wakeplace %s", c->version);
	wrap_add(&w, "policy: %s", active_name(c) ? active_name(c) : "?");
	wrap_add(&w, "shadow: %s", c->shadow);
	wrap_add(&w, "state: %s", c->state);
	wrap_end(&w);
	wrap_start(&w, scr_emit, "  ");
	wrap_add(&w, "every %.1fs", interval);
	if (c->have_ctr && p && p->have_ctr) {
		wrap_add(&w, "calls/s %s", fitnum(b[0], sub(c->ctr[C_CALLS],
				p->ctr[C_CALLS]) / el, 0, "", 20));
		wrap_add(&w, "redirected/s %s", fitnum(b[1],
			 sub(c->ctr[C_REDIRECTED], p->ctr[C_REDIRECTED]) / el,
			 0, "", 20));
		wrap_add(&w, "handed_back/s %s", fitnum(b[2],
			 sub(c->ctr[C_HANDED_BACK], p->ctr[C_HANDED_BACK]) / el,
			 0, "", 20));
		wrap_add(&w, "corrected %llu",
			 (unsigned long long)c->ctr[C_CORRECTED]);
		wrap_add(&w, "reverted %llu",
			 (unsigned long long)c->ctr[C_REVERTED]);
		for (k = C_LAT_DROPPED; k < C_NKEYS; k++)
			if (c->ctr_has[k])
				wrap_add(&w, "%s %llu", counter_key(k),
					 (unsigned long long)c->ctr[k]);
	} else {
		wrap_add(&w, "(rates after the first interval)");
	}
	wrap_end(&w);
	sline("");
	build_view(&a, c, p, true, true, &v);
	o = snprintf(l, sizeof(l), "%-10s %7s", "POLICY", "PICKS/s");
	for (k = 0; k < N_OUTCOMES; k++)
		o += snprintf(l + o, sizeof(l) - o, " %4s", outcome_tag[k]);
	sline("%s %7s %7s %4s", l, "COST50", "COST99", "SHDW");
	for (i = 0; i < v.n; i++) {
		r = &v.r[i];
		n = name_cell(nm, r->name, r->active, 10, scr_emit);
		o = snprintf(l, sizeof(l), "%-10s %7s", n,
			     fitnum(b[0], r->s.v[S_PICKS] / r->per, 0, "", 7));
		for (k = 0; k < N_OUTCOMES; k++)
			o += snprintf(l + o, sizeof(l) - o, " %4s",
				      fitnum(b[1], r->d.out_pct[k], 0, "%", 4));
		sline("%s %7s %7s %4s", l, fns(b[2], r->d.p50),
		      fns(b[3], r->d.p99),
		      fitnum(b[4], r->d.shadow_pct, 0, "%", 4));
	}
	sline("");
	o = snprintf(l, sizeof(l), "%-10s %9s %7s %7s %7s", "POLICY",
		     "TRACKED/s", "LAT50", "LAT99", "LAT99.9");
	for (k = 0; k < N_QUALITY; k++)
		o += snprintf(l + o, sizeof(l) - o, " %5s", qtag[k]);
	sline("%s", l);
	for (i = 0; i < v.n; i++) {
		r = &v.r[i];
		la = r->s.lat;
		n = name_cell(nm, r->name, r->active, 10, scr_emit);
		o = snprintf(l, sizeof(l), "%-10s %9s %7s %7s %7s", n,
			     la ? fitnum(b[0], la->count[0] / r->per, 0, "",
					 9) : "-",
			     la ? fns(b[1], la->pct[0][0]) : "-",
			     la ? fns(b[2], la->pct[0][2]) : "-",
			     la ? fns(b[3], la->pct[0][3]) : "-");
		for (k = 0; k < N_QUALITY; k++)
			o += snprintf(l + o, sizeof(l) - o, " %5s",
				      fitnum(b[4], r->d.q_pct[k], 1, "%", 5));
		sline("%s", l);
	}
	view_free(&v);
	sline("");
	sline("q quit  a %s  (* active; %% of the interval's picks, tracked)",
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
	snapshot_release(cur);
	snapshot_release(prev);
	if (rc)
		fprintf(stderr, "wakeplacectl: watch stopped: %s\n",
			error_message());
	return rc;
}
