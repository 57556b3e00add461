// SPDX-License-Identifier: GPL-2.0
/*
 * sysfuzz: feed bad (and some good) input to every writable file of
 * /sys/kernel/wakeplace (and the module's writable parameters) and check
 * each answer against docs/sysfs-kernel-wakeplace.
 *
 * Every writable file found must be one the oracle knows:
 *   policy, shadow, stats/reset       a name (one trailing '\n' allowed)
 *   sample_period                     decimal 1..65536
 *   latency_sample                    decimal 0..65536
 *   policies/<p>/<tunable>            decimal in [min, max] of .../tunables
 *   cgroups                           "clear", or "/PATH NAME|unset"
 *                                     (either: the cgroup may exist);
 *                                     anything else fails; cleared after
 *   parameters/slow_us, slow_max, slow_window_ms, attach_wait_ms
 *                                     unsigned int (the kernel's parser)
 *   parameters/test_*                 skipped: the test build's fault knobs
 * Anything else writable is reported as a failure (no oracle for it).
 *
 * Each input is written with one write(2) on a fresh descriptor.  The
 * oracle says: must succeed, must fail (EINVAL; EINVAL or ERANGE for the
 * kernel-parsed parameters), either (sign-prefixed or zero-padded
 * decimals, other bases for the parameters), or no-op (empty write).
 * After each write the file is read back: it must hold the written value
 * after a success and the previous one after a failure, and the whole
 * tree must stay valid (one bracketed policy equal to "policy", "state"
 * "ok" or "reverted: <policy>: <reason>", tunables within range and equal
 * to the tunables file, counters and stats well formed).  A file's
 * original value is written back after its inputs.
 *
 * Then (-j) concurrent writers hit random files at once; each write's
 * success or errno must still match the oracle, read-backs must be valid,
 * and the tree is checked once they are done.
 *
 * usage: sysfuzz [-d SYSFS_DIR] [-m PARAM_DIR] [-n INPUTS_PER_FILE]
 *                [-j WRITERS] [-c INPUTS_PER_WRITER] [-s SEED] [-t SECS] [-v]
 * -t bounds the run: 3/4 of it for the files in turn, the rest for the
 * concurrent writers; each file and writer gets at least one input.
 * Prints one line per file and "total inputs N failures N files N";
 * exit status 0, 1 on any failure, 2 on usage or setup errors.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_NAMES	64
#define MAX_TARGETS	256
#define FUZZ_MAX	8192
#define NAME_MAX_LEN	32
#define MAX_DETAILS	20

enum kind { K_POLICY, K_SHADOW, K_RESET, K_INT, K_UINT, K_CGROUPS, K_SCOPE };
enum expect { E_OK, E_FAIL, E_EITHER, E_NOOP };

struct target {
	char path[PATH_MAX];
	char rel[256];
	enum kind kind;
	long long min, max;
	char pol[NAME_MAX_LEN];		/* tunables: policy and name */
	char tun[NAME_MAX_LEN];
	long inputs, ok, refused, noop, failures;
};

static char sysdir[PATH_MAX] = "/sys/kernel/wakeplace";
static char pardir[PATH_MAX] = "/sys/module/wakeplace/parameters";
static char names[MAX_NAMES][NAME_MAX_LEN];
static int nnames;
static struct target targets[MAX_TARGETS];
static int ntargets;
static bool verbose;
static long *shared_fail;	/* failures seen by concurrent writers */
static long nfail, ndetails;

static void failure(const char *fmt, ...)
{
	va_list ap;

	nfail++;
	if (ndetails++ >= MAX_DETAILS)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "sysfuzz: FAIL: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* C-escaped, truncated copy of an input for messages. */
static const char *esc(const char *s, size_t len)
{
	static char buf[4][200];
	static int k;
	char *b = buf[k++ & 3];
	size_t n = 0, i;

	for (i = 0; i < len && n < 150; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			n += sprintf(b + n, "\\n");
		else if (c == '\\')
			n += sprintf(b + n, "\\\\");
		else if (c >= 0x20 && c < 0x7f)
			b[n++] = (char)c;
		else
			n += sprintf(b + n, "\\x%02x", c);
	}
	if (i < len)
		n += sprintf(b + n, "...(%zu bytes)", len);
	b[n] = '\0';
	return b;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, tot = 0;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + tot, len - 1 - tot)) > 0)
		tot += n;
	close(fd);
	if (n < 0)
		return -EIO;
	buf[tot] = '\0';
	return 0;
}

