/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host stand-ins for the kernel headers that module/llbucket.h,
 * fairmath.h and parse.h include: the kernel's types, on x86-64.
 */
#ifndef WP_SHIM_TYPES_H
#define WP_SHIM_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;	/* as in the kernel: not uint64_t */
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;

#endif
