/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the few TAP helpers of the host unit tests: one "ok N - name"
 * or "not ok N - name" line per check, the plan at the end, exit status
 * 1 if any check failed.
 */
#ifndef WP_TAP_H
#define WP_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

static inline int __attribute__((format(printf, 2, 3)))
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	return cond;
}

/* Unsigned integers: print both sides of a mismatch. */
#define is_u(got, want, ...) do {					\
	unsigned long long g_ = (got), w_ = (want);			\
	if (!ok(g_ == w_, __VA_ARGS__))					\
		printf("#   got %llu, want %llu\n", g_, w_);		\
} while (0)

#define is_s(got, want, ...) do {					\
	long long g_ = (got), w_ = (want);				\
	if (!ok(g_ == w_, __VA_ARGS__))					\
		printf("#   got %lld, want %lld\n", g_, w_);		\
} while (0)

/* Doubles within a relative tolerance (NaN equals NaN). */
#define is_near(got, want, rel, ...) do {				\
	double g_ = (got), w_ = (want);					\
	int e_ = (isnan(g_) && isnan(w_)) ||				\
		 fabs(g_ - w_) <= (rel) * fabs(w_);			\
	if (!ok(e_, __VA_ARGS__))					\
		printf("#   got %.12g, want %.12g\n", g_, w_);		\
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
