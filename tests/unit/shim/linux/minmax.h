/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_SHIM_MINMAX_H
#define WP_SHIM_MINMAX_H

#define swap(a, b) \
	do { __typeof__(a) __t = (a); (a) = (b); (b) = __t; } while (0)

#endif
