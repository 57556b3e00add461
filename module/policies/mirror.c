// SPDX-License-Identifier: GPL-2.0
/*
 * mirror: our reimplementation of the running kernel's whole wakeup path
 * (6.1, 6.12 or 7.2): wake_wide, wake_affine, then select_idle_sibling as that
 * kernel does it.  The control for the hook's overhead and the base the
 * other policies vary; its deliberate differences are listed in fair.c.
 */
#include "../fair.h"

static notrace int mirror_select(struct wp_wakeup *w)
{
	return wp_sis_kernel(w);
}

/*
 * For the docs (scripts/gen-docs):
 * search: our reimplementation of the running kernel's whole path (6.1 or
 *	6.12)
 * idea: the control: should agree with stock (>= 99% of picks in the
 *	tests, nested cgroups and toggled features included)
 */
struct wakeplace_policy wp_policy_mirror = {
	.name = "mirror",
	.description = "the running kernel's whole wakeup path (6.1, 6.12 or 7.2), reimplemented (control)",
	.select_cpu = mirror_select,
};
