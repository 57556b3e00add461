// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl auto: pick the best policy online, and keep picking as the
 * load changes.  One more client of the sysfs ABI: it writes policy only,
 * and reads the policies and tunables, latency_sample, state and
 * latency_hist/.
 *
 * The rule is successive halving with stock always kept (see
 * wakeplacectl.8, AUTO).  An epoch measures the policy it ran: the
 * difference of its "all" latency histogram over the epoch.  Every
 * policy's wakeups land in its own histogram, so the wakeups still in
 * flight when auto switches are never counted to the next policy.
 *
 * Why successive halving rather than a bandit (UCB, Thompson, epsilon-
 * greedy): the arms are few (3 to 10), an epoch's p99 is noisy and heavy-
 * tailed with no known scale (a bandit's confidence bounds assume one),
 * the load is not stationary (the bandit's premise), and every switch has
 * a cost.  Halving has a fixed, known budget, interleaves the arms so that
 * they see the same load, spends its later epochs on the close contest, is
 * deterministic (testable), and leaves a plain exploit phase in which
 * drift and the guardrail can be watched without exploration noise.
 *
 * With --cgroup PATH the candidates are tried as that cgroup's assignment
 * (the cgroups file) and judged on its row of cgroup_latency_hist, with
 * the same rule and guardrail; the exit leaves the fallback assigned to
 * the cgroup.  That histogram is the assignment's, not the policy's: after
 * a switch auto waits a quarter epoch (at most 250 ms) before the epoch
 * starts, so that the wakeups in flight under the last policy are not
 * counted to the next.
 *
 * Values are kept as logarithms (ln of the latency; -ln of the rate), lower
 * is better: a margin is a ratio, and the spread of p99 across epochs is
 * closer to log-normal than to normal.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wakeplacectl.h"
#include "llhist.h"
#include "stats.h"
#include "json.h"

#define AUTO_STATE	"/run/wakeplace/auto.state"
#define AUTO_HIST	64	/* values kept per arm */
#define AUTO_WIN	8	/* guardrail: the last values of each side */
#define AUTO_MIN_N	3	/* guardrail: at least this many a side */
#define DRIFT_WIN	5	/* drift: the choice's last epochs, compared */
#define QUEUE_MAX	4096	/* epochs of one halving round */

enum objective { OBJ_P99, OBJ_MEAN, OBJ_RATE, N_OBJ };
static const char *const obj_name[N_OBJ] = { "p99", "mean", "wakeups" };

enum phase { EXPLORE, EXPLOIT };

struct arm {
	char name[WP_NAME_MAX + 1];
	double x[AUTO_HIST];	/* ring of the epochs' log values */
	int n;			/* values ever */
	int since;		/* n when this exploration started */
	bool in;		/* still in this exploration */
	bool dead;		/* reverted by the module: out of the run */
};

struct auto_cfg {
	enum objective obj;
	double epoch, margin, drift;
	int explore, recheck;
	uint64_t min_samples, epochs;
	const char *fallback, *state;
	const char *cgroup;	/* --cgroup: as given */
	bool daemon;
};

struct auto_run {
	struct auto_cfg c;
	struct arm arm[WP_MAX_POLICIES];	/* arm[0] is stock */
	int narms;
	int cur;		/* the arm whose policy auto set, -1: none */
	int chosen;		/* exploit: the choice */
	enum phase phase;
	int queue[QUEUE_MAX], qn, qpos, round;
	double base;		/* the choice's mean when chosen */
	double base_var;	/* and the variance of those values */
	int base_n;		/* how many */
	int since_choice, since_check;
	uint64_t epoch;
	char why[512];		/* the reason of the current policy */
	struct json js;		/* -j: one object a line on stdout */
	char cg[PATH_MAX];	/* --cgroup: as the module names it */
	uint64_t cgid;		/* its id, from the cgroups file */
};

/* ------------------------------------------------------------------------
 * Output: text lines, journal lines (--daemon), JSON lines (-j)
 */

static void say(struct auto_run *r, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* prio: syslog's, 6 info, 7 debug (shown with -v), 4 warning. */
/* stdout or stderr went away (a closed pipe): stop, leaving the fallback. */
static bool out_broken;

static void say(struct auto_run *r, int prio, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (prio >= 7 && !g.verbose && r->c.daemon)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* journald reads the <N> prefix of a service's stderr lines */
	if (r->c.daemon)
		fprintf(stderr, "<%d>wakeplacectl auto: %s\n", prio, msg);
	else if (prio <= 4)
		fprintf(stderr, "wakeplacectl auto: %s\n", msg);
	else if (!g.json)
		printf("%s\n", msg);
	if (fflush(NULL) || ferror(stdout) || ferror(stderr))
		out_broken = true;
}

static void jl_start(struct auto_run *r, const char *event)
{
	json_obj(&r->js, NULL);
	json_str(&r->js, "event", event);
	json_fixed(&r->js, "time", now_mono(), 3);
	json_u64(&r->js, "epoch", r->epoch);
}

static void jl_end(struct auto_run *r)
{
	json_end(&r->js);
	fputc('\n', stdout);
	if (fflush(stdout) || ferror(stdout))
		out_broken = true;
}

/* The value of an objective in its unit, for people. */
static const char *fmt_val(char *b, enum objective o, double v)
{
	if (o == OBJ_RATE) {
		snprintf(b, 32, "%.1f/s", v);
		return b;
	}
	return fns(b, v);
}

/* The value of a log mean in its unit. */
static double unlog(enum objective o, double x)
{
	return o == OBJ_RATE ? exp(-x) : exp(x);
}

static int find_arm(const struct auto_run *r, const char *name)
{
	int i;

	for (i = 0; i < r->narms; i++)
		if (!strcmp(r->arm[i].name, name))
			return i;
	return -1;
}

/* ------------------------------------------------------------------------
 * Statistics of an arm's values
 */

/* Mean and sample variance of the last k values of a (k >= 1). */
static void arm_stats(const struct arm *a, int k, double *mean, double *var)
{
	double s = 0, ss = 0, d;
	int i;

	for (i = 0; i < k; i++)
		s += a->x[(a->n - 1 - i) % AUTO_HIST];
	*mean = s / k;
	for (i = 0; i < k; i++) {
		d = a->x[(a->n - 1 - i) % AUTO_HIST] - *mean;
		ss += d * d;
	}
	*var = k > 1 ? ss / (k - 1) : 0;
}

/* Values of this exploration (at most AUTO_HIST). */
static int arm_explored(const struct arm *a)
{
	int k = a->n - a->since;

	return k < AUTO_HIST ? k : AUTO_HIST;
}

static void arm_add(struct arm *a, double x)
{
	a->x[a->n % AUTO_HIST] = x;
	a->n++;
}

/* The guardrail's window: the last AUTO_WIN values, or fewer. */
static int win(const struct arm *a)
{
	return a->n < AUTO_WIN ? a->n : AUTO_WIN;
}

/* Student's t, one-sided 95%, by degrees of freedom 1..30; then normal. */
static double t95(double df)
{
	static const double t[] = {
		6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833,
		1.812, 1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734,
		1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703,
		1.701, 1.699, 1.697,
	};
	int d = (int)df;	/* rounded down: the larger, safer quantile */

	if (d < 1)
		d = 1;
	return d <= (int)ARRAY_SIZE(t) ? t[d - 1] : 1.645;
}

/*
 * Welch's one-sided test at 95%: is d, a difference of two means less the
 * margin, above 0?  va/na and vb/nb are the sides' variances and sizes
 * (unequal variances, small samples; a side of one value has no
 * variance).  The t statistic in *t_out.
 */
static bool welch_above(double d, double va, int na, double vb, int nb,
			double *t_out)
{
	double sa = va / na, sb = nb > 1 ? vb / nb : 0, se = sqrt(sa + sb), df;

	if (se == 0) {
		/* identical epochs (a fake, or a quantised histogram) */
		*t_out = d > 0 ? INFINITY : -INFINITY;
		return d > 0;
	}
	*t_out = d / se;
	df = (sa + sb) * (sa + sb) /
	     (sa * sa / (na - 1) + (nb > 1 ? sb * sb / (nb - 1) : 0));
	return *t_out > t95(df);
}

/*
 * Is a worse than b by more than the margin, with 95% confidence?  Welch's
 * one-sided test of mean(a) - mean(b) > ln(1 + margin) on the last
 * AUTO_WIN values of each, of a at most its last amax.  Fewer than
 * AUTO_MIN_N values a side is no evidence.
 */
static bool worse_beyond(const struct arm *a, int amax, const struct arm *b,
			 double margin, double *t_out)
{
	int na = win(a) < amax ? win(a) : amax, nb = win(b);
	double ma, va, mb, vb;

	*t_out = NAN;
	if (na < AUTO_MIN_N || nb < AUTO_MIN_N)
		return false;
	arm_stats(a, na, &ma, &va);
	arm_stats(b, nb, &mb, &vb);
	return welch_above(ma - mb - log1p(margin), va, na, vb, nb, t_out);
}

/* ------------------------------------------------------------------------
 * sysfs: the policy, a policy's latency histogram, the state file
 */

/* The row of the cgroup's assignment in cgroup_latency_hist, added to h. */
static int read_cg_hist(const struct auto_run *r, uint64_t *h)
{
	const char *rel = "cgroup_latency_hist";
	char *buf, *line, *save, *sp;
	uint64_t id;
	int rc;

	rc = read_attr_all(rel, &buf);
	if (rc < 0) {
		if (!module_loaded())
			return need_module();
		if (rc == -ENOENT)
			return fail(EX_FAIL, "this module has no per-cgroup latency (no %s/%s): auto --cgroup needs it; load a newer one",
				    g.root, rel);
		return read_err(rel, -rc);
	}
	rc = -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		sp = line + strcspn(line, " ");
		if (!*sp)
			continue;
		*sp++ = '\0';
		if (parse_u64(line, &id) || id != r->cgid)
			continue;
		rc = llh_parse_add(trim(sp), h);
		break;
	}
	free(buf);
	if (rc)
		return fail(EX_FAIL, "no valid row for cgroup %s (id %llu) in %s/%s",
			    r->cg, (unsigned long long)r->cgid, g.root, rel);
	return 0;
}

/* The cgroup's assignment: 0, or an exit code (gone: an error). */
static int cg_current(struct auto_run *r, char *pol, size_t len,
		      char *state, size_t slen)
{
	int rc = cgroup_find(r->cg, &r->cgid, pol, len, state, slen);

	if (rc == -ENOENT)
		return fail(EX_FAIL, "cgroup %s has no assignment any more (unset, cleared or the cgroup removed); stopping",
			    r->cg);
	return rc;
}

/* The "all" row of latency_hist/<policy>, added to h. */
static int read_hist(const char *policy, uint64_t *h)
{
	char rel[WP_NAME_MAX + 32], *buf, *line, *save;
	int r;

	snprintf(rel, sizeof(rel), "latency_hist/%s", policy);
	r = read_attr_all(rel, &buf);
	if (r < 0) {
		if (!module_loaded())
			return need_module();
		return read_err(rel, -r);
	}
	r = -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "all ", 4))
			continue;
		r = llh_parse_add(trim(line + 4), h);
		break;
	}
	free(buf);
	if (r)
		return fail(EX_FAIL, "no valid \"all\" row in %s/%s", g.root,
			    rel);
	return 0;
}

