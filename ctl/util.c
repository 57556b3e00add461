// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: errors, sysfs file access, policy and tunable parsing and a
 * small JSON writer.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wakeplacectl.h"

/* ------------------------------------------------------------------------
 * Errors
 */

static char errmsg[1024];

const char *error_message(void)
{
	return errmsg;
}

static void vreport(const char *fmt, va_list ap)
{
	char *nl;

	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	/* One line only: fold any newline coming from file contents. */
	while ((nl = strchr(errmsg, '\n')))
		*nl = ' ';
	if (!g.json)
		fprintf(stderr, "wakeplacectl: %s\n", errmsg);
}

/* Report an error (stderr, or the JSON error document) and return code. */
int fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return code;
}

int usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return EX_USAGE;
}

void verbose(const char *fmt, ...)
{
	va_list ap;

	if (!g.verbose)
		return;
	va_start(ap, fmt);
	fputs("wakeplacectl: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Map a failed write of root/rel to an exit code and a one-line message. */
int write_err(const char *rel, int err, const char *fix)
{
	if (err == EACCES || err == EPERM || err == EROFS)
		return fail(EX_PERM,
			    "cannot write %s/%s: %s; run as root (e.g. sudo wakeplacectl ...)",
			    g.root, rel, strerror(err));
	if (!module_loaded())
		return need_module();
	if (err == EINVAL)
		return fail(EX_FAIL, "the module rejected the write to %s/%s (%s)%s%s",
			    g.root, rel, strerror(err), fix ? "; " : "",
			    fix ? fix : "");
	return fail(EX_FAIL, "cannot write %s/%s: %s%s%s", g.root, rel,
		    strerror(err), fix ? "; " : "", fix ? fix : "");
}

int read_err(const char *rel, int err)
{
	if (err == EACCES || err == EPERM)
		return fail(EX_PERM, "cannot read %s/%s: %s; run as root",
			    g.root, rel, strerror(err));
	if (!module_loaded())
		return need_module();
	return fail(EX_FAIL, "cannot read %s/%s: %s; is the module version matching this tool?",
		    g.root, rel, strerror(err));
}

/* ------------------------------------------------------------------------
 * Files
 */

double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Read a whole file into buf (NUL terminated). Returns length or -errno. */
int read_path(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		r = read(fd, buf + got, len - 1 - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return r;
		}
		if (r == 0)
			break;
		got += r;
	}
	buf[got] = '\0';
	close(fd);
	return got;
}

/* Read root/rel, trailing newline stripped. Returns length or -errno. */
int read_attr(const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	int r;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", g.root, rel) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	r = read_path(path, buf, len);
	if (r < 0)
		return r;
	while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == ' '))
		buf[--r] = '\0';
	return r;
}

/*
 * Read root/rel to EOF into a malloc'd buffer (NUL terminated, *buf freed by
 * the caller), for files that may be longer than a page.  Returns the length
 * or -errno (then *buf is NULL).
 */
int read_attr_all(const char *rel, char **buf)
{
	char path[PATH_MAX], *b = NULL, *nb;
	size_t got = 0, cap = 0;
	ssize_t r;
	int fd;

	*buf = NULL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", g.root, rel) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (cap - got < 4096) {
			/* no sysfs file is that long */
			if (cap >= (64u << 20)) {
				r = -EFBIG;
				goto err;
			}
			cap = cap ? cap * 2 : 16384;
			nb = realloc(b, cap);
			if (!nb) {
				r = -ENOMEM;
				goto err;
			}
			b = nb;
		}
		r = read(fd, b + got, cap - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			goto err;
		}
		if (r == 0)
			break;
		got += r;
	}
	close(fd);
	b[got] = '\0';
	*buf = b;
	return got;
err:
	close(fd);
	free(b);
	return r;
}

/*
 * Write val plus a newline to root/rel in a single write(), as `echo val >`
 * does: sysfs takes the whole value or fails with an errno.
 */
int write_attr(const char *rel, const char *val)
{
	char path[PATH_MAX], buf[WP_ARG_MAX + 2];
	size_t n = strlen(val);
	ssize_t w;
	int fd, err = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", g.root, rel) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	if (n > WP_ARG_MAX)
		return -E2BIG;
	memcpy(buf, val, n);
	buf[n++] = '\n';
	verbose("write %s: %s", path, val);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		w = write(fd, buf, n);
	} while (w < 0 && errno == EINTR);
	if (w < 0)
		err = -errno;
	else if ((size_t)w != n)
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

