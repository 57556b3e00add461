/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_SHIM_BITOPS_H
#define WP_SHIM_BITOPS_H

#include <linux/types.h>

/* The 1-based index of the highest set bit, 0 for 0. */
static inline unsigned int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

#endif
