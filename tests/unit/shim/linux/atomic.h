/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_SHIM_ATOMIC_H
#define WP_SHIM_ATOMIC_H

#include <stdbool.h>

/*
 * The kernel's try_cmpxchg(): true and *@oldp written to *@ptr if *@ptr
 * was *@oldp, else false and *@oldp updated.  A success is fully ordered
 * (a full barrier on both sides), a failure promises no order.
 */
#define try_cmpxchg(ptr, oldp, new) ({					\
	bool ok_;							\
	__atomic_thread_fence(__ATOMIC_SEQ_CST);			\
	ok_ = __atomic_compare_exchange_n((ptr), (oldp), (new), false,	\
					  __ATOMIC_RELAXED,		\
					  __ATOMIC_RELAXED);		\
	if (ok_)							\
		__atomic_thread_fence(__ATOMIC_SEQ_CST);		\
	ok_;								\
})

#endif