static int read_rel(const char *dir, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return read_file(path, buf, len);
}

/* One write(2); returns bytes written or -errno. */
static ssize_t write_once(const char *path, const char *s, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	if (n && s[n - 1] == '\n')
		s[n - 1] = '\0';
}

static bool is_name(const char *s)
{
	for (int i = 0; i < nnames; i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

/* Strict decimal (optional sign) of at most 20 digits after zeros. */
static bool parse_dec(const char *s, size_t n, long long *v, bool *canon)
{
	bool neg = false, sign = false;
	size_t i = 0, digits;
	unsigned long long acc = 0;

	if (n && (s[0] == '+' || s[0] == '-')) {
		neg = s[0] == '-';
		sign = true;
		i = 1;
	}
	if (i == n)
		return false;
	for (size_t j = i; j < n; j++)
		if (s[j] < '0' || s[j] > '9')
			return false;
	*canon = !sign && (n - i == 1 || s[i] != '0') && n <= 12;
	while (i < n - 1 && s[i] == '0')
		i++;
	digits = n - i;
	if (digits > 18) {
		*v = neg ? LLONG_MIN : LLONG_MAX;
		return true;
	}
	for (; i < n; i++)
		acc = acc * 10 + (unsigned long long)(s[i] - '0');
	*v = neg ? -(long long)acc : (long long)acc;
	return true;
}

/*
 * The oracle.  @val receives the expected read-back for E_OK/E_EITHER
 * (a name, or a decimal), empty when unknown.
 */
/*
 * cgroups: the module trims whitespace around the command, which is
 * "clear" or "PATH NAME" split at the last space, PATH from "/", NAME a
 * policy or "unset"; one newline at most, at the end.  Whether such a
 * PATH is a cgroup depends on the box: either.
 */
/* The kernel's isspace() also takes Latin-1's no-break space. */
static bool kspace(char c)
{
	return isspace((unsigned char)c) || (unsigned char)c == 0xa0;
}

/*
 * The input as the module parses it: a NUL-free copy with the blanks at
 * both ends cut (strim).  Static: valid until the next call.
 */
static char *trimmed(const char *in, size_t len)
{
	static char buf[FUZZ_MAX + 16];
	char *b, *e;

	memcpy(buf, in, len);
	buf[len] = '\0';
	for (b = buf; kspace(*b); b++)
		;
	for (e = b + strlen(b); e > b && kspace(e[-1]); e--)
		;
	*e = '\0';
	return b;
}

static enum expect oracle_cgroups(const char *in, size_t len)
{
	const char *nl = memchr(in, '\n', len);
	char *b, *sp, *path;

	if (len > 4096 || (nl && nl != in + len - 1))
		return E_FAIL;
	if (memchr(in, '\0', len))
		return E_EITHER;	/* the module reads up to the NUL */
	b = trimmed(in, len);
	if (!strcmp(b, "clear"))
		return E_OK;
	sp = strrchr(b, ' ');
	if (!sp)
		return E_FAIL;
	*sp = '\0';
	for (path = b; kspace(*path); path++)
		;
	if (*path != '/' || (!is_name(sp + 1) && strcmp(sp + 1, "unset")))
		return E_FAIL;
	return E_EITHER;
}

/*
 * shadow_cgroup: "none", or a path from the cgroup2 root (whether it
 * exists is the file system's business: either answer).  A regular sysfs
 * file: more than a page is refused before the module sees it.
 */
static enum expect oracle_scope(const char *in, size_t len, char *val,
				size_t vlen)
{
	char *b;

	if (len > 4096)
		return E_FAIL;
	if (memchr(in, '\0', len))
		return E_EITHER;	/* the module reads up to the NUL */
	b = trimmed(in, len);
	if (!strcmp(b, "none")) {
		snprintf(val, vlen, "none");
		return E_OK;
	}
	return *b == '/' ? E_EITHER : E_FAIL;
}

static enum expect oracle(const struct target *t, const char *in, size_t len,
			  char *val, size_t vlen)
{
	size_t n = len;
	long long v;
	bool canon;

	val[0] = '\0';
	if (!len)
		return E_NOOP;
	if (in[n - 1] == '\n')
		n--;
	switch (t->kind) {
	case K_POLICY:
	case K_SHADOW:
	case K_RESET: {
		char tok[NAME_MAX_LEN];

		if (!n || n >= NAME_MAX_LEN || memchr(in, '\0', n))
			return E_FAIL;
		memcpy(tok, in, n);
		tok[n] = '\0';
		if (is_name(tok) ||
		    (t->kind == K_SHADOW && !strcmp(tok, "off")) ||
		    (t->kind == K_RESET && (!strcmp(tok, "all") ||
					    !strcmp(tok, "1")))) {
			snprintf(val, vlen, "%s", tok);
			return E_OK;
		}
		return E_FAIL;
	}
	case K_INT:
		if (len >= 64 || memchr(in, '\0', len))
			return E_FAIL;
		if (!parse_dec(in, n, &v, &canon) || v < t->min || v > t->max)
			return E_FAIL;
		snprintf(val, vlen, "%lld", v);
		return canon ? E_OK : E_EITHER;
	case K_UINT:
		/*
		 * The kernel's own parser (kstrtouint, base 0) sees the
		 * input up to its first NUL: only plain decimals have a
		 * fixed answer, other spellings may go either way.
		 */
		if (!isdigit((unsigned char)in[0]) && in[0] != '+')
			return E_FAIL;
		if (memchr(in, '\0', len))
			return E_EITHER;
		if (parse_dec(in, n, &v, &canon) && canon) {
			if (v > UINT_MAX)
				return E_FAIL;
			snprintf(val, vlen, "%lld", v);
			return E_OK;
		}
		return E_EITHER;
	case K_CGROUPS:
		return oracle_cgroups(in, len);
	case K_SCOPE:
		return oracle_scope(in, len, val, vlen);
	}
	return E_FAIL;
}

static bool errno_ok(const struct target *t, int err)
{
	if (t->kind == K_CGROUPS)
		return err == EINVAL || err == ENOENT || err == ENOTDIR ||
		       err == ENAMETOOLONG || err == ENOSPC;
	if (t->kind == K_SCOPE)
		return err == EINVAL || err == ENOENT || err == ENOTDIR ||
		       err == ENAMETOOLONG || err == E2BIG;
	return err == EINVAL || (t->kind == K_UINT && err == ERANGE);
}

/* ------------------------------------------------------------ checks --- */

/* @v is the decimal spelling of a number in [min, max]. */
static bool valid_number(const struct target *t, const char *v)
{
	char again[32];
	long long x;
	bool canon;

	if (!parse_dec(v, strlen(v), &x, &canon))
		return false;
	snprintf(again, sizeof(again), "%lld", x);
	return !strcmp(again, v) && x >= t->min && x <= t->max;
}

static bool valid_value(const struct target *t, const char *v)
{
	switch (t->kind) {
	case K_POLICY:
		return is_name(v);
	case K_SHADOW:
		return is_name(v) || !strcmp(v, "off");
	case K_INT:
	case K_UINT:
		return valid_number(t, v);
	case K_RESET:
	case K_CGROUPS:
		return true;
	case K_SCOPE:
		return !strcmp(v, "none") || v[0] == '/' ||
		       !strncmp(v, "removed /", 9);
	}
	return false;
}

/* Files read back as one value (cgroups is checked by check_tree()). */
static bool readable(const struct target *t)
{
	return t->kind != K_RESET && t->kind != K_CGROUPS;
}

static int read_value(const struct target *t, char *buf, size_t len)
{
	int ret = read_file(t->path, buf, len);

	if (!ret)
		chomp(buf);
	return ret;
}

/* cgroups, if there: "ID POLICY STATE PATH" lines; returns problems. */
static int check_cgroups(const char *when)
{
	static char buf[65536];
	char *line, *save, pol[NAME_MAX_LEN * 2], state[16];
	unsigned long long id;
	int off, bad = 0;
	struct stat st;
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/cgroups", sysdir);
	if (stat(path, &st))
		return 0;	/* an older module */
	if (read_rel(sysdir, "cgroups", buf, sizeof(buf))) {
		failure("%s: cgroups unreadable", when);
		return 1;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		off = 0;
		if (sscanf(line, "%llu %63s %15s %n", &id, pol, state,
			   &off) != 3 || !off || line[off] != '/' ||
		    !is_name(pol) || (strcmp(state, "assigned") &&
				      strcmp(state, "reverted") &&
				      strcmp(state, "removed"))) {
			failure("%s: cgroups line '%s'", when,
				esc(line, strlen(line)));
			bad++;
		}
	}
	return bad;
}

/* The whole tree is consistent; returns the number of problems. */
static int check_tree(const char *when)
{
	char buf[65536], pol[NAME_MAX_LEN * 2], *p, *line, *save;
	int bad = 0, brackets = 0, i, n;

	if (read_rel(sysdir, "policy", pol, sizeof(pol))) {
		failure("%s: policy unreadable", when);
		return 1;
	}
	chomp(pol);
	if (!is_name(pol)) {
		failure("%s: policy reads '%s'", when, esc(pol, strlen(pol)));
		bad++;
	}
	if (read_rel(sysdir, "available_policies", buf, sizeof(buf))) {
		failure("%s: available_policies unreadable", when);
		return bad + 1;
	}
	chomp(buf);
	n = 0;
	for (p = strtok_r(buf, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		size_t l = strlen(p);

		if (p[0] == '[' && l > 2 && p[l - 1] == ']') {
			brackets++;
			p[l - 1] = '\0';
			p++;
			if (strcmp(p, pol)) {
				failure("%s: [%s] bracketed but policy is %s",
					when, p, pol);
				bad++;
			}
		}
		if (n >= nnames || strcmp(p, names[n])) {
			failure("%s: available_policies changed at '%s'",
				when, p);
			bad++;
		}
		n++;
	}
	if (brackets != 1 || n != nnames) {
		failure("%s: available_policies has %d brackets, %d names",
			when, brackets, n);
		bad++;
	}
	if (read_rel(sysdir, "state", buf, sizeof(buf))) {
		failure("%s: state unreadable", when);
		bad++;
	} else {
		chomp(buf);
		if (strcmp(buf, "ok")) {
			char pname[NAME_MAX_LEN * 2] = "";
			int off = 0;

			if (sscanf(buf, "reverted: %63[^:]: %n", pname,
				   &off) != 1 || !off || !buf[off] ||
			    !is_name(pname)) {
				failure("%s: state reads '%s'", when,
					esc(buf, strlen(buf)));
				bad++;
			}
		}
	}
	if (read_rel(sysdir, "counters", buf, sizeof(buf))) {
		failure("%s: counters unreadable", when);
		bad++;
	} else {
		n = 0;
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char key[64];
			unsigned long long v;
			char extra;

			if (sscanf(line, "%63s %llu %c", key, &v, &extra) != 2) {
				failure("%s: counters line '%s'", when,
					esc(line, strlen(line)));
				bad++;
			}
			n++;
		}
		if (n < 10) {
			failure("%s: counters has %d lines", when, n);
			bad++;
		}
	}
	bad += check_cgroups(when);
	for (i = 0; i < nnames; i++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "stats/%s", names[i]);
		if (read_rel(sysdir, rel, buf, sizeof(buf)) ||
		    !strstr(buf, "picks ") || !strstr(buf, "cost_hist ")) {
			failure("%s: %s unreadable or malformed", when, rel);
			bad++;
		}
	}
	for (i = 0; i < ntargets; i++) {
		struct target *t = &targets[i];
		char v[256], rel[128], want[300];

		if (!readable(t))
			continue;
		if (read_value(t, v, sizeof(v)) || !valid_value(t, v)) {
			failure("%s: %s reads '%s'", when, t->rel,
				esc(v, strlen(v)));
			bad++;
			continue;
		}
		if (!t->tun[0])
			continue;
		snprintf(rel, sizeof(rel), "policies/%s/tunables", t->pol);
		snprintf(want, sizeof(want), "\n%s %s %lld %lld\n", t->tun, v,
			 t->min, t->max);
		buf[0] = '\n';
		if (read_rel(sysdir, rel, buf + 1, sizeof(buf) - 1) ||
		    !strstr(buf, want)) {
			failure("%s: %s does not list '%s %s %lld %lld'",
				when, rel, t->tun, v, t->min, t->max);
			bad++;
		}
	}
	return bad;
}

/* ------------------------------------------------------------ inputs --- */

static unsigned int rnd;

static unsigned int rn(unsigned int n)
{
	return n ? (unsigned int)rand_r(&rnd) % n : 0;
}

static void a_valid(const struct target *t, char *b, size_t *len)
{
	long long v;

	switch (t->kind) {
	case K_POLICY:
		*len = (size_t)sprintf(b, "%s", names[rn(nnames)]);
		break;
	case K_SHADOW:
		*len = (size_t)sprintf(b, "%s",
				       rn(4) ? names[rn(nnames)] : "off");
		break;
	case K_RESET:
		*len = (size_t)sprintf(b, "%s", rn(3) ? names[rn(nnames)] :
				       rn(2) ? "all" : "1");
		break;
	case K_CGROUPS:
		*len = (size_t)sprintf(b, "%s", rn(4) == 0 ? "clear" :
				       rn(3) == 0 ? "/ unset" : "/ stock");
		break;
	case K_SCOPE:
		*len = (size_t)sprintf(b, "%s", rn(2) ? "none" : "/");
		break;
	case K_INT:
	case K_UINT: {
		long long span = t->max - t->min;

		if (rn(4) == 0)
			v = rn(2) ? t->min : t->max;
		else
			v = t->min + (long long)(((unsigned long long)rand_r(&rnd)
				<< 31 | (unsigned long long)rand_r(&rnd)) %
				((unsigned long long)span + 1));
		if (t->kind == K_UINT && v > 100000000)
			v %= 100000000;
		*len = (size_t)sprintf(b, "%lld", v);
		break;
	}
	}
}

static const char *const specials[] = {
	"\n", " ", "\t", "\r\n", "\n\n", "0", "-0", "+1", "+0", "0x10", "010",
	"1e3", "1.5", "  1", "1 ", "1\n\n", "-", "+", "--1", "+-1", "\xff",
	"\xc3\xa9", "off", "all", "ALL", "on", "true", "null", "%s%s%n",
	"stock\r", "mirror\t", "[stock]", "stock mirror", "4294967295",
	"4294967296", "2147483647", "2147483648", "-2147483648",
	"-2147483649", "9223372036854775807", "9223372036854775808",
	"18446744073709551615", "18446744073709551616", "99999999999999999999",
	"-9223372036854775809",
};

/* Fill @b with one input of a random category; returns its length. */
static size_t gen_input(const struct target *t, char *b)
{
	size_t len = 0, i, k;
	unsigned int cat = rn(14);

	switch (cat) {
	case 0:		/* random bytes */
		len = 1 + rn(64);
		for (i = 0; i < len; i++)
			b[i] = (char)rn(256);
		break;
	case 1:		/* random printable */
		len = 1 + rn(40);
		for (i = 0; i < len; i++)
			b[i] = (char)(0x20 + rn(95));
		break;
	case 2:		/* overlong: a valid value padded */
		a_valid(t, b, &len);
		k = 33 + rn(rn(2) ? 64 : FUZZ_MAX - 40);
		for (i = len; i < k; i++)
			b[i] = rn(2) ? '0' + rn(10) : 'a' + rn(26);
		if (rn(2))
			for (i = 0; i < len; i++)
				b[k - len + i] = b[i];
		len = k;
		break;
	case 3:		/* negative */
		len = (size_t)sprintf(b, "-%u", rn(4) ? rn(100) :
				      (unsigned int)rand_r(&rnd));
		break;
	case 4:		/* huge */
		k = 10 + rn(40);
		b[0] = '1' + rn(9);
		for (i = 1; i < k; i++)
			b[i] = '0' + rn(10);
		len = k;
		break;
	case 5:		/* embedded NUL */
		a_valid(t, b, &len);
		k = rn(len + 1);
		memmove(b + k + 1, b + k, len - k);
		b[k] = '\0';
		len++;
		if (rn(2))
			b[len++] = '\n';
		break;
	case 6:		/* valid */
	case 7:
		a_valid(t, b, &len);
		if (rn(2))
			b[len++] = '\n';
		break;
	case 8:		/* valid with whitespace around */
		a_valid(t, b + 1, &len);
		b[0] = rn(2) ? ' ' : '\t';
		len++;
		if (rn(2)) {
			memmove(b, b + 1, len - 1);
			len--;
			b[len++] = rn(2) ? ' ' : '\t';
		}
		break;
	case 9:		/* valid with junk attached */
		a_valid(t, b + 1, &len);
		if (rn(2)) {
			b[0] = (char)(0x21 + rn(94));
			len++;
		} else {
			memmove(b, b + 1, len);
			b[len++] = (char)(0x21 + rn(94));
		}
		break;
	case 10:	/* near misses */
		a_valid(t, b, &len);
		if (t->kind == K_INT || t->kind == K_UINT) {
			len = (size_t)sprintf(b, "%lld",
					      rn(2) ? t->min - 1 : t->max + 1);
		} else if (len > 1 && rn(2)) {
			len--;
		} else {
			for (i = 0; i < len; i++)
				b[i] = (char)toupper((unsigned char)b[i]);
		}
		break;
	case 11:	/* specials */
		k = rn(sizeof(specials) / sizeof(specials[0]));
		len = strlen(specials[k]);
		memcpy(b, specials[k], len);
		break;
	case 12:	/* other number spellings */
		a_valid(t, b + 2, &len);
		switch (rn(4)) {
		case 0:
			b[1] = '+';
			memmove(b, b + 1, ++len);
			break;
		case 1:
			b[0] = '0';
			b[1] = '0';
			len += 2;
			break;
		case 2:
			b[0] = '0';
			b[1] = 'x';
			len += 2;
			break;
		default:
			memmove(b, b + 2, len);
			b[len++] = '.';
			b[len++] = '0';
		}
		break;
	default:	/* empty, or long random bytes */
		if (rn(8) == 0)
			return 0;
		len = 65 + rn(5000);
		for (i = 0; i < len; i++)
			b[i] = (char)rn(256);
	}
	return len;
}

/* ---------------------------------------------------------- discovery --- */

static int add_target(const char *dir, const char *rel, enum kind kind,
		      long long min, long long max)
{
	struct target *t;

	if (ntargets >= MAX_TARGETS)
		return -1;
	t = &targets[ntargets++];
	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s/%s", dir, rel);
	snprintf(t->rel, sizeof(t->rel), "%s", rel);
	t->kind = kind;
	t->min = min;
	t->max = max;
	return 0;
}

static int classify(const char *rel)
{
	char pol[NAME_MAX_LEN], tun[NAME_MAX_LEN], rel2[300];
	char buf[4096], *line, *save;

	if (!strcmp(rel, "policy"))
		return add_target(sysdir, rel, K_POLICY, 0, 0);
	if (!strcmp(rel, "shadow"))
		return add_target(sysdir, rel, K_SHADOW, 0, 0);
	if (!strcmp(rel, "stats/reset"))
		return add_target(sysdir, rel, K_RESET, 0, 0);
	if (!strcmp(rel, "sample_period"))
		return add_target(sysdir, rel, K_INT, 1, 65536);
	if (!strcmp(rel, "latency_sample"))
		return add_target(sysdir, rel, K_INT, 0, 65536);
	if (!strcmp(rel, "cgroups"))
		return add_target(sysdir, rel, K_CGROUPS, 0, 0);
	if (!strcmp(rel, "shadow_cgroup"))
		return add_target(sysdir, rel, K_SCOPE, 0, 0);
	if (sscanf(rel, "policies/%31[^/]/%31s", pol, tun) == 2 &&
	    !strchr(tun, '/') && is_name(pol)) {
		snprintf(rel2, sizeof(rel2), "policies/%s/tunables", pol);
		if (read_rel(sysdir, rel2, buf, sizeof(buf)))
			return -1;
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char n[128];
			long long v, lo, hi;

			if (sscanf(line, "%127s %lld %lld %lld", n, &v, &lo,
				   &hi) == 4 && !strcmp(n, tun)) {
				if (add_target(sysdir, rel, K_INT, lo, hi))
					return -1;
				snprintf(targets[ntargets - 1].pol,
					 NAME_MAX_LEN, "%s", pol);
				snprintf(targets[ntargets - 1].tun,
					 NAME_MAX_LEN, "%s", tun);
				return 0;
			}
		}
	}
	failure("writable file %s/%s has no oracle", sysdir, rel);
	return 0;
}

