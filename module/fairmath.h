/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of fair.c's wakeup path, apart from the reads that feed
 * it: tests/unit compiles this header on the host and checks the
 * decisions, their edges and their overflow.  The types are the kernel's
 * (s64 loads, unsigned long capacities) so that the wrapping is too.
 */
#ifndef WP_FAIRMATH_H
#define WP_FAIRMATH_H

#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/types.h>

/**
 * wp_wide() - wake_wide()'s rule.
 * @master: the waker's wakee_flips (after this wakeup).
 * @slave: the wakee's wakee_flips.
 * @factor: the LLC's size in CPUs.
 *
 * Return: true (spread) when both switch partners at least @factor times
 * and one of them @factor times more than the other.
 */
static inline bool wp_wide(unsigned int master, unsigned int slave,
			   unsigned int factor)
{
	if (master < slave)
		swap(master, slave);
	return !(slave < factor || master < slave * factor);
}

/* @load * @num / (@den + 1): one level of task_h_load()'s scaling. */
static inline unsigned long wp_load_scale(unsigned long load,
					  unsigned long num, unsigned long den)
{
	return div64_ul((u64)load * num, den + 1);
}

/**
 * wp_wa_weight() - wake_affine_weight()'s comparison.
 * @this_eff: this CPU's load, less the waker's for a sync wakeup.
 * @prev_eff: prev's load.
 * @task_load: the wakee's hierarchical load.
 * @this_cap: this CPU's capacity.
 * @prev_cap: prev's capacity.
 * @bias: WA_BIAS: prev's side counts only half of...
 * @imbalance_pct: ...the affine domain's imbalance margin.
 * @sync: a sync wakeup: a tie goes to this CPU.
 *
 * Return: whether this CPU with the task is less loaded than prev without
 * it, each scaled by the other's capacity.
 */
static inline bool wp_wa_weight(s64 this_eff, s64 prev_eff,
				unsigned long task_load,
				unsigned long this_cap, unsigned long prev_cap,
				bool bias, unsigned int imbalance_pct, bool sync)
{
	this_eff += task_load;
	if (bias)
		this_eff *= 100;
	this_eff *= prev_cap;

	prev_eff -= task_load;
	if (bias)
		prev_eff *= 100 + (imbalance_pct - 100) / 2;
	prev_eff *= this_cap;
	if (sync)
		prev_eff += 1;
	return this_eff < prev_eff;
}

#endif /* WP_FAIRMATH_H */
