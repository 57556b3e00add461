/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Addresses of kernel data symbols that no header exports, found through
 * kallsyms without calling an unexported function.
 */
#ifndef WP_SYMS_H
#define WP_SYMS_H

int wp_sym_data(const char *name, unsigned long *addr, unsigned long *size);

#endif /* WP_SYMS_H */