static void walk(const char *base, const char *rel)
{
	char path[PATH_MAX * 2], sub[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(path, sizeof(path), "%s%s%s", base, *rel ? "/" : "", rel);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
			 de->d_name);
		snprintf(path, sizeof(path), "%s/%s", base, sub);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			walk(base, sub);
		else if (S_ISREG(st.st_mode) && (st.st_mode & 0222))
			classify(sub);
	}
	closedir(d);
}

static void discover(void)
{
	char buf[4096], *p, *save;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (read_rel(sysdir, "available_policies", buf, sizeof(buf))) {
		fprintf(stderr, "sysfuzz: cannot read %s/available_policies\n",
			sysdir);
		exit(2);
	}
	chomp(buf);
	for (p = strtok_r(buf, " ", &save); p && nnames < MAX_NAMES;
	     p = strtok_r(NULL, " ", &save)) {
		if (*p == '[') {
			p++;
			p[strlen(p) - 1] = '\0';
		}
		snprintf(names[nnames++], NAME_MAX_LEN, "%s", p);
	}
	walk(sysdir, "");
	d = opendir(pardir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[PATH_MAX * 2];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", pardir, de->d_name);
		if (stat(path, &st) || !(st.st_mode & 0222))
			continue;
		if (!strcmp(de->d_name, "slow_us") ||
		    !strcmp(de->d_name, "slow_max") ||
		    !strcmp(de->d_name, "slow_window_ms") ||
		    !strcmp(de->d_name, "attach_wait_ms")) {
			add_target(pardir, de->d_name, K_UINT, 0, UINT_MAX);
			snprintf(targets[ntargets - 1].rel,
				 sizeof(targets[0].rel), "parameters/%.64s",
				 de->d_name);
		} else if (!strncmp(de->d_name, "test_", 5)) {
			printf("file parameters/%s skipped (test-only fault knob)\n",
			       de->d_name);
		} else {
			failure("writable parameter %s has no oracle", path);
		}
	}
	closedir(d);
}

