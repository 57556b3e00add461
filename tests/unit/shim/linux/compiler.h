/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_SHIM_COMPILER_H
#define WP_SHIM_COMPILER_H

#include <sys/cdefs.h>		/* glibc's __always_inline */

#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define notrace

/* One untorn access the compiler neither drops nor repeats. */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#endif
