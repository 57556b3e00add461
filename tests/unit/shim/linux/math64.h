/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_SHIM_MATH64_H
#define WP_SHIM_MATH64_H

#include <linux/types.h>

/* On a 64-bit kernel these are plain divisions. */
static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}

static inline unsigned long div64_ul(unsigned long a, unsigned long b)
{
	return a / b;
}

#endif
