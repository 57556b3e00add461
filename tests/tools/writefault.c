// SPDX-License-Identifier: GPL-2.0
/*
 * writefault.so: an LD_PRELOAD stand-in for the kernel's answer to a write,
 * for host tests against a fake sysfs tree, whose plain files take any
 * write and keep only the last one.
 *
 *   WP_FAULT_FILE=PATH   the file watched (its canonical path); without
 *                        it every write goes through untouched
 *   WP_FAULT_LOG=LOG     every write to PATH appended to LOG, in order
 *   WP_FAULT_AT=N:ERRNO  the Nth write to PATH (from 1) fails with ERRNO
 *                        (ENOENT, EINVAL, ENOSPC, ENODEV, EACCES) and
 *                        writes nothing; LOG gets "!ERRNO " and its data
 *
 * Build: cc -shared -fPIC -o writefault.so writefault.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *name;
	int err;
} errs[] = {
	{ "ENOENT", ENOENT },
	{ "EINVAL", EINVAL },
	{ "ENOSPC", ENOSPC },
	{ "ENODEV", ENODEV },
	{ "EACCES", EACCES },
};

static ssize_t (*real_write)(int fd, const void *buf, size_t n);

static void log_write(const char *pfx, const void *buf, size_t n)
{
	const char *log = getenv("WP_FAULT_LOG");
	int fd;

	if (!log)
		return;
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (real_write(fd, pfx, strlen(pfx)) < 0 ||
	    real_write(fd, buf, n) < 0)
		fprintf(stderr, "writefault: cannot write %s\n", log);
	close(fd);
}

/* The errno WP_FAULT_AT gives the write numbered count, or 0. */
static int fault(int count, char *name, size_t len)
{
	const char *at = getenv("WP_FAULT_AT"), *colon;
	size_t i;

	if (!at || atoi(at) != count)
		return 0;
	colon = strchr(at, ':');
	for (i = 0; colon && i < sizeof(errs) / sizeof(errs[0]); i++) {
		if (!strcmp(colon + 1, errs[i].name)) {
			snprintf(name, len, "!%s ", errs[i].name);
			return errs[i].err;
		}
	}
	fprintf(stderr, "writefault: bad WP_FAULT_AT '%s'\n", at);
	return 0;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	const char *file = getenv("WP_FAULT_FILE");
	char self[64], path[PATH_MAX], name[32];
	static int count;
	ssize_t len;
	int err;

	if (!real_write)
		real_write = dlsym(RTLD_NEXT, "write");
	if (!file)
		return real_write(fd, buf, n);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	len = readlink(self, path, sizeof(path) - 1);
	if (len < 0)
		return real_write(fd, buf, n);
	path[len] = '\0';
	if (strcmp(path, file))
		return real_write(fd, buf, n);
	err = fault(++count, name, sizeof(name));
	if (err) {
		log_write(name, buf, n);
		errno = err;
		return -1;
	}
	log_write("", buf, n);
	return real_write(fd, buf, n);
}
