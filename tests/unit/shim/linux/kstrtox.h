/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_SHIM_KSTRTOX_H
#define WP_SHIM_KSTRTOX_H

#include <errno.h>
#include <limits.h>

/*
 * kstrtoint() for base 10 as the kernel documents it: an optional sign
 * ('+' or '-'), at least one digit, at most one newline, then the end.
 * -ERANGE when the value does not fit an int, -EINVAL for anything else.
 */
static inline int kstrtoint(const char *s, unsigned int base, int *res)
{
	unsigned long long v = 0;
	int neg = 0, digits = 0;

	if (base != 10)
		return -EINVAL;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		v = v * 10 + (unsigned int)(*s - '0');
		if (v > (unsigned long long)INT_MAX + 1)
			v = (unsigned long long)INT_MAX + 2;	/* saturate */
	}
	if (!digits)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	if (v > (unsigned long long)INT_MAX + neg)
		return -ERANGE;
	*res = neg ? (int)(0 - v) : (int)v;
	return 0;
}

#endif