/* ---------------------------------------------------------------- run --- */

/*
 * One input against one file.  @exact: sequential mode, the read-back
 * must equal the written value or the previous one.
 */
static void one(struct target *t, const char *in, size_t len, bool exact)
{
	char want[256], before[256] = "", after[256];
	enum expect e = oracle(t, in, len, want, sizeof(want));
	ssize_t r;

	t->inputs++;
	if (exact && readable(t))
		read_value(t, before, sizeof(before));
	r = write_once(t->path, in, len);
	if (r < 0) {
		t->refused++;
		if (e == E_OK || e == E_NOOP)
			failure("%s: '%s' refused (%s), should succeed",
				t->rel, esc(in, len), strerror((int)-r));
		else if (!errno_ok(t, (int)-r))
			failure("%s: '%s' refused with %s, want EINVAL",
				t->rel, esc(in, len), strerror((int)-r));
	} else if ((size_t)r != len) {
		failure("%s: '%s' partly written (%zd of %zu bytes)", t->rel,
			esc(in, len), r, len);
	} else if (e == E_NOOP) {
		t->noop++;
	} else {
		t->ok++;
		if (e == E_FAIL)
			failure("%s: '%s' accepted, should fail with EINVAL",
				t->rel, esc(in, len));
	}
	if (!readable(t))
		return;
	if (read_value(t, after, sizeof(after))) {
		failure("%s: unreadable after '%s'", t->rel, esc(in, len));
		return;
	}
	if (!valid_value(t, after)) {
		failure("%s: reads '%s' after '%s'", t->rel,
			esc(after, strlen(after)), esc(in, len));
		return;
	}
	if (!exact)
		return;
	if (r == (ssize_t)len && e != E_NOOP && want[0] && strcmp(after, want))
		failure("%s: reads '%s' after '%s' succeeded, want '%s'",
			t->rel, after, esc(in, len), want);
	if ((r < 0 || e == E_NOOP) && strcmp(after, before))
		failure("%s: changed from '%s' to '%s' by '%s', which %s",
			t->rel, before, after, esc(in, len),
			r < 0 ? "failed" : "was empty");
	if (t->kind == K_POLICY && r == (ssize_t)len && e != E_NOOP) {
		char st[256];

		if (read_rel(sysdir, "state", st, sizeof(st)) == 0) {
			chomp(st);
			if (strcmp(st, "ok"))
				failure("state '%s' after a successful policy write",
					st);
		}
	}
}

