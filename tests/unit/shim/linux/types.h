/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host stand-ins for the kernel headers that module/fairmath.h and
 * parse.h include: the UAPI's <linux/types.h>, plus the kernel's short
 * names for its types (on x86-64 the same: u64 is unsigned long long).
 */
#ifndef WP_SHIM_TYPES_H
#define WP_SHIM_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#endif