bool module_loaded(void)
{
	struct stat st;

	return stat(g.root, &st) == 0 && S_ISDIR(st.st_mode);
}

int need_module(void)
{
	if (module_loaded())
		return 0;
	return fail(EX_NOTLOADED,
		    "wakeplace module not loaded (%s does not exist); load it with `wakeplacectl load`",
		    g.root);
}

/* ------------------------------------------------------------------------
 * Names, policies, tunables
 */

int check_name(const char *name, const char *what)
{
	size_t n = strlen(name);
	const char *s;

	if (!n)
		return usage_err("empty %s name", what);
	if (n > WP_NAME_MAX)
		return usage_err("%s name too long (%zu chars, at most %d)",
				 what, n, WP_NAME_MAX);
	for (s = name; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' &&
		    *s != '.')
			return usage_err("invalid character in %s name '%s' (use letters, digits, '_', '-', '.')",
					 what, name);
	return 0;
}

int load_policies(struct wp_policies *p)
{
	char buf[WP_FILE_MAX], cur[WP_NAME_MAX + 2], *tok, *save;
	int r, rc;

	p->n = 0;
	p->active = -1;
	rc = need_module();
	if (rc)
		return rc;
	r = read_attr("available_policies", buf, sizeof(buf));
	if (r < 0)
		return read_err("available_policies", -r);
	for (tok = strtok_r(buf, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		size_t n = strlen(tok);
		bool act = false;

		if (n >= 2 && tok[0] == '[' && tok[n - 1] == ']') {
			tok[n - 1] = '\0';
			tok++;
			n -= 2;
			act = true;
		}
		if (!n || n > WP_NAME_MAX || p->n == WP_MAX_POLICIES)
			return fail(EX_FAIL, "malformed %s/available_policies",
				    g.root);
		if (act)
			p->active = p->n;
		strcpy(p->name[p->n++], tok);
	}
	/* The policy file is authoritative for the active one. */
	r = read_attr("policy", cur, sizeof(cur));
	if (r > 0) {
		int i = find_policy(p, trim(cur));

		if (i >= 0)
			p->active = i;
	}
	return 0;
}

int find_policy(const struct wp_policies *p, const char *name)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->name[i], name))
			return i;
	return -1;
}

int lookup_policy(const struct wp_policies *p, const char *name, int *idx)
{
	char list[WP_MAX_POLICIES * (WP_NAME_MAX + 1) + 1] = "";
	int i, rc;

	rc = check_name(name, "policy");
	if (rc)
		return rc;
	*idx = find_policy(p, name);
	if (*idx >= 0)
		return 0;
	for (i = 0; i < p->n; i++) {
		if (i)
			strcat(list, " ");
		strcat(list, p->name[i]);
	}
	return usage_err("unknown policy '%s' (available: %s); see `wakeplacectl policy list`",
			 name, list);
}

int parse_ll(const char *s, long long *v)
{
	char *end;

	if (!*s || !(isdigit((unsigned char)*s) ||
		     ((*s == '-' || *s == '+') && isdigit((unsigned char)s[1]))))
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	return 0;
}

int parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

