// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: the module's last word in the kernel log, and what it means.
 * status, load and unload quote it when the module is absent or refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wakeplacectl.h"

/* Strip "[   1.234] " (dmesg) or "6,123,456,-;" (/dev/kmsg) prefixes. */
static const char *log_text(const char *line)
{
	const char *s = line, *semi;

	if (*s == '<') {			/* dmesg -r: "<6>[...] ..." */
		const char *e = strchr(s, '>');

		if (e)
			s = e + 1;
	}
	if (*s == '[') {
		const char *e = strchr(s, ']');

		if (e)
			s = e + 1;
	}
	semi = strchr(s, ';');
	if (semi && strspn(s, "0123456789,-+cx") == (size_t)(semi - s))
		s = semi + 1;
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static void consider(const char *line, char *buf, size_t len, int *found)
{
	const char *t = log_text(line);
	size_t n;

	if (strncmp(t, "wakeplace:", 10))
		return;
	n = strcspn(t, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, t, n);
	buf[n] = '\0';
	*found = 1;
}

static int scan_stream(FILE *f, char *buf, size_t len, int *found)
{
	char *line = NULL;
	size_t cap = 0;
	int lines = 0;

	while (getline(&line, &cap, f) > 0) {
		consider(line, buf, len, found);
		lines++;
	}
	free(line);
	return lines;
}

/*
 * Find the last kernel log line starting with "wakeplace:": from the file
 * $WAKEPLACE_DMESG when set, else from `dmesg`, else from /dev/kmsg.
 * Returns 1 if found.
 */
int last_dmesg_line(char *buf, size_t len)
{
	const char *env = getenv("WAKEPLACE_DMESG");
	char rec[8192];
	int found = 0, fd;
	ssize_t n;
	FILE *f;

	buf[0] = '\0';
	if (env && *env) {
		f = fopen(env, "re");
		if (!f)
			return 0;
		scan_stream(f, buf, len, &found);
		fclose(f);
		return found;
	}
	f = popen("dmesg 2>/dev/null", "r");
	if (f) {
		int lines = scan_stream(f, buf, len, &found);

		pclose(f);
		if (lines)
			return found;
	}
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* record overwritten, go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		consider(rec, buf, len, &found);
	}
	close(fd);
	return found;
}

/* A human explanation of a "wakeplace:" log line, or NULL. */
const char *explain_log(const char *line)
{
	if (strcasestr(line, "EBUSY") || strcasestr(line, "busy") ||
	    strstr(line, "-16") || strcasestr(line, "IPMODIFY"))
		return "select_task_rq_fair is already patched by livepatch or another ftrace IPMODIFY user";
	if (strcasestr(line, "kallsyms"))
		return "a scheduler variable the module follows (features, cluster key) was not found through kallsyms; needs CONFIG_KALLSYMS_ALL and CONFIG_KPROBES";
	if (strcasestr(line, "layout"))
		return "the running kernel's scheduler layout does not match the module's build; rebuild the module against this kernel's headers";
	if (strcasestr(line, "build id") || strcasestr(line, "built for") ||
	    strcasestr(line, "cannot check the kernel build"))
		return "the module was built for another build of this kernel release, or its build cannot be identified; rebuild it against this kernel (DKMS does)";
	if (strcasestr(line, "lockdown"))
		return "kernel lockdown refused it (Secure Boot)";
	if (strcasestr(line, "symbol"))
		return "a kernel symbol the module needs was not found: unsupported kernel build";
	if (strcasestr(line, "support"))
		return "this kernel is not supported by the module build";
	return NULL;
}
