/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_SHIM_BITOPS_H
#define WP_SHIM_BITOPS_H

#include <linux/types.h>

#define BITS_PER_LONG		(8 * (int)sizeof(long))
#define BIT_MASK(nr)		(1UL << ((nr) % BITS_PER_LONG))
#define BIT_WORD(nr)		((nr) / BITS_PER_LONG)
#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)

/* The 1-based index of the highest set bit, 0 for 0. */
static inline unsigned int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline unsigned int hweight_long(unsigned long w)
{
	return __builtin_popcountl(w);
}

/* Atomic, and like the kernel's set_bit()/clear_bit() promising no order. */
static inline void set_bit(long nr, unsigned long *addr)
{
	__atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_RELAXED);
}

static inline void clear_bit(long nr, unsigned long *addr)
{
	__atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr),
			   __ATOMIC_RELAXED);
}

static inline bool test_bit(long nr, const unsigned long *addr)
{
	return __atomic_load_n(&addr[BIT_WORD(nr)], __ATOMIC_RELAXED) &
	       BIT_MASK(nr);
}

#endif
