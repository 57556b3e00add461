// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: error reporting.  An error is one line, on stderr or, with
 * -j, as the JSON error document (json_finish() reads error_message()).
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "wakeplacectl.h"

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