static time_t t_start;
static int limit;		/* -t: seconds for everything, 0: none */

/* Past the share of the budget that ends at  of it? */
static bool over(double frac)
{
	return limit && time(NULL) - t_start >= (time_t)(frac * limit);
}

static void sequential(int per_file)
{
	static char in[FUZZ_MAX + 16];
	int i, k;

	for (i = 0; i < ntargets; i++) {
		struct target *t = &targets[i];
		char orig[256] = "";
		long f0 = nfail;

		if (readable(t))
			read_value(t, orig, sizeof(orig));
		for (k = 0; k < per_file; k++) {
			size_t len = gen_input(t, in);

			/* The sequential part gets 3/4 of -t, shared evenly. */
			if (k && over(0.75 * (i + 1) / ntargets))
				break;
			one(t, in, len, true);
			if (k % 100 == 99)
				check_tree(t->rel);
		}
		if (orig[0] && write_once(t->path, orig, strlen(orig)) < 0)
			failure("%s: cannot restore '%s'", t->rel, orig);
		if (t->kind == K_CGROUPS && write_once(t->path, "clear", 5) < 0)
			failure("%s: cannot clear", t->rel);
		if (t->kind == K_SCOPE && write_once(t->path, "none", 4) < 0)
			failure("%s: cannot reset to none", t->rel);
		check_tree(t->rel);
		t->failures = nfail - f0;
		printf("file %s inputs %ld ok %ld refused %ld noop %ld failures %ld\n",
		       t->rel, t->inputs, t->ok, t->refused, t->noop,
		       t->failures);
		fflush(stdout);
	}
}

