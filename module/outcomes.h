/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wakeup outcomes (how a pick was found), the one list of them: the
 * module's enum wp_outcome, the stats and latency row names, the
 * tracepoint's outcome= words, wakeplacectl's columns and the tests all
 * come from here.  Plain C, no includes, so userspace can include it.
 *
 * WP_OUTCOMES(X) expands to X(value, ENUM, name, column, tag, description)
 * per outcome, in counter order, separated by commas (no trailing one, as
 * __print_symbolic() needs):
 *   value:	the enum's value, which the tracepoint prints by (stats.c
 *		checks that it matches)
 *   ENUM:	WP_OUT_<ENUM> in the module
 *   name:	the word in stats/, latency/, latency_hist/ and the trace
 *   column:	wakeplacectl's table header (6 characters at most)
 *   tag:	wakeplacectl's top header (3 characters at most)
 *   description: what the outcome means
 */
#ifndef WP_OUTCOMES_H
#define WP_OUTCOMES_H

/* Expands to its arguments: the commas between the entries stay. */
#define WP_OUT_LIST(...)	__VA_ARGS__

#define WP_OUTCOMES(X)							\
	WP_OUT_LIST(							\
	X(0, TARGET, target, "TARGET", "TGT",				\
	  "the target CPU (after wake_affine) was idle"),		\
	X(1, PREV, prev, "PREV", "PRV",					\
	  "the task's previous CPU was idle"),				\
	X(2, RECENT, recent, "RECENT", "RCT",				\
	  "p->recent_used_cpu was idle"),				\
	X(3, SCAN, scan, "SCAN", "SCN",					\
	  "found by scanning runqueues"),				\
	X(4, MASK, mask, "MASK", "MSK",					\
	  "found in the per-LLC idle mask"),				\
	X(5, FALLBACK, fallback, "FALLBK", "FBK",			\
	  "nothing idle found, target used (with idlemask's and "	\
	  "idlecore's spread, another CPU of the LLC when a wakee "	\
	  "is already on its way to the target)"),				\
	X(6, HANDBACK, handback, "HANDBK", "HBK",			\
	  "the policy declined, the kernel decided"),			\
	X(7, LOCAL, local, "LOCAL", "LCL",				\
	  "woken on the waker's CPU by choice (shortwake: short "	\
	  "waker and wakee, no idle core; scxdfl: a sync wakeup, "	\
	  "nothing else queued there)"))

#endif /* WP_OUTCOMES_H */
