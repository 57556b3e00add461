/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_SHIM_CTYPE_H
#define WP_SHIM_CTYPE_H

#include <ctype.h>

/*
 * The kernel's isgraph() takes any char: ASCII 0x21-0x7e, and Latin-1
 * 0xa1-0xff, are graphic.  libc's is undefined for a negative char.
 */
static inline int wp_shim_isgraph(char c)
{
	unsigned char u = c;

	return (u > 0x20 && u < 0x7f) || u > 0xa0;
}

#undef isgraph
#define isgraph(c) wp_shim_isgraph(c)

#endif
