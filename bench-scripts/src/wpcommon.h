/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wpcommon.h - small helpers shared by the wakeplace benchmark programs.
 *
 * Every program prints its results as lines of four space-separated fields
 *	<unix_time> <workload> <metric> <value>
 * where unix_time is CLOCK_REALTIME in seconds with three decimals.
 */
#ifndef WP_COMMON_H
#define WP_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

#endif /* WP_COMMON_H */
