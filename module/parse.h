/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parsers of sysfs writes.  They read nothing but their arguments, so
 * tests/unit compiles this header on the host and feeds them garbage.
 */
#ifndef WP_PARSE_H
#define WP_PARSE_H

#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kstrtox.h>
#include <linux/string.h>
#include <linux/types.h>

/*
 * A name as written by echo: one printable token, optional trailing
 * newline.  Copies it to @out, a buffer of @size bytes.
 */
static inline int wp_parse_token(const char *buf, size_t count, char *out,
				 size_t size)
{
	size_t n = count, i;

	if (n && buf[n - 1] == '\n')
		n--;
	if (!n || n >= size)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isgraph(buf[i]))
			return -EINVAL;
	memcpy(out, buf, n);
	out[n] = '\0';
	return 0;
}

/* Decimal int in [min, max], optional newline, nothing else. */
static inline int wp_parse_int(const char *buf, size_t count, int min,
			       int max, int *out)
{
	char tmp[24];
	int v, ret;

	if (!count || count >= sizeof(tmp) || memchr(buf, '\0', count))
		return -EINVAL;
	memcpy(tmp, buf, count);
	tmp[count] = '\0';
	ret = kstrtoint(tmp, 10, &v);
	if (ret || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * A cgroup path as the cgroups file keeps it: from the root, one "/"
 * between components, none at the end ("/" for the root itself).  @in
 * must start with "/"; "." and ".." components are refused (a path means
 * one cgroup, spelt one way).  @out holds @size bytes.
 */
static inline int wp_parse_cgroup_path(const char *in, char *out,
				       size_t size)
{
	size_t n = 0;

	if (*in != '/')
		return -EINVAL;
	while (*in) {
		const char *c;
		size_t len;

		while (*in == '/')
			in++;
		if (!*in)
			break;
		c = in;
		while (*in && *in != '/')
			in++;
		len = in - c;
		if ((len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return -EINVAL;
		if (n + 1 + len + 1 > size)
			return -ENAMETOOLONG;
		out[n++] = '/';
		memcpy(out + n, c, len);
		n += len;
	}
	if (!n) {
		if (size < 2)
			return -ENAMETOOLONG;
		out[n++] = '/';
	}
	out[n] = '\0';
	return 0;
}

#endif /* WP_PARSE_H */
