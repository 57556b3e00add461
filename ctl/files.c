// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: file access: the module's sysfs attributes under g.root and
 * other files read whole; whether the module is loaded.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wakeplacectl.h"

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

/*
 * Next "key value" line of a buffer split with strtok_r (pass the buffer
 * first, then NULL): the key, its trimmed value in *val; NULL at the end.
 */
char *next_kv(char *buf, char **save, char **val)
{
	char *line, *sp;

	while ((line = strtok_r(buf, "\n", save))) {
		buf = NULL;
		sp = line + strcspn(line, " \t");
		if (!*sp)
			continue;
		*sp++ = '\0';
		*val = trim(sp);
		return line;
	}
	return NULL;
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