static int current_policy(char *buf, size_t len)
{
	int r = read_attr("policy", buf, len);

	if (r < 0)
		return module_loaded() ? read_err("policy", -r) :
			need_module();
	trim(buf);
	return 0;
}

static int switch_to(struct auto_run *r, const char *name)
{
	char cur[WP_NAME_MAX + 2], st[16];
	int err;

	if (r->cg[0]) {
		err = cgroup_assign(r->cg, name);
		if (!err)
			err = cg_current(r, cur, sizeof(cur), st, sizeof(st));
		if (!err && strcmp(cur, name))
			err = fail(EX_FAIL, "policy %s was accepted for %s but it has %s",
				   name, r->cg, cur);
		return err;
	}
	err = write_attr("policy", name);
	if (err)
		return module_loaded() ? write_err("policy", -err, NULL) :
			need_module();
	err = wait_hook();	/* in effect once the hook has attached */
	if (err)
		return err;
	err = current_policy(cur, sizeof(cur));
	if (err)
		return err;
	if (strcmp(cur, name))
		return fail(EX_FAIL, "policy %s was accepted but %s is active",
			    name, cur);
	return 0;
}

/* Replace the state file: a reader sees the old or the new one, whole. */
static void write_state(struct auto_run *r, const char *policy)
{
	char tmp[PATH_MAX], dir[PATH_MAX], *sl;
	FILE *f;

	if (!r->c.state[0])
		return;
	snprintf(dir, sizeof(dir), "%s", r->c.state);
	sl = strrchr(dir, '/');
	if (sl && sl != dir) {
		*sl = '\0';
		mkdir(dir, 0755);	/* /run/wakeplace: gone at boot */
	}
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", r->c.state, (int)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		say(r, 4, "cannot write %s: %s; status will not show auto",
		    tmp, strerror(errno));
		return;
	}
	fprintf(f, "pid %d\npolicy %s\nphase %s\nobjective %s\nepoch %llu\n"
		"since %lld\nreason %s\n", (int)getpid(), policy,
		r->phase == EXPLORE ? "explore" : "exploit",
		obj_name[r->c.obj], (unsigned long long)r->epoch,
		(long long)time(NULL), r->why);
	if (r->cg[0])
		fprintf(f, "cgroup %s\n", r->cg);
	if (fclose(f) || rename(tmp, r->c.state)) {
		say(r, 4, "cannot write %s: %s; status will not show auto",
		    r->c.state, strerror(errno));
		unlink(tmp);
	}
}

