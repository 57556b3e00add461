/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libc's <errno.h> comes here too (through <bits/errno.h>): the codes are
 * the UAPI's, as in the kernel's own linux/errno.h.
 */
#ifndef WP_SHIM_ERRNO_H
#define WP_SHIM_ERRNO_H

#include <asm/errno.h>

#endif