/* Returns the number of inputs written. */
static long concurrent(int writers, int per_writer, unsigned int seed)
{
	static char in[FUZZ_MAX + 16];
	long total = 0, inputs = 0;
	int w, k, st;
	pid_t pid;

	for (w = 0; w < writers; w++) {
		pid = fork();
		if (pid < 0) {
			perror("sysfuzz: fork");
			exit(2);
		}
		if (pid)
			continue;
		rnd = seed * 31 + (unsigned int)w + 1;
		nfail = 0;
		ndetails = MAX_DETAILS - 3;	/* a few details per writer */
		for (k = 0; k < per_writer; k++) {
			struct target *t = &targets[rn(ntargets)];
			size_t len = gen_input(t, in);

			if (k && over(1.0))
				break;
			one(t, in, len, false);
		}
		shared_fail[w] = nfail;
		shared_fail[64 + w] = k;
		_exit(0);
	}
	for (w = 0; w < writers; w++) {
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			failure("a concurrent writer died");
	}
	for (w = 0; w < writers; w++) {
		total += shared_fail[w];
		inputs += shared_fail[64 + w];
	}
	nfail += total;
	for (w = 0; w < ntargets; w++)
		if (targets[w].kind == K_CGROUPS &&
		    write_once(targets[w].path, "clear", 5) < 0)
			failure("%s: cannot clear", targets[w].rel);
	check_tree("after concurrent writers");
	printf("concurrent writers %d inputs %ld failures %ld\n", writers,
	       inputs, total);
	return inputs;
}

