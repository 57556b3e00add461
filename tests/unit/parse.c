// SPDX-License-Identifier: GPL-2.0
/*
 * module/parse.h: what the sysfs files accept (docs/sysfs-kernel-wakeplace:
 * a name, or a decimal in range, with an optional newline) and what they
 * refuse.  kstrtoint() is the host stand-in in shim/linux/kstrtox.h.
 */
#include <errno.h>
#include <limits.h>
#include "parse.h"
#include "tap.h"

#define NAME_MAX_ 32	/* WP_NAME_MAX */

static int tok(const char *s, size_t n, char *out)
{
	return wp_parse_token(s, n, out, NAME_MAX_);
}

static void test_token(void)
{
	static const char * const bad[] = {
		"", "\n", " ", "a b", "a\tb", "stock\n\n", " stock", "stock ",
		"\x7f", "a\rb",
	};
	char out[NAME_MAX_], long31[40], long32[40];
	unsigned int i;

	ok(tok("stock\n", 6, out) == 0 && !strcmp(out, "stock"),
	   "\"stock\\n\": stock");
	ok(tok("noscan", 6, out) == 0 && !strcmp(out, "noscan"),
	   "without a newline");
	ok(tok("x!~", 3, out) == 0 && !strcmp(out, "x!~"), "punctuation");
	ok(tok("stockXYZ", 5, out) == 0 && !strcmp(out, "stock"),
	   "only count bytes are read");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_s(tok(bad[i], strlen(bad[i]), out), -EINVAL,
		     "rejects a token of %zu bytes (#%u)", strlen(bad[i]), i);
	is_s(tok("a\0b", 3, out), -EINVAL, "rejects an embedded NUL");
	memset(long31, 'a', 31);
	strcpy(long31 + 31, "\n");
	memset(long32, 'b', 32);
	strcpy(long32 + 32, "\n");
	ok(tok(long31, 32, out) == 0 && strlen(out) == 31,
	   "31 bytes and a newline fit 32");
	ok(tok(long31, 31, out) == 0 && strlen(out) == 31, "31 bytes fit");
	is_s(tok(long32, 32, out), -EINVAL, "32 bytes do not fit 32");
	is_s(tok(long32, 33, out), -EINVAL, "32 bytes and a newline neither");
	strcpy(out, "kept");
	tok("a b", 3, out);
	ok(!strcmp(out, "kept"), "a refused token leaves the output alone");
}

struct icase {
	const char *s;
	int min, max;
	int ret, v;
};

static const struct icase icases[] = {
	{ "1", 1, 65536, 0, 1 },
	{ "65536\n", 1, 65536, 0, 65536 },
	{ "0", 0, 65536, 0, 0 },
	{ "-0", 0, 65536, 0, 0 },
	{ "+5", 1, 65536, 0, 5 },
	{ "010", 0, 100, 0, 10 },			/* decimal, not octal */
	{ "00000000000000000000005", 0, 9, 0, 5 },	/* 23 bytes */
	{ "2147483647", INT_MIN, INT_MAX, 0, INT_MAX },
	{ "-2147483648\n", INT_MIN, INT_MAX, 0, INT_MIN },
	{ "0", 1, 65536, -EINVAL, 0 },
	{ "65537", 1, 65536, -EINVAL, 0 },
	{ "-1", 0, 65536, -EINVAL, 0 },
	{ "2147483648", INT_MIN, INT_MAX, -EINVAL, 0 },
	{ "-2147483649", INT_MIN, INT_MAX, -EINVAL, 0 },
	{ "99999999999999999999", INT_MIN, INT_MAX, -EINVAL, 0 },
	{ "", 0, 9, -EINVAL, 0 },
	{ "\n", 0, 9, -EINVAL, 0 },
	{ "-", 0, 9, -EINVAL, 0 },
	{ "+", 0, 9, -EINVAL, 0 },
	{ "+-5", -9, 9, -EINVAL, 0 },
	{ "-+5", -9, 9, -EINVAL, 0 },
	{ " 5", 0, 9, -EINVAL, 0 },
	{ "5 ", 0, 9, -EINVAL, 0 },
	{ "5\n\n", 0, 9, -EINVAL, 0 },
	{ "5\r\n", 0, 9, -EINVAL, 0 },
	{ "0x5", 0, 9, -EINVAL, 0 },
	{ "5x", 0, 9, -EINVAL, 0 },
	{ "abc", 0, 9, -EINVAL, 0 },
	{ "1e3", 0, 9999, -EINVAL, 0 },
	{ "000000000000000000000005", 0, 9, -EINVAL, 0 },	/* 24 bytes */
};

static void test_int(void)
{
	unsigned int i;
	int v, ret;

	for (i = 0; i < sizeof(icases) / sizeof(icases[0]); i++) {
		const struct icase *c = &icases[i];

		v = 12345;
		ret = wp_parse_int(c->s, strlen(c->s), c->min, c->max, &v);
		if (!ok(ret == c->ret && v == (c->ret ? 12345 : c->v),
			"\"%.*s\" in [%d, %d]: %d", (int)strcspn(c->s, "\n"),
			c->s, c->min, c->max, c->ret))
			printf("#   returned %d, value %d\n", ret, v);
	}
	v = 12345;
	is_s(wp_parse_int("5\0", 2, 0, 9, &v), -EINVAL, "an embedded NUL");
	is_s(wp_parse_int("5", 0, 0, 9, &v), -EINVAL, "zero bytes");
	is_s(wp_parse_int("56", 1, 0, 9, &v), 0, "only count bytes are read");
	is_s(v, 5, "...which are \"5\"");
}

/* @in's normalised path in a buffer of @size, or the error's name. */
static const char *cgpath(const char *in, size_t size)
{
	static char out[300];
	int ret = wp_parse_cgroup_path(in, out, size);

	if (ret == -EINVAL)
		return "EINVAL";
	if (ret == -ENAMETOOLONG)
		return "ENAMETOOLONG";
	return ret ? "?" : out;
}

static void test_cgroup_path(void)
{
	static const char * const same[][2] = {
		{ "/", "/" }, { "//", "/" }, { "/a", "/a" }, { "/a/", "/a" },
		{ "//a//b///", "/a/b" }, { "/a.b/..c/c..", "/a.b/..c/c.." },
		{ "/system.slice/db.service", "/system.slice/db.service" },
		{ "/a b/c", "/a b/c" },
	};
	static const char * const bad[] = {
		"", "a", "a/b", " /a", "/.", "/..", "/a/./b", "/a/../b", "/a/..",
	};
	unsigned int i;

	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		ok(!strcmp(cgpath(same[i][0], 256), same[i][1]),
		   "cgroup path \"%s\" is \"%s\" (got \"%s\")", same[i][0],
		   same[i][1], cgpath(same[i][0], 256));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(!strcmp(cgpath(bad[i], 256), "EINVAL"),
		   "cgroup path \"%s\" refused (got \"%s\")", bad[i],
		   cgpath(bad[i], 256));
	ok(!strcmp(cgpath("/abc", 5), "/abc"), "a path of size - 1 bytes fits");
	ok(!strcmp(cgpath("/abcd", 5), "ENAMETOOLONG"),
	   "a path of size bytes does not");
	ok(!strcmp(cgpath("//abc//", 5), "/abc"),
	   "the size counts the normalised path");
	ok(!strcmp(cgpath("/", 1), "ENAMETOOLONG"), "the root needs 2 bytes");
}

int main(void)
{
	test_token();
	test_int();
	test_cgroup_path();
	return tap_done();
}
