/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wakeplacectl: what `stats` (stats.c) and `watch` (watch.c) share: the
 * snapshot of the module's statistics, its deltas, and the text layout.
 */
#ifndef WP_CTL_STATS_H
#define WP_CTL_STATS_H

#include <stdatomic.h>

#include "wakeplacectl.h"
#include "llhist.h"
#include "../module/outcomes.h"

/* The wakeup outcomes, in the module's order (module/outcomes.h). */
#define CTL_OUT_ENUM(v, e, name, col, tag, desc)	O_##e
enum { WP_OUTCOMES(CTL_OUT_ENUM), N_OUTCOMES };

/* Lengths of the other tables in stats.c (checked there). */
#define N_QUALITY	6	/* quality[]: the placement quality counters */
#define LAT_ROWS	(2 + N_OUTCOMES)	/* "all", the outcomes, "unplaced" */
#define LAT_UNPLACED	(1 + N_OUTCOMES)	/* the row no policy places */
#define LAT_Q		4	/* lat_q[]: the latency percentiles shown */

/* The outcomes' short column headers (watch). */
extern const char *const outcome_tag[N_OUTCOMES];

/* The keys of stats/<policy>, as named in skeys[] (stats.c). */
enum {
	S_PICKS, S_TARGET, S_PREV, S_RECENT, S_SCAN, S_MASK, S_CLAIM_LOST,
	S_STALE_HINT, S_FALLBACK, S_HANDBACK, S_LOCAL, S_SCANNED, S_REMOTE_LINES,
	S_CROSS_LLC, S_NOT_PREV, S_COST_SAMPLES, S_COST_NS,
	S_SHADOW_COMPARED, S_SHADOW_AGREED,
	/* from here on absent (null) with an older module */
	S_TRACKED, S_STACKED, S_DOUBLE_PICKS, S_MOVED, S_MIGRATED,
	S_MIGRATED_LLC, S_MISSED_IDLE, S_UNPLACED,
	S_STACKED_OUT,				/* stacked_<outcome> ... */
	S_MISSED_OUT = S_STACKED_OUT + N_OUTCOMES,	/* missed_<outcome> */
	/* the idle mask's staleness by cause; audited, false_busy: test builds */
	S_STALE_PENDING = S_MISSED_OUT + N_OUTCOMES, S_STALE_RUNNING,
	S_STALE_PREEMPTED, S_AUDITED, S_FALSE_BUSY,
	S_DOUBLE_OUT,				/* double_<outcome> */
	S_NKEYS = S_DOUBLE_OUT + N_OUTCOMES
};

/* The keys of the counters file, as named in ckeys[] (stats.c). */
enum {
	C_CALLS, C_WAKEUPS, C_REDIRECTED, C_HANDED_BACK, C_CORRECTED, C_SLOW,
	C_REVERTED, C_SWITCHES, C_REBUILDS, C_STALE,
	/* from here on absent (null) with an older module or a non-test build */
	C_LAT_DROPPED, C_IDLE_PENDING, C_REMARK_HELD, C_AUDITED, C_FALSE_BUSY,
	C_NKEYS
};

struct lat {
	bool hist;			/* from latency_hist: h[] is valid */
	uint64_t count[LAT_ROWS];
	double pct[LAT_ROWS][LAT_Q];	/* ns; NAN without samples */
	uint64_t h[LAT_ROWS][LLH_NBUCKETS];
};

struct pstats {
	bool ok;
	bool has[S_NKEYS];		/* key present in the file */
	uint64_t v[S_NKEYS];
	uint64_t scan_hist[WP_HIST];
	uint64_t cost_hist[WP_HIST];
	struct lat *lat;		/* NULL: no latency files */
};

struct snapshot {
	double t;
	struct wp_policies pol;
	struct pstats st[WP_MAX_POLICIES];
	bool have_ctr;
	bool ctr_has[C_NKEYS];
	uint64_t ctr[C_NKEYS];
	char shadow[WP_NAME_MAX + 2];
	char state[256];
	char version[64];
	long long period;
	long long lat_sample;		/* -1: no latency_sample file */
};

struct derived {
	double out_pct[N_OUTCOMES];
	/* % of each row's count: stacked, missed idle, double picks */
	double stk_pct[LAT_ROWS], mis_pct[LAT_ROWS], dbl_pct[LAT_ROWS];
	double unplaced_pct;		/* % of tracked + unplaced */
	double claim_pct, stale_pct;	/* claim_lost, stale_hint: % of picks */
	double scan_len, rl_per_pick, xllc_pct, notprev_pct;
	double p50, p99, mean, shadow_pct;
	double q_pct[N_QUALITY];
};

/*
 * The policies a report shows, with the numbers it shows: cumulative, or
 * the deltas of an interval (rows own their delta's latency).
 */
struct vrow {
	const char *name;
	bool active;
	double per;		/* counts are shown divided by it, NAN: "-" */
	struct pstats s;
	struct derived d;
	bool own;		/* s.lat is this row's */
};

struct view {
	int n;
	struct vrow r[WP_MAX_POLICIES];
};

struct stats_args {
	bool all;
	bool sel[WP_MAX_POLICIES];	/* --policy given for these */
	bool any_sel;
	bool outcomes;			/* --outcomes */
	double interval;		/* 0: one cumulative report */
	uint64_t count;			/* 0: until interrupted */
};

#define TEXT_W	80

typedef void (*emit_fn)(const char *line);

/* Fields joined by two spaces, wrapped at TEXT_W; cont starts new lines. */
struct wrap {
	emit_fn emit;
	const char *cont;
	size_t n;
	bool empty;		/* nothing but cont in b yet */
	char b[TEXT_W + 1];
};

/* SIGINT, SIGTERM, SIGHUP end a report or the screen; SIGWINCH redraws. */
extern atomic_int stop_flag, winch_flag;
void catch_signals(void);

int parse_interval(const char *s, double *d);
bool interval_opt(int *i, int argc, char **argv, double *interval,
		  uint64_t *count, int *rc);
void j_lat_sample(long long v);	/* "latency_sample": v, null if < 0 */
void sleep_until(double t);	/* CLOCK_MONOTONIC; a signal ends it */
int take_snapshot(struct snapshot *s);
void snapshot_release(struct snapshot *s);
const char *active_name(const struct snapshot *s);
const char *counter_key(int i);		/* the name of C_<i> in counters */
uint64_t sub(uint64_t cur, uint64_t prev);
void build_view(const struct stats_args *a, const struct snapshot *c,
		const struct snapshot *p, bool rates, bool keep_new,
		struct view *v);
void view_free(struct view *v);

const char *fitnum(char *b, double v, int prec, const char *unit, int w);
const char *fns(char *b, double v);
void wrap_start(struct wrap *w, emit_fn emit, const char *cont);
void wrap_end(struct wrap *w);
void wrap_add(struct wrap *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *name_cell(char *nm, const char *name, bool active, int width,
		      emit_fn emit);

#endif /* WP_CTL_STATS_H */
