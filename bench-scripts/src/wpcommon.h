/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wpcommon.h - small helpers shared by the wakeplace benchmark programs.
 *
 * Every program prints its results as lines of four space-separated fields
 *	<unix_time> <workload> <metric> <value>
 * where unix_time is CLOCK_REALTIME in seconds with three decimals.
 *
 * Everything is static inline so that each program still builds from its
 * one .c file (the host tests compile them that way).
 */
#ifndef WP_COMMON_H
#define WP_COMMON_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "llhist.h"

#define WP_NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static inline uint64_t wp_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double wp_real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void wp_die(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* Parse a positive number; exits with a message on error. */
static inline double wp_num(const char *prog, const char *opt, const char *s,
			    double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < min || v > max)
		wp_die(prog, "bad value for %s: '%s' (range %g..%g)", opt, s,
		       min, max);
	return v;
}

/* Sleep until the CLOCK_MONOTONIC instant @ns. */
static inline void wp_sleep_until(uint64_t ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ns / 1000000000ull);
	ts.tv_nsec = (long)(ns % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static inline void wp_line(const char *workload, const char *metric,
			   const char *fmt, ...)
{
	va_list ap;

	printf("%.3f %s %s ", wp_real_s(), workload, metric);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* ------------------------------------------------------------ options -- */

/* The options every load generator takes: -t -i -c -L, and -H. */
struct wp_opts {
	double secs;		/* -t: run time */
	double interval;	/* -i: reporting interval */
	unsigned int count;	/* -c: intervals to report, 0 = time only */
	const char *label;	/* -L: workload field of the output lines */
	int nohist;		/* -H: no raw histogram line */
};

/* Help lines of -t -i -c for the usage() of each program. */
#define WP_USAGE_TIC							\
	"  -t  run time in seconds (default 10)\n"			\
	"  -i  reporting interval in seconds (default 1)\n"		\
	"  -c  stop after COUNT intervals (default: time only)\n"

/* Take @opt if it is one of the common options; returns 0 if it is not. */
static inline int wp_opt(const char *prog, int opt, struct wp_opts *o)
{
	switch (opt) {
	case 't':
		o->secs = wp_num(prog, "-t", optarg, 0.1, 86400);
		break;
	case 'i':
		o->interval = wp_num(prog, "-i", optarg, 0.01, 3600);
		break;
	case 'c':
		o->count = (unsigned int)wp_num(prog, "-c", optarg, 1, 1e9);
		break;
	case 'L':
		o->label = optarg;
		break;
	case 'H':
		o->nohist = 1;
		break;
	default:
		return 0;
	}
	return 1;
}

/* A program's own option: -@opt sets *@v to a number in [@min, @max]. */
struct wp_uopt {
	int opt;
	unsigned int *v;
	double min, max;
};

/* Take @opt if @own (ending with a zero opt) has it; 0 if it has not. */
static inline int wp_own_opt(const char *prog, int opt,
			     const struct wp_uopt *own)
{
	char name[3] = { '-', (char)opt, '\0' };

	for (; own->opt; own++) {
		if (own->opt == opt) {
			*own->v = (unsigned int)wp_num(prog, name, optarg,
						       own->min, own->max);
			return 1;
		}
	}
	return 0;
}

/*
 * The option loop of a load generator: the program's own options, then
 * the common ones; anything else, -h included, or an operand is a usage
 * error.  A program without -H leaves it out of @optstring.  The default
 * label is the program's name.
 */
static inline void wp_getopt(const char *prog, int argc, char **argv,
			     const char *optstring, const struct wp_uopt *own,
			     struct wp_opts *o, void (*usage)(void))
{
	int opt;

	o->secs = 10;
	o->interval = 1;
	o->count = 0;
	o->label = prog;
	o->nohist = 0;
	while ((opt = getopt(argc, argv, optstring)) != -1)
		if (!wp_own_opt(prog, opt, own) && !wp_opt(prog, opt, o))
			usage();
	if (optind != argc)
		usage();
}

/* ---------------------------------------------------------- reporting -- */

/*
 * The reporting clock.  Interval n ends at start + n * interval, not at the
 * previous wakeup + interval, so a late wakeup does not shift the later
 * ones; the run ends after -c intervals or at the last whole interval
 * within -t.
 */
struct wp_ticker {
	uint64_t start, end, last;
	double interval;
	unsigned int n, count;
};

static inline void wp_ticker_start(struct wp_ticker *t,
				   const struct wp_opts *o)
{
	t->start = t->last = wp_mono_ns();
	t->end = t->start + (uint64_t)(o->secs * 1e9);
	t->interval = o->interval;
	t->count = o->count;
	t->n = 0;
}

/*
 * Sleep to the end of the next interval.  Returns 0 when the run is over,
 * else 1 with the interval's measured length in seconds in @el: rates are
 * divided by what really elapsed, not by the nominal interval.
 */
static inline int wp_tick(struct wp_ticker *t, double *el)
{
	uint64_t next, now;

	if (t->count && t->n >= t->count)
		return 0;
	t->n++;
	next = t->start + (uint64_t)(t->n * t->interval * 1e9);
	if (next > t->end)
		return 0;
	wp_sleep_until(next);
	now = wp_mono_ns();
	*el = (double)(now - t->last) / 1e9;
	t->last = now;
	return 1;
}

/*
 * Counters of one load thread: requests done and a latency histogram.  The
 * thread adds to them with relaxed atomics; the reporting thread keeps its
 * last snapshot in prev_* to print per-interval deltas without locking.
 */
struct wp_stat {
	uint64_t done;
	uint64_t hist[LLH_NBUCKETS];
	uint64_t prev_done;
	uint64_t prev[LLH_NBUCKETS];
};

/* Add @s's histogram counts since the last call to @h; returns done's. */
static inline uint64_t wp_stat_collect(struct wp_stat *s, uint64_t *h)
{
	uint64_t d, delta;
	unsigned int k;

	for (k = 0; k < LLH_NBUCKETS; k++) {
		uint64_t v = __atomic_load_n(&s->hist[k], __ATOMIC_RELAXED);

		h[k] += v - s->prev[k];
		s->prev[k] = v;
	}
	d = __atomic_load_n(&s->done, __ATOMIC_RELAXED);
	delta = d - s->prev_done;
	s->prev_done = d;
	return delta;
}

/*
 * One "<metric> <usec>" line per quantile of @h, none for an empty
 * interval (a percentile of nothing would read as a latency).
 */
static inline void wp_pct_lines(const char *label, const uint64_t *h,
				const double *q, const char *const *name,
				unsigned int n)
{
	unsigned int i;

	if (!llh_total(h))
		return;
	for (i = 0; i < n; i++)
		wp_line(label, name[i], "%.2f", llh_percentile(h, q[i]) / 1000);
}

/*
 * End an interval: its raw histogram unless -H (for exact merging
 * downstream), then flush, so that a reader of a pipe sees whole intervals.
 */
static inline void wp_interval_end(const struct wp_opts *o,
				   const uint64_t *h)
{
	if (!o->nohist) {
		printf("%.3f %s hist ", wp_real_s(), o->label);
		llh_print(stdout, h);
		putchar('\n');
	}
	fflush(stdout);
}

/* ------------------------------------------------------ TCP loopback -- */

/* Send (@out) or receive exactly @len bytes; -1 on error or EOF. */
static inline int wp_xfer(int fd, void *buf, size_t len, int out)
{
	size_t off = 0;

	while (off < len) {
		ssize_t r = out ? send(fd, (char *)buf + off, len - off,
				       MSG_NOSIGNAL)
				: recv(fd, (char *)buf + off, len - off, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		off += (size_t)r;
	}
	return 0;
}

/* Small request/response messages: do not let Nagle hold them back. */
static inline void wp_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/*
 * Listen on an ephemeral port of 127.0.0.1 (no clash between concurrent
 * runs); @sa gets the address for the clients.  Exits on error.
 */
static inline int wp_listen_lo(const char *prog, struct sockaddr_in *sa)
{
	socklen_t salen = sizeof(*sa);
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		wp_die(prog, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)) ||
	    listen(fd, SOMAXCONN) ||
	    getsockname(fd, (struct sockaddr *)sa, &salen))
		wp_die(prog, "listen on 127.0.0.1: %s", strerror(errno));
	return fd;
}

/* A connection to @sa from wp_listen_lo().  Exits on error. */
static inline int wp_connect_lo(const char *prog,
				const struct sockaddr_in *sa)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (const struct sockaddr *)sa, sizeof(*sa)))
		wp_die(prog, "connect 127.0.0.1:%u: %s", ntohs(sa->sin_port),
		       strerror(errno));
	return fd;
}

#endif /* WP_COMMON_H */