int load_tunables(const char *policy, struct wp_tunable *t, int *n)
{
	char rel[WP_NAME_MAX * 2 + 32], buf[WP_FILE_MAX], *line, *save;
	int r;

	*n = 0;
	snprintf(rel, sizeof(rel), "policies/%s/tunables", policy);
	r = read_attr(rel, buf, sizeof(buf));
	if (r < 0)
		return read_err(rel, -r);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[WP_NAME_MAX + 2], val[32], min[32], max[32], extra;
		struct wp_tunable *tu = &t[*n];

		line = trim(line);
		if (!*line)
			continue;
		if (*n == WP_MAX_TUNABLES ||
		    sscanf(line, "%65s %31s %31s %31s %c", name, val, min, max,
			   &extra) != 4 ||
		    strlen(name) > WP_NAME_MAX ||
		    parse_ll(val, &tu->value) || parse_ll(min, &tu->min) ||
		    parse_ll(max, &tu->max))
			return fail(EX_FAIL, "malformed line in %s/%s: '%s'",
				    g.root, rel, line);
		strcpy(tu->name, name);
		(*n)++;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * JSON writer: the document is built in memory and printed by json_finish(),
 * so stdout always carries exactly one document, the result or the error.
 */

static FILE *jf;
static char *jbuf;
static size_t jlen;
static int depth;
static bool jfirst[64];
static char jclose[64];

static void j_escape(const char *s)
{
	fputc('"', jf);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(jf, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", jf);
		else if (c == '\t')
			fputs("\\t", jf);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(jf, "\\u%04x", c);
		else
			fputc(c, jf);
	}
	fputc('"', jf);
}

static void j_indent(void)
{
	int i;

	if (!g.pretty)
		return;
	fputc('\n', jf);
	for (i = 0; i < depth; i++)
		fputs("  ", jf);
}

static void j_prefix(const char *key)
{
	if (depth > 0) {
		if (!jfirst[depth])
			fputc(',', jf);
		jfirst[depth] = false;
		j_indent();
	}
	if (key) {
		j_escape(key);
		fputs(g.pretty ? ": " : ":", jf);
	}
}

static void j_open(const char *key, char open, char close)
{
	if (!jf)
		return;
	j_prefix(key);
	fputc(open, jf);
	depth++;
	jfirst[depth] = true;
	jclose[depth] = close;
}

void j_obj(const char *key)
{
	j_open(key, '{', '}');
}

void j_arr(const char *key)
{
	j_open(key, '[', ']');
}

void j_end(void)
{
	bool empty;

	if (!jf || !depth)
		return;
	empty = jfirst[depth];
	depth--;
	if (!empty)
		j_indent();
	fputc(jclose[depth + 1], jf);
}

void j_str(const char *key, const char *val)
{
	if (!jf)
		return;
	j_prefix(key);
	if (val)
		j_escape(val);
	else
		fputs("null", jf);
}

void j_u64(const char *key, uint64_t v)
{
	if (!jf)
		return;
	j_prefix(key);
	fprintf(jf, "%llu", (unsigned long long)v);
}

void j_i64(const char *key, long long v)
{
	if (!jf)
		return;
	j_prefix(key);
	fprintf(jf, "%lld", v);
}

/* A number with prec decimals; NaN or infinity become null. */
void j_num(const char *key, double v, int prec)
{
	if (!jf)
		return;
	j_prefix(key);
	if (v != v || v > 1e300 || v < -1e300)
		fputs("null", jf);
	else
		fprintf(jf, "%.*f", prec, v);
}

void j_bool(const char *key, bool v)
{
	if (!jf)
		return;
	j_prefix(key);
	fputs(v ? "true" : "false", jf);
}

void j_null(const char *key)
{
	if (!jf)
		return;
	j_prefix(key);
	fputs("null", jf);
}

void j_timestamp(void)
{
	j_num("timestamp", now_mono(), 6);
}

void json_start(void)
{
	jf = open_memstream(&jbuf, &jlen);
	if (!jf) {
		perror("wakeplacectl: open_memstream");
		exit(EX_FAIL);
	}
	depth = 0;
	j_obj(NULL);
	j_timestamp();
}

void json_finish(int rc)
{
	if (!jf && !(g.json && rc))
		return;
	if (jf) {
		while (depth)
			j_end();
		fclose(jf);
		jf = NULL;
	}
	if (rc == EX_OK && g.helped) {
		;
	} else if (rc == EX_OK || (g.json_keep && jbuf)) {
		fwrite(jbuf, 1, jlen, stdout);
		fputc('\n', stdout);
	} else {
		free(jbuf);
		jf = open_memstream(&jbuf, &jlen);
		if (!jf)
			exit(rc);
		depth = 0;
		j_obj(NULL);
		j_str("error", errmsg[0] ? errmsg : "failed");
		j_end();
		fclose(jf);
		jf = NULL;
		fwrite(jbuf, 1, jlen, stdout);
		fputc('\n', stdout);
	}
	free(jbuf);
	jbuf = NULL;
	fflush(stdout);
}