int main(int argc, char **argv)
{
	int per_file = 100, writers = 0, per_writer = 200, opt, i;
	unsigned int seed = 1;
	long inputs = 0;

	while ((opt = getopt(argc, argv, "d:m:n:j:c:s:t:v")) != -1) {
		switch (opt) {
		case 'd':
			snprintf(sysdir, sizeof(sysdir), "%s", optarg);
			break;
		case 'm':
			snprintf(pardir, sizeof(pardir), "%s", optarg);
			break;
		case 'n':
			per_file = atoi(optarg);
			break;
		case 'j':
			writers = atoi(optarg);
			break;
		case 'c':
			per_writer = atoi(optarg);
			break;
		case 's':
			seed = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 't':
			limit = atoi(optarg);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr, "usage: sysfuzz [-d SYSFS_DIR] [-m PARAM_DIR] [-n INPUTS_PER_FILE]\n"
				"               [-j WRITERS] [-c INPUTS_PER_WRITER] [-s SEED] [-t SECS] [-v]\n");
			return 2;
		}
	}
	if (per_file < 0 || writers < 0 || per_writer < 0 || writers > 64 ||
	    limit < 0)
		return 2;
	rnd = seed;
	shared_fail = mmap(NULL, 128 * sizeof(long), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared_fail == MAP_FAILED)
		return 2;

	discover();
	if (!ntargets) {
		fprintf(stderr, "sysfuzz: no writable files under %s\n", sysdir);
		return 2;
	}
	if (verbose)
		for (i = 0; i < ntargets; i++)
			fprintf(stderr, "sysfuzz: %s kind %d [%lld, %lld]\n",
				targets[i].rel, targets[i].kind,
				targets[i].min, targets[i].max);
	t_start = time(NULL);
	check_tree("at start");
	sequential(per_file);
	for (i = 0; i < ntargets; i++)
		inputs += targets[i].inputs;
	if (writers)
		inputs += concurrent(writers, per_writer, seed);
	printf("total inputs %ld failures %ld files %d\n", inputs, nfail,
	       ntargets);
	return nfail ? 1 : 0;
}