static const char *state_path(void)
{
	const char *p = getenv("WAKEPLACE_AUTO_STATE");

	return p && *p ? p : AUTO_STATE;
}

int auto_state_read(struct auto_state *s)
{
	char buf[PATH_MAX + 2048], *line, *save, *val;
	long long v;

	memset(s, 0, sizeof(*s));
	if (read_path(state_path(), buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		val = line + strcspn(line, " ");
		if (*val)
			*val++ = '\0';
		if (!strcmp(line, "pid") && !parse_ll(val, &v) && v > 0 &&
		    v <= INT_MAX)
			s->pid = v;
		else if (!strcmp(line, "policy"))
			snprintf(s->policy, sizeof(s->policy), "%s", val);
		else if (!strcmp(line, "phase"))
			snprintf(s->phase, sizeof(s->phase), "%s", val);
		else if (!strcmp(line, "objective"))
			snprintf(s->objective, sizeof(s->objective), "%s", val);
		else if (!strcmp(line, "reason"))
			snprintf(s->reason, sizeof(s->reason), "%s", val);
		else if (!strcmp(line, "cgroup"))
			snprintf(s->cgroup, sizeof(s->cgroup), "%s", val);
	}
	if (!s->pid)
		return -1;
	/* EPERM: alive, another user's */
	s->alive = !kill(s->pid, 0) || errno == EPERM;
	return 0;
}

/* ------------------------------------------------------------------------
 * Epochs
 */

/* Sleep until t, waking for signals; false when the module is gone. */
static bool nap(double t)
{
	struct timespec ts;
	double left;

	while (!stop_flag && (left = t - now_mono()) > 0) {
		if (left > 0.1)
			left = 0.1;	/* an unload is seen within 100 ms */
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(left * 1e9);
		nanosleep(&ts, NULL);
		if (!module_loaded())
			return false;
	}
	return module_loaded();
}

static double hist_mean(const uint64_t *h, uint64_t n)
{
	double s = 0;
	unsigned int i;

	for (i = 0; i < LLH_NBUCKETS; i++)
		if (h[i])
			s += h[i] * ((double)llh_lower(i) +
				     (double)(llh_width(i) - 1) / 2.0);
	return s / n;
}

/*
 * One epoch on arm a: its value in *v (the objective's unit), its wakeups
 * in *n.  Returns an exit code; stop_flag set: no value.
 */
static int run_epoch(struct auto_run *r, int a, double *v, uint64_t *n)
{
	static uint64_t h0[LLH_NBUCKETS], h1[LLH_NBUCKETS];
	const char *name = r->arm[a].name;
	double t0, t1;
	unsigned int i;
	bool reset = false;
	int rc;

	if (r->cur != a) {
		rc = switch_to(r, name);
		if (rc)
			return rc;
		r->cur = a;
		/*
		 * A cgroup's histogram is the assignment's: let the wakeups
		 * in flight under the last policy land before the epoch.
		 */
		if (r->cg[0] && !nap(now_mono() + fmin(r->c.epoch / 4, 0.25)))
			return need_module();
		if (stop_flag)
			return 0;
	}
	memset(h0, 0, sizeof(h0));
	memset(h1, 0, sizeof(h1));
	rc = r->cg[0] ? read_cg_hist(r, h0) : read_hist(name, h0);
	if (rc)
		return rc;
	t0 = now_mono();
	if (!nap(t0 + r->c.epoch))
		return need_module();
	if (stop_flag)
		return 0;
	rc = r->cg[0] ? read_cg_hist(r, h1) : read_hist(name, h1);
	if (rc)
		return rc;
	t1 = now_mono();
	for (i = 0; i < LLH_NBUCKETS; i++)
		if (h1[i] < h0[i])
			reset = true;	/* stats/reset in between */
	for (i = 0; !reset && i < LLH_NBUCKETS; i++)
		h1[i] -= h0[i];
	*n = llh_total(h1);
	if (!*n)
		*v = NAN;
	else if (r->c.obj == OBJ_P99)
		*v = llh_percentile(h1, 0.99);
	else if (r->c.obj == OBJ_MEAN)
		*v = hist_mean(h1, *n);
	else
		*v = *n / (t1 - t0);
	return 0;
}

/* ------------------------------------------------------------------------
 * The rule
 */

static void decision(struct auto_run *r, const char *action, int to,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Record a decision: the reason, the state file, the lines. */
static void decision(struct auto_run *r, const char *action, int to,
		     const char *fmt, ...)
{
	va_list ap;
	int i, k;
	double m, var;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	write_state(r, r->arm[to].name);
	say(r, 6, "%s %s: %s", action, r->arm[to].name, r->why);
	if (!g.json)
		return;
	jl_start(r, "decision");
	json_str(&r->js, "action", action);
	json_str(&r->js, "policy", r->arm[to].name);
	json_str(&r->js, "phase", r->phase == EXPLORE ? "explore" : "exploit");
	json_str(&r->js, "reason", r->why);
	json_arr(&r->js, "scores");
	for (i = 0; i < r->narms; i++) {
		k = arm_explored(&r->arm[i]);
		json_obj(&r->js, NULL);
		json_str(&r->js, "policy", r->arm[i].name);
		json_bool(&r->js, "in", r->arm[i].in);
		json_bool(&r->js, "dead", r->arm[i].dead);
		json_i64(&r->js, "epochs", k);
		if (k) {
			arm_stats(&r->arm[i], k, &m, &var);
			json_fixed(&r->js, "value", unlog(r->c.obj, m), 1);
		} else {
			json_null(&r->js, "value");
		}
		json_end(&r->js);
	}
	json_end(&r->js);
	jl_end(r);
}

/* Queue a halving round: k epochs of every arm still in, interleaved. */
static void plan_round(struct auto_run *r)
{
	int in = 0, i, e, k;

	for (i = 0; i < r->narms; i++)
		in += r->arm[i].in;
	k = r->c.explore << (r->round < 10 ? r->round : 10);
	if (k * in > QUEUE_MAX)
		k = QUEUE_MAX / in;
	r->qn = r->qpos = 0;
	for (e = 0; e < k; e++)
		for (i = 0; i < r->narms; i++)
			if (r->arm[i].in)
				r->queue[r->qn++] = i;
}

static void start_explore(struct auto_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void start_explore(struct auto_run *r, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	r->phase = EXPLORE;
	r->round = 0;
	for (i = 0; i < r->narms; i++) {
		r->arm[i].in = !r->arm[i].dead;
		r->arm[i].since = r->arm[i].n;
	}
	plan_round(r);
	/* the policy named is the one the first epoch runs */
	decision(r, "explore", r->queue[0], "%s", why);
}

static int cmp_mean(const struct auto_run *r, int a, int b)
{
	double ma, mb, v;

	arm_stats(&r->arm[a], arm_explored(&r->arm[a]), &ma, &v);
	arm_stats(&r->arm[b], arm_explored(&r->arm[b]), &mb, &v);
	return ma < mb ? -1 : ma > mb;
}

/*
 * The end of a halving round: keep the better half of the arms other than
 * stock (rounded up) and stock; a round with one of them left was the
 * final duel, and the better of it and stock wins (stock on a tie).
 */
static void end_round(struct auto_run *r)
{
	int idx[WP_MAX_POLICIES], m = 0, i, j, t, keep, w;
	char b1[32], b2[32];
	double mw, ms, v;

	for (i = 1; i < r->narms; i++)
		if (r->arm[i].in && arm_explored(&r->arm[i]))
			idx[m++] = i;
		else
			r->arm[i].in = false;
	for (i = 1; i < m; i++)		/* insertion sort, best first */
		for (j = i; j > 0 && cmp_mean(r, idx[j], idx[j - 1]) < 0; j--) {
			t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	if (m > 1) {
		keep = (m + 1) / 2;
		for (i = keep; i < m; i++)
			r->arm[idx[i]].in = false;
		r->round++;
		plan_round(r);
		say(r, 7, "round %d: %d candidates and stock left", r->round,
		    keep);
		return;
	}
	r->phase = EXPLOIT;
	r->since_choice = 0;
	r->since_check = 0;
	w = 0;
	arm_stats(&r->arm[0], arm_explored(&r->arm[0]), &ms, &v);
	mw = ms;
	if (m == 1) {
		arm_stats(&r->arm[idx[0]], arm_explored(&r->arm[idx[0]]), &mw,
			  &v);
		if (mw < ms)
			w = idx[0];
	}
	r->chosen = w;
	r->base_n = arm_explored(&r->arm[w]);
	arm_stats(&r->arm[w], r->base_n, &r->base, &r->base_var);
	if (m == 0)
		decision(r, "choose", 0, "no candidate measured: stock");
	else if (w)
		decision(r, "choose", w, "best %s: %s %s vs stock %s",
			 obj_name[r->c.obj], r->arm[w].name,
			 fmt_val(b1, r->c.obj, unlog(r->c.obj, mw)),
			 fmt_val(b2, r->c.obj, unlog(r->c.obj, ms)));
	else
		decision(r, "choose", 0, "stock %s %s is not beaten (best other: %s %s)",
			 obj_name[r->c.obj],
			 fmt_val(b1, r->c.obj, unlog(r->c.obj, ms)),
			 r->arm[idx[0]].name,
			 fmt_val(b2, r->c.obj, unlog(r->c.obj, mw)));
}

/* The next arm to run. */
static int next_arm(struct auto_run *r)
{
	if (r->phase == EXPLORE)
		return r->queue[r->qpos];
	/* a periodic stock epoch keeps the guardrail's reference fresh */
	if (r->chosen && r->c.recheck && r->since_check >= r->c.recheck)
		return 0;
	return r->chosen;
}

/*
 * Has the load changed under the choice?  Its last DRIFT_WIN epochs
 * against the epochs it was chosen on: the means differ by more than
 * --drift, either way, with 95% confidence (Welch's one-sided test of
 * |difference| - ln(1 + drift) > 0, as the guardrail's).  A few noisy
 * epochs, frequent under a loaded host, are not a new load.  The window's
 * mean in *mw.
 */
static bool drifted(const struct auto_run *r, const struct arm *c,
		    double *mw)
{
	double vw, d, t;

	if (!r->base_n)	/* chosen on no value: nothing to drift from */
		return false;
	arm_stats(c, DRIFT_WIN, mw, &vw);
	d = fabs(*mw - r->base) - log1p(r->c.drift);
	return d > 0 && welch_above(d, vw, DRIFT_WIN, r->base_var, r->base_n,
				    &t);
}

/* After a counted epoch of arm a (its value added): advance the rule. */
static void advance(struct auto_run *r, int a)
{
	struct arm *c = &r->arm[r->chosen];
	char b1[32], b2[32];
	double t, m, v;

	if (r->phase == EXPLORE) {
		if (++r->qpos >= r->qn)
			end_round(r);
		return;
	}
	if (a != r->chosen) {	/* the stock re-check */
		r->since_check = 0;
	} else {
		r->since_check++;
		r->since_choice++;
	}
	/*
	 * On the choice's own epochs since it was chosen: the exploration's
	 * chose it, and judging it again on them reversed choices at once.
	 */
	if (r->chosen && worse_beyond(c, r->since_choice, &r->arm[0],
				      r->c.margin, &t)) {
		arm_stats(c, win(c) < r->since_choice ? win(c) :
			  r->since_choice, &m, &v);
		arm_stats(&r->arm[0], win(&r->arm[0]), &t, &v);
		r->chosen = 0;
		decision(r, "guardrail", 0, "%s %s worse than stock's %s by more than %g%% (95%% one-sided Welch test)",
			 c->name, fmt_val(b1, r->c.obj, unlog(r->c.obj, m)),
			 fmt_val(b2, r->c.obj, unlog(r->c.obj, t)),
			 r->c.margin * 100);
		start_explore(r, "guardrail tripped: the load changed");
		return;
	}
	if (a == r->chosen && r->since_choice >= DRIFT_WIN &&
	    drifted(r, c, &m)) {
		start_explore(r, "drift: %s %s %s over its last %d epochs, was %s when chosen",
			      c->name, obj_name[r->c.obj],
			      fmt_val(b1, r->c.obj, unlog(r->c.obj, m)),
			      DRIFT_WIN,
			      fmt_val(b2, r->c.obj, unlog(r->c.obj, r->base)));
	}
}

/*
 * The policy is not the one auto set: the module's self-protection
 * reverted it (the arm is out of the run), or someone else set it (auto
 * stops: two controllers fight).
 */
static int check_policy(struct auto_run *r, bool *changed)
{
	char cur[WP_NAME_MAX + 2], st[256];
	int rc, a = r->cur;

	*changed = false;
	if (r->cg[0]) {
		rc = cg_current(r, cur, sizeof(cur), st, sizeof(st));
		if (rc || a < 0)
			return rc;
		if (strcmp(cur, r->arm[a].name))
			return fail(EX_FAIL, "the policy of %s was changed to %s behind auto's back; stopping",
				    r->cg, cur);
		if (strcmp(st, "reverted"))
			return 0;
		snprintf(st, sizeof(st), "reverted for the cgroup");
	} else {
		rc = current_policy(cur, sizeof(cur));
		if (rc || a < 0 || !strcmp(cur, r->arm[a].name))
			return rc;
		if (read_attr("state", st, sizeof(st)) < 0)
			st[0] = '\0';
		if (strncmp(st, "reverted", 8))
			return fail(EX_FAIL, "the policy was changed to %s behind auto's back; stopping",
				    cur);
	}
	*changed = true;
	r->arm[a].dead = true;
	r->arm[a].in = false;
	/* a reverted assignment still names the policy: write the next one */
	r->cur = r->cg[0] ? -1 : find_arm(r, cur);
	r->chosen = 0;
	decision(r, "reverted", 0, "the module reverted %s (%s): out of this run",
		 r->arm[a].name, trim(st));
	start_explore(r, "%s was reverted", r->arm[a].name);
	return 0;
}

/* ------------------------------------------------------------------------
 * Arguments and set-up
 */

static int add_arm(struct auto_run *r, const char *name)
{
	if (find_arm(r, name) >= 0)
		return 0;
	if (r->narms == WP_MAX_POLICIES)
		return usage_err("too many candidates");
	snprintf(r->arm[r->narms++].name, WP_NAME_MAX + 1, "%s", name);
	return 0;
}

/*
 * The default candidates: stock and every policy without tunables (it
 * has nothing auto would have to guess), but mirror: it is the control,
 * stock's own picks through the hook, so it can only add the hook's cost.
 */
static int default_candidates(struct auto_run *r,
			      const struct wp_policies *p)
{
	struct wp_tunable t[WP_MAX_TUNABLES];
	int i, n, rc;

	for (i = 0; i < p->n; i++) {
		if (!strcmp(p->name[i], "mirror") ||
		    load_tunables(p->name[i], t, &n) || n)
			continue;
		rc = add_arm(r, p->name[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_candidates(struct auto_run *r, const struct wp_policies *p,
			    char *list)
{
	char *tok, *save;
	int idx, rc;

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		rc = lookup_policy(p, tok, &idx);
		if (rc)
			return rc;
		rc = add_arm(r, tok);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_auto_args(int argc, char **argv, struct auto_run *r,
			   struct wp_policies *p)
{
	struct auto_cfg *c = &r->c;
	char *val, *cands = NULL;
	double d;
	int i, idx, rc = 0;

	c->obj = OBJ_P99;
	c->epoch = 2;
	c->margin = 0.05;
	c->drift = 0.5;
	c->explore = 2;
	c->recheck = 10;
	c->min_samples = 100;
	c->fallback = "stock";
	c->state = state_path();
	for (i = 1; i < argc; i++) {
		val = NULL;
		if (opt_match(&i, argc, argv, "--daemon", "-d", NULL, &rc)) {
			c->daemon = true;
		} else if (opt_match(&i, argc, argv, "--candidates", "-c", &val,
				     &rc)) {
			if (rc)
				return rc;
			cands = val;
		} else if (opt_match(&i, argc, argv, "--objective", "-o", &val,
				     &rc)) {
			if (rc)
				return rc;
			for (idx = 0; idx < N_OBJ; idx++)
				if (!strcmp(val, obj_name[idx]))
					break;
			if (idx == N_OBJ)
				return usage_err("unknown objective '%s' (p99, mean or wakeups)",
						 val);
			c->obj = idx;
		} else if (num_opt(&i, argc, argv, "--epoch", "-e", 0.1, 3600,
				   false, &c->epoch, &rc)) {
			if (rc)
				return rc;
		} else if (num_opt(&i, argc, argv, "--margin", "-m", 0, 100,
				   false, &d, &rc)) {
			if (rc)
				return rc;
			c->margin = d / 100;
		} else if (num_opt(&i, argc, argv, "--drift", NULL, 1, 1000,
				   false, &d, &rc)) {
			if (rc)
				return rc;
			c->drift = d / 100;
		} else if (num_opt(&i, argc, argv, "--explore", NULL, 1, 100,
				   true, &d, &rc)) {
			if (rc)
				return rc;
			c->explore = (int)d;
		} else if (num_opt(&i, argc, argv, "--recheck", NULL, 0, 1000,
				   true, &d, &rc)) {
			if (rc)
				return rc;
			c->recheck = (int)d;
		} else if (opt_match(&i, argc, argv, "--min-samples", NULL,
				     &val, &rc)) {
			if (rc)
				return rc;
			if (parse_u64(val, &c->min_samples) ||
			    !c->min_samples || c->min_samples > 1000000000)
				return usage_err("invalid min-samples '%s' (1 to 1000000000)",
						 val);
		} else if (opt_match(&i, argc, argv, "--epochs", "-n", &val,
				     &rc)) {
			if (rc)
				return rc;
			if (parse_u64(val, &c->epochs) || !c->epochs ||
			    c->epochs > 1000000000)
				return usage_err("invalid epochs '%s' (1 to 1000000000)",
						 val);
		} else if (opt_match(&i, argc, argv, "--fallback", "-f", &val,
				     &rc)) {
			if (rc)
				return rc;
			c->fallback = val;
		} else if (opt_match(&i, argc, argv, "--cgroup", NULL, &val,
				     &rc)) {
			if (rc)
				return rc;
			if (c->cgroup)
				return usage_err("--cgroup given twice");
			c->cgroup = val;
		} else if (opt_match(&i, argc, argv, "--state", NULL, &val,
				     &rc)) {
			if (rc)
				return rc;
			c->state = val;
		} else {
			return usage_err("unknown auto argument '%s'; see `wakeplacectl auto help`",
					 argv[i]);
		}
	}
	if (g.pretty)
		return usage_err("auto -j writes one object a line: --pretty does not apply");
	rc = load_policies(p);
	if (rc)
		return rc;
	if (c->cgroup) {
		rc = cgroup_arg(c->cgroup, r->cg, &r->cgid);
		if (rc)
			return rc;
	}
	rc = lookup_policy(p, c->fallback, &idx);
	if (rc)
		return rc;
	if (find_policy(p, "stock") < 0)
		return fail(EX_FAIL, "the module has no stock policy");
	rc = add_arm(r, "stock");
	if (rc)
		return rc;
	rc = cands ? parse_candidates(r, p, cands) : default_candidates(r, p);
	if (rc)
		return rc;
	if (r->narms < 2)
		return usage_err("auto needs a candidate besides stock (--candidates)");
	return 0;
}

/* The latency histograms auto reads must be there and filling. */
static int check_tracking(struct auto_run *r)
{
	static uint64_t h[LLH_NBUCKETS];
	char buf[64], *buf2;
	long long v;
	int rc;

	if (read_attr("latency_sample", buf, sizeof(buf)) < 0 ||
	    parse_ll(trim(buf), &v))
		return fail(EX_FAIL, "this module has no latency tracking (%s/latency_sample): auto needs it",
			    g.root);
	if (!v)
		return fail(EX_FAIL, "latency tracking is off (latency_sample 0); turn it on with `wakeplacectl stats latency on`");
	if (r->cg[0]) {
		/* the file must be there; the row once the cgroup is assigned */
		rc = read_attr_all("cgroup_latency_hist", &buf2);
		if (rc == -ENOENT && module_loaded())
			return fail(EX_FAIL, "this module has no per-cgroup latency (no %s/cgroup_latency_hist): auto --cgroup needs it; load a newer one",
				    g.root);
		if (rc < 0)
			return module_loaded() ?
				read_err("cgroup_latency_hist", -rc) :
				need_module();
		free(buf2);
		return 0;
	}
	rc = read_hist(r->arm[0].name, h);
	return rc;
}

/* Another auto in charge: two would fight over the policy. */
static int check_alone(void)
{
	struct auto_state s;

	if (auto_state_read(&s) || !s.alive || s.pid == getpid())
		return 0;
	return fail(EX_FAIL, "auto is already in charge (pid %d, %s); stop it first",
		    s.pid, state_path());
}

static void start_line(struct auto_run *r)
{
	int i;

	if (!g.json)
		return;
	jl_start(r, "start");
	json_i64(&r->js, "pid", getpid());
	json_arr(&r->js, "candidates");
	for (i = 0; i < r->narms; i++)
		json_str(&r->js, NULL, r->arm[i].name);
	json_end(&r->js);
	json_str(&r->js, "objective", obj_name[r->c.obj]);
	json_fixed(&r->js, "epoch_s", r->c.epoch, 3);
	json_fixed(&r->js, "margin_pct", r->c.margin * 100, 1);
	json_fixed(&r->js, "drift_pct", r->c.drift * 100, 1);
	json_i64(&r->js, "explore", r->c.explore);
	json_i64(&r->js, "recheck", r->c.recheck);
	json_u64(&r->js, "min_samples", r->c.min_samples);
	json_str(&r->js, "fallback", r->c.fallback);
	if (r->cg[0])
		json_str(&r->js, "cgroup", r->cg);
	else
		json_null(&r->js, "cgroup");
	jl_end(r);
}

static void epoch_line(struct auto_run *r, int a, double v, uint64_t n,
		       bool counted)
{
	char b[32];

	say(r, 7, "epoch %llu %s %s: %s %s (%llu wakeups)%s",
	    (unsigned long long)r->epoch,
	    r->phase == EXPLORE ? "explore" : a == r->chosen ? "exploit" :
	    "recheck", r->arm[a].name, obj_name[r->c.obj],
	    fmt_val(b, r->c.obj, v), (unsigned long long)n,
	    counted ? "" : ", too few: not counted");
	if (!g.json)
		return;
	jl_start(r, "epoch");
	json_str(&r->js, "phase", r->phase == EXPLORE ? "explore" :
		 a == r->chosen ? "exploit" : "recheck");
	json_str(&r->js, "policy", r->arm[a].name);
	json_str(&r->js, "objective", obj_name[r->c.obj]);
	json_fixed(&r->js, "value", v, 1);
	json_u64(&r->js, "wakeups", n);
	json_bool(&r->js, "counted", counted);
	jl_end(r);
}

/* ------------------------------------------------------------------------
 * auto
 */

static int auto_loop(struct auto_run *r, const char **why)
{
	double v = NAN, x;
	uint64_t n = 0;
	bool changed, counted;
	int a, rc;

	for (;;) {
		if (out_broken)
			return fail(EX_FAIL, "cannot write the output (a closed pipe?); stopping");
		if (r->c.epochs && r->epoch >= r->c.epochs) {
			*why = "--epochs reached";
			return 0;
		}
		a = next_arm(r);
		rc = run_epoch(r, a, &v, &n);
		if (rc)
			return rc;
		if (stop_flag) {
			*why = "signal";
			return 0;
		}
		r->epoch++;
		rc = check_policy(r, &changed);
		if (rc)
			return rc;
		if (changed)
			continue;	/* that epoch is not the arm's */
		counted = n >= r->c.min_samples && !isnan(v);
		epoch_line(r, a, v, n, counted);
		if (!counted)
			continue;	/* an idle machine teaches nothing */
		x = log(v > 1 ? v : 1);
		if (r->c.obj == OBJ_RATE)
			x = -x;
		arm_add(&r->arm[a], x);
		advance(r, a);
	}
}

int cmd_auto(int argc, char **argv)
{
	static struct auto_run run;
	struct auto_run *r = &run;
	struct wp_policies p;
	const char *why = "error";
	int rc, err;

	memset(r, 0, sizeof(*r));
	rc = parse_auto_args(argc, argv, r, &p);
	if (rc)
		return rc;
	rc = check_tracking(r);
	if (rc)
		return rc;
	rc = check_alone();
	if (rc)
		return rc;
	catch_signals();
	/* a reader that goes away must not kill auto before it leaves stock */
	signal(SIGPIPE, SIG_IGN);
	if (g.json)
		json_init(&r->js, stdout, JSON_COMPACT,
			  JSON_ESC_ASCII | JSON_ESC_SHORT);
	start_line(r);
	r->cur = p.active >= 0 ? find_arm(r, p.name[p.active]) : -1;
	if (r->cg[0]) {
		char cp[WP_NAME_MAX + 1], cs[16];

		rc = cgroup_find(r->cg, &r->cgid, cp, sizeof(cp), cs,
				 sizeof(cs));
		if (rc && rc != -ENOENT)
			return rc;
		/* a reverted one is written again, as a missing one is */
		r->cur = !rc && strcmp(cs, "reverted") ? find_arm(r, cp) : -1;
		rc = 0;
	}
	r->chosen = 0;
	start_explore(r, "start");
	rc = auto_loop(r, &why);
	/* an unload caught half-way fails a read or write before the
	 * directory goes: give it a second to tell the two apart
	 */
	for (err = 0; rc && rc != EX_NOTLOADED && err < 10 && module_loaded();
	     err++)
		nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	if (rc && rc != EX_NOTLOADED && !module_loaded())
		rc = need_module();

	/* Whatever happened: the machine is left on the fallback. */
	if (rc == EX_NOTLOADED) {
		why = "module unloaded";
	} else if (module_loaded() && r->cg[0]) {
		/* its error, if any, is said; the first one is the exit's */
		err = cgroup_assign(r->cg, r->c.fallback);
		if (err && !rc)
			rc = err;
	} else if (module_loaded()) {
		err = write_attr("policy", r->c.fallback);
		if (err && module_loaded() && !rc)
			rc = write_err("policy", -err, NULL);
	}
	if (r->c.state[0])
		unlink(r->c.state);
	say(r, rc ? 4 : 6, "exit: %s; policy %s%s%s", rc ? error_message() : why,
	    rc == EX_NOTLOADED ? "gone with the module" : r->c.fallback,
	    r->cg[0] ? " for cgroup " : "", r->cg);
	if (g.json) {
		jl_start(r, "exit");
		json_str(&r->js, "reason", rc ? error_message() : why);
		json_str(&r->js, "policy", rc == EX_NOTLOADED ? NULL :
			 r->c.fallback);
		json_i64(&r->js, "rc", rc);
		if (r->cg[0])
			json_str(&r->js, "cgroup", r->cg);
		jl_end(r);
		/* the lines were the output: no closing document */
		g.helped = true;
	}
	return rc;
}
