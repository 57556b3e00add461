// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: a policy per cgroup (cgroup v2).  policy set NAME --cgroup
 * PATH and policy unset --cgroup PATH write one assignment, policy list
 * shows them, apply FILE makes them those of a file.  The module's side is
 * /sys/kernel/wakeplace/cgroups (read: one "ID POLICY STATE PATH" line per
 * assignment; written: "PATH POLICY", "PATH unset" or "clear", one command
 * per write) and cgroups_max (docs/sysfs-kernel-wakeplace).
 *
 * A cgroup is named as the module names it, by its path from the cgroup2
 * root.  A PATH at or below the cgroup2 mount point is a file system path:
 * the mount point is stripped.
 */
#define _GNU_SOURCE		/* vasprintf */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "wakeplacectl.h"

#define CG_FILE		"cgroups"
#define CG_MAX_FILE	"cgroups_max"
#define CG_WHY		(PATH_MAX + 256)	/* a reason naming a path */

/* ------------------------------------------------------------------------
 * The module's table
 */

struct cg_entry {
	uint64_t id;
	char policy[WP_NAME_MAX + 1];
	char state[16];		/* assigned, removed, reverted */
	const char *path;	/* into cg_table.buf */
};

struct cg_table {
	char *buf;
	struct cg_entry *e;
	int n;
	int max;		/* cgroups_max */
};

static void cg_table_free(struct cg_table *t)
{
	free(t->buf);
	free(t->e);
	memset(t, 0, sizeof(*t));
}

/*
 * An assignment in effect: assigned, or reverted (to stock) by the
 * module's self-protection.  A removed line only says that one went away.
 */
static bool cg_in_effect(const struct cg_entry *e)
{
	return strcmp(e->state, "removed");
}

/* The module is loaded and has per-cgroup policies. */
static int need_cgroups(void)
{
	char path[PATH_MAX];
	struct stat st;
	int rc = need_module();

	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/%s", g.root, CG_FILE);
	if (!stat(path, &st))
		return 0;
	if (errno == ENOENT)
		return fail(EX_FAIL, "this module has no per-cgroup policies (no %s); load a newer one",
			    path);
	return read_err(CG_FILE, errno);
}

/* cgroups_max, or -1 when it cannot be read. */
static int cg_max(void)
{
	char buf[64];
	long long v;

	if (read_attr(CG_MAX_FILE, buf, sizeof(buf)) < 0 ||
	    parse_ll(trim(buf), &v) || v < 1 || v > INT_MAX)
		return -1;
	return v;
}

/* "ID POLICY STATE PATH", PATH last (it may hold spaces). */
static int cg_parse_line(char *line, struct cg_entry *e)
{
	char *f[3], *s = line;
	int i;

	for (i = 0; i < 3; i++) {
		f[i] = s;
		s = strchr(s, ' ');
		if (!s)
			return -1;
		*s++ = '\0';
	}
	if (parse_u64(f[0], &e->id) || !*f[1] || strlen(f[1]) > WP_NAME_MAX ||
	    !*f[2] || strlen(f[2]) >= sizeof(e->state) || *s != '/')
		return -1;
	strcpy(e->policy, f[1]);
	strcpy(e->state, f[2]);
	e->path = s;
	return 0;
}

/*
 * Read the table and cgroups_max.  With optional, a module without the
 * cgroups file returns -ENOENT quietly (policy list on an older module);
 * anything else that fails is reported (an exit code).
 */
static int cg_table_load(struct cg_table *t, bool optional)
{
	struct cg_entry *ne;
	char *line, *next;
	int r, cap = 0, nr = 0;

	memset(t, 0, sizeof(*t));
	r = read_attr_all(CG_FILE, &t->buf);
	if (r == -ENOENT && optional && module_loaded())
		return -ENOENT;
	if (r < 0)
		return r == -ENOENT ? need_cgroups() : read_err(CG_FILE, -r);
	t->max = cg_max();
	if (t->max < 0) {
		cg_table_free(t);
		return fail(EX_FAIL, "cannot read a number from %s/%s; is the module version matching this tool?",
			    g.root, CG_MAX_FILE);
	}
	for (line = t->buf; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		nr++;
		if (!*line)
			continue;
		if (t->n == cap) {
			cap = cap ? 2 * cap : 32;
			ne = realloc(t->e, cap * sizeof(*ne));
			if (!ne) {
				cg_table_free(t);
				return fail(EX_FAIL, "out of memory");
			}
			t->e = ne;
		}
		if (cg_parse_line(line, &t->e[t->n])) {
			cg_table_free(t);
			return fail(EX_FAIL, "malformed line %d of %s/%s (expected ID POLICY STATE PATH)",
				    nr, g.root, CG_FILE);
		}
		t->n++;
	}
	return 0;
}

/* The assignment in effect of cgroup path, or NULL. */
static const struct cg_entry *cg_find(const struct cg_table *t,
				      const char *path)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (cg_in_effect(&t->e[i]) && !strcmp(t->e[i].path, path))
			return &t->e[i];
	return NULL;
}

/* ------------------------------------------------------------------------
 * Paths
 */

/* /proc/self/mounts escapes blanks and backslashes as \ and 3 octal digits. */
static int unescape_mount(const char *s, char *out, size_t len)
{
	size_t o = 0;
	char c;

	for (; *s; s++) {
		c = *s;
		if (c == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			c = (s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0');
			s += 3;
		}
		if (o + 1 >= len)
			return -1;
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

/*
 * s as an absolute path without "//", "." components or a trailing "/"
 * ("/" when nothing is left).  ".." is refused: -1, *why says so.
 */
static int cg_normalise(const char *s, char *out, size_t len, const char **why)
{
	size_t o = 0, n;

	for (;;) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		n = strcspn(s, "/");
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			*why = "'..' is not allowed";
			return -1;
		}
		if (!(n == 1 && s[0] == '.')) {
			if (o + n + 2 > len) {
				*why = "too long";
				return -1;
			}
			out[o++] = '/';
			memcpy(out + o, s, n);
			o += n;
		}
		s += n;
	}
	if (!o)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/*
 * The cgroup2 mount point: the first cgroup2 line of /proc/self/mounts (or
 * of the file $WAKEPLACE_MOUNTS names), normalised.
 */
static int cg_mount(char *mnt, size_t len)
{
	const char *src = getenv("WAKEPLACE_MOUNTS"), *why;
	char *line = NULL, *dir, *type, *save, raw[PATH_MAX];
	size_t cap = 0;
	bool found = false;
	FILE *f;

	if (!src || !*src)
		src = "/proc/self/mounts";
	f = fopen(src, "re");
	if (!f)
		return fail(EX_FAIL, "cannot read %s: %s", src, strerror(errno));
	while (!found && getline(&line, &cap, f) > 0) {
		dir = strtok_r(line, " \t\n", &save) ?
		      strtok_r(NULL, " \t\n", &save) : NULL;
		type = dir ? strtok_r(NULL, " \t\n", &save) : NULL;
		found = type && !strcmp(type, "cgroup2") && dir[0] == '/' &&
			!unescape_mount(dir, raw, sizeof(raw)) &&
			!cg_normalise(raw, mnt, len, &why);
	}
	free(line);
	fclose(f);
	if (!found)
		return fail(EX_FAIL, "per-cgroup policies need cgroup v2, and %s has no cgroup2 mount (a cgroup v1-only system; systemd mounts cgroup v2 with systemd.unified_cgroup_hierarchy=1)",
			    src);
	return 0;
}

/*
 * The cgroup arg names, as the module names it: its path from the cgroup2
 * root ("/" for the root itself).  An absolute arg at or below mnt is a
 * file system path; any other arg, relative or absolute, is from the
 * cgroup2 root.  Refused (-1, *why): an empty path, ".." and control
 * characters (the module's file is line-based).
 */
static int cg_resolve(const char *arg, const char *mnt, char *cg, size_t len,
		      const char **why)
{
	char norm[PATH_MAX];
	size_t m = strlen(mnt);
	const char *s;

	if (!*arg) {
		*why = "empty";
		return -1;
	}
	for (s = arg; *s; s++) {
		if (iscntrl((unsigned char)*s)) {
			*why = "a control character in it";
			return -1;
		}
	}
	if (cg_normalise(arg, norm, sizeof(norm), why))
		return -1;
	s = norm;
	if (arg[0] == '/' && strcmp(mnt, "/") && !strncmp(norm, mnt, m) &&
	    (!norm[m] || norm[m] == '/'))
		s = norm[m] ? norm + m : "/";
	if (strlen(s) >= len) {
		*why = "too long";
		return -1;
	}
	strcpy(cg, s);
	return 0;
}

/*
 * Whether cgroup cg exists: a directory under mnt with cgroup.procs.  Its
 * id (the directory's inode number on cgroup2) in *id; else -1 and the
 * reason, naming the path, in why.
 */
static int cg_exists(const char *mnt, const char *cg, uint64_t *id,
		     char *why, size_t len)
{
	char dir[PATH_MAX], procs[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(dir, sizeof(dir), "%s%s", strcmp(mnt, "/") ? mnt : "",
			     strcmp(cg, "/") ? cg : "") >= sizeof(dir) ||
	    (size_t)snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir) >=
	    sizeof(procs)) {
		snprintf(why, len, "cgroup %s: path too long", cg);
		return -1;
	}
	if (!dir[0])
		strcpy(dir, "/");
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(why, len, "no cgroup %s (no directory %s)", cg, dir);
		return -1;
	}
	*id = st.st_ino;
	if (stat(procs, &st)) {
		snprintf(why, len, "%s is not a cgroup (no cgroup.procs)", dir);
		return -1;
	}
	return 0;
}

/* The cgroup of a --cgroup argument, resolved and checked; usage errors. */
static int cg_arg(const char *arg, char *mnt, char *cg, uint64_t *id)
{
	char why[CG_WHY];
	const char *bad;
	int rc;

	rc = cg_mount(mnt, PATH_MAX);
	if (rc)
		return rc;
	if (cg_resolve(arg, mnt, cg, PATH_MAX, &bad))
		return usage_err("bad cgroup path '%s': %s", arg, bad);
	if (cg_exists(mnt, cg, id, why, sizeof(why)))
		return usage_err("%s", why);
	return 0;
}

/*
 * For the other commands (stats --cgroup, shadow set --cgroup, auto
 * --cgroup): the cgroup of a --cgroup argument as the module names it, in
 * cg (PATH_MAX), its id in *id.  Usage errors as policy set --cgroup.
 */
int cgroup_arg(const char *arg, char *cg, uint64_t *id)
{
	char mnt[PATH_MAX];

	return cg_arg(arg, mnt, cg, id);
}

/*
 * The assignment in effect of cgroup cg: its id, policy and state.  0
 * found, -ENOENT none (nothing printed), else an exit code (reported).
 */
int cgroup_find(const char *cg, uint64_t *id, char *policy, size_t plen,
		char *state, size_t slen)
{
	const struct cg_entry *e;
	struct cg_table t;
	int rc;

	rc = cg_table_load(&t, false);
	if (rc)
		return rc;
	e = cg_find(&t, cg);
	if (e) {
		*id = e->id;
		snprintf(policy, plen, "%s", e->policy);
		snprintf(state, slen, "%s", e->state);
	}
	cg_table_free(&t);
	return e ? 0 : -ENOENT;
}

/*
 * The assignments in effect, in the order of the cgroups file: n entries,
 * malloc'd (one block; free(*out)).  An exit code when it cannot be read.
 */
int cgroup_entries(struct cg_assignment **out, int *n)
{
	struct cg_assignment *a;
	struct cg_table t;
	int i, rc;

	*out = NULL;
	*n = 0;
	rc = cg_table_load(&t, false);
	if (rc)
		return rc;
	a = calloc(t.n ? t.n : 1, sizeof(*a));
	if (!a) {
		cg_table_free(&t);
		return fail(EX_FAIL, "out of memory");
	}
	for (i = 0; i < t.n; i++) {
		if (!cg_in_effect(&t.e[i]))
			continue;
		a[*n].id = t.e[i].id;
		snprintf(a[*n].policy, sizeof(a[*n].policy), "%s",
			 t.e[i].policy);
		snprintf(a[*n].state, sizeof(a[*n].state), "%s",
			 t.e[i].state);
		snprintf(a[*n].path, sizeof(a[*n].path), "%s", t.e[i].path);
		(*n)++;
	}
	cg_table_free(&t);
	*out = a;
	return 0;
}

/* ------------------------------------------------------------------------
 * Writes
 */

/*
 * Write "cg policy" ("cg unset" without policy).  0, or the exit code with
 * what the module's errno means (docs/sysfs-kernel-wakeplace) in why.
 */
static int cg_write(const char *cg, const char *policy, char *why, size_t len)
{
	char cmd[WP_ARG_MAX + 1];
	int err;

	if ((size_t)snprintf(cmd, sizeof(cmd), "%s %s", cg,
			     policy ? policy : "unset") >= sizeof(cmd)) {
		snprintf(why, len, "the path is too long (%d characters with the policy, at most)",
			 WP_ARG_MAX);
		return EX_USAGE;
	}
	err = -write_attr(CG_FILE, cmd);
	switch (err) {
	case 0:
		return 0;
	case EACCES:
	case EPERM:
	case EROFS:
		snprintf(why, len, "%s/%s: %s; run as root (e.g. sudo wakeplacectl ...)",
			 g.root, CG_FILE, strerror(err));
		return EX_PERM;
	case ENOENT:
		snprintf(why, len, policy ? "no such cgroup (removed meanwhile?)" :
			 "it has no policy of its own; see `wakeplacectl policy list`");
		return EX_FAIL;
	case EINVAL:
		snprintf(why, len, "the module refused \"%s\" (%s)", cmd,
			 strerror(err));
		return EX_FAIL;
	case ENOSPC:
		snprintf(why, len, "the table is full (%d assignments, cgroups_max); unset one first",
			 cg_max());
		return EX_FAIL;
	case ENODEV:
		snprintf(why, len, "the module is unloading");
		return EX_NOTLOADED;
	}
	if (!module_loaded()) {
		snprintf(why, len, "wakeplace module not loaded (%s does not exist)",
			 g.root);
		return EX_NOTLOADED;
	}
	snprintf(why, len, "%s/%s: %s", g.root, CG_FILE, strerror(err));
	return EX_FAIL;
}

/*
 * Make name the policy of cgroup cg (as the module names it), printing
 * nothing but the error; once in effect (the hook attached).
 */
int cgroup_assign(const char *cg, const char *name)
{
	char why[CG_WHY];
	int rc;

	rc = cg_write(cg, name, why, sizeof(why));
	if (rc)
		return fail(rc, "cannot assign %s to %s: %s", name, cg, why);
	/* Any policy but stock places through the hook: wait until it does. */
	if (strcmp(name, "stock"))
		return wait_hook();
	return 0;
}

/* policy set NAME --cgroup PATH: name is a policy of the module. */
int cgroup_set(const char *name, const char *arg)
{
	char mnt[PATH_MAX], cg[PATH_MAX];
	uint64_t id;
	int rc;

	rc = need_cgroups();
	if (!rc)
		rc = cg_arg(arg, mnt, cg, &id);
	if (rc)
		return rc;
	rc = cgroup_assign(cg, name);
	if (rc)
		return rc;
	if (g.verbose && !g.json)
		printf("cgroup %s: %s\n", cg, name);
	if (g.json) {
		j_str("cgroup", cg);
		j_u64("id", id);
		j_str("policy", name);
	}
	return 0;
}

int cmd_policy_unset(int argc, char **argv)
{
	char mnt[PATH_MAX], cg[PATH_MAX], why[CG_WHY], *path = NULL, *val;
	uint64_t id;
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		if (!opt_match(&i, argc, argv, "--cgroup", NULL, &val, &rc))
			return usage_err("policy unset takes --cgroup PATH only ('%s')",
					 argv[i]);
		if (rc)
			return rc;
		if (path)
			return usage_err("--cgroup given twice");
		path = val;
	}
	if (!path)
		return usage_err("policy unset needs --cgroup PATH (the machine-wide policy is not unset but set: `wakeplacectl policy set NAME`)");
	rc = need_cgroups();
	if (!rc)
		rc = cg_arg(path, mnt, cg, &id);
	if (rc)
		return rc;
	rc = cg_write(cg, NULL, why, sizeof(why));
	if (rc)
		return fail(rc, "cannot unset %s: %s", cg, why);
	if (g.verbose && !g.json)
		printf("cgroup %s: unset\n", cg);
	if (g.json) {
		j_str("cgroup", cg);
		j_u64("id", id);
		j_null("policy");
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * policy list
 */

/* policy list's assignments: a section below the policies, or JSON keys. */
int cgroup_list(void)
{
	struct cg_table t;
	int i, rc, n = 0, w = 6, pw = 6;

	rc = cg_table_load(&t, true);
	if (rc == -ENOENT) {	/* an older module */
		if (g.json) {
			j_null("cgroups");
			j_null("cgroups_max");
		}
		return 0;
	}
	if (rc)
		return rc;
	if (g.json) {
		j_arr("cgroups");
		for (i = 0; i < t.n; i++) {
			j_obj(NULL);
			j_u64("id", t.e[i].id);
			j_str("path", t.e[i].path);
			j_str("policy", t.e[i].policy);
			j_str("state", t.e[i].state);
			j_end();
		}
		j_end();
		j_i64("cgroups_max", t.max);
		cg_table_free(&t);
		return 0;
	}
	for (i = 0; i < t.n; i++) {
		n += cg_in_effect(&t.e[i]);
		if ((int)strlen(t.e[i].path) > w)
			w = strlen(t.e[i].path);
		if ((int)strlen(t.e[i].policy) > pw)
			pw = strlen(t.e[i].policy);
	}
	if (w > 48)	/* a longer path pushes its own row only */
		w = 48;
	printf("\ncgroups: %d assigned, at most %d\n", n, t.max);
	if (t.n)
		printf("  %-*s  %-*s  %-8s  %s\n", w, "CGROUP", pw, "POLICY",
		       "STATE", "ID");
	for (i = 0; i < t.n; i++)
		printf("  %-*s  %-*s  %-8s  %llu\n", w, t.e[i].path, pw,
		       t.e[i].policy, t.e[i].state,
		       (unsigned long long)t.e[i].id);
	cg_table_free(&t);
	return 0;
}

/* ------------------------------------------------------------------------
 * apply FILE: the module's assignments become the file's
 */

struct ap_ent {			/* one assignment of the file */
	int line;
	char *path;		/* the cgroup, as the module names it */
	char policy[WP_NAME_MAX + 1];
	uint64_t id;
};

struct ap_err {
	int line;
	int seq;		/* found in this order: a line's stay in it */
	char *msg;
};

enum { AP_REMOVE, AP_CHANGE, AP_ADD, AP_KEEP, AP_KINDS };

/* Done, to do, and the JSON key of each kind. */
static const char * const ap_done[AP_KINDS] = {
	"removed", "changed", "added", "unchanged",
};

static const char * const ap_todo[AP_KINDS] = {
	"remove", "change", "add", "keep",
};

struct ap_act {
	int kind;
	int line;		/* 0: not in the file (a removal) */
	const char *path;
	const char *policy;	/* the file's; NULL for a removal */
	const char *previous;	/* the module's; NULL for an addition */
	bool reverted;		/* previous was reverted to stock */
	uint64_t id;
};

struct apply {
	const char *file;
	bool dry;
	double wait;
	char mnt[PATH_MAX];
	struct ap_ent *ent;
	int n;
	struct ap_err *err;
	int nerr;
	struct ap_act *act;
	int nact;
};

static void ap_error(struct apply *a, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void ap_error(struct apply *a, int line, const char *fmt, ...)
{
	struct ap_err *ne;
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	ne = realloc(a->err, (a->nerr + 1) * sizeof(*ne));
	if (!ne || !msg) {
		fprintf(stderr, "wakeplacectl: out of memory\n");
		exit(EX_FAIL);
	}
	a->err = ne;
	a->err[a->nerr].line = line;
	a->err[a->nerr].seq = a->nerr;
	a->err[a->nerr++].msg = msg;
}

static int ap_err_cmp(const void *x, const void *y)
{
	const struct ap_err *a = x, *b = y;

	return a->line != b->line ? a->line - b->line : a->seq - b->seq;
}

/*
 * The first fields of a line, at most max (one more means more than max):
 * blanks separate them, a field that starts with '#' starts a comment.
 */
static int ap_fields(char *s, char **f, int max)
{
	int n = 0;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#' || n > max)
			return n;
		f[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
}

/* Read and check every line; the file's assignments in a->ent. */
static int ap_parse(struct apply *a, const struct wp_policies *p, int max)
{
	char list[WP_MAX_POLICIES * (WP_NAME_MAX + 1) + 1] = "";
	char *line = NULL, *f[3], cg[PATH_MAX];
	int i, nf, nr = 0, n = 0, first_over = 0;
	struct ap_ent *ne;
	const char *why;
	size_t cap = 0;
	ssize_t len;
	FILE *fp;

	fp = fopen(a->file, "re");
	if (!fp)
		return fail(errno == EACCES ? EX_PERM : EX_FAIL,
			    "cannot read %s: %s", a->file, strerror(errno));
	for (i = 0; i < p->n; i++) {
		strcat(list, i ? " " : "");
		strcat(list, p->name[i]);
	}
	while ((len = getline(&line, &cap, fp)) >= 0) {
		nr++;
		if (len > WP_ARG_MAX) {
			ap_error(a, nr, "line too long (%zd characters, at most %d)",
				 len, WP_ARG_MAX);
			continue;
		}
		nf = ap_fields(line, f, 2);
		if (!nf)
			continue;
		if (++n == max + 1)
			first_over = nr;
		if (nf != 2) {
			ap_error(a, nr, nf == 1 ?
				 "expected PATH POLICY, found one field" :
				 "expected PATH POLICY, found more fields (a path in this file cannot contain spaces)");
			continue;
		}
		if (find_policy(p, f[1]) < 0)
			ap_error(a, nr, "unknown policy '%s' (available: %s)",
				 f[1], list);
		if (cg_resolve(f[0], a->mnt, cg, sizeof(cg), &why)) {
			ap_error(a, nr, "bad cgroup path '%s': %s", f[0], why);
			continue;
		}
		for (i = 0; i < a->n && strcmp(a->ent[i].path, cg); i++)
			;
		if (i < a->n) {
			ap_error(a, nr, "%s given twice (first on line %d)", cg,
				 a->ent[i].line);
			continue;
		}
		ne = realloc(a->ent, (a->n + 1) * sizeof(*ne));
		if (ne) {
			a->ent = ne;
			ne[a->n].path = strdup(cg);
		}
		if (!ne || !ne[a->n].path) {
			fclose(fp);
			free(line);
			return fail(EX_FAIL, "out of memory");
		}
		ne[a->n].line = nr;
		ne[a->n].id = 0;
		snprintf(ne[a->n].policy, sizeof(ne[a->n].policy), "%s", f[1]);
		a->n++;
	}
	free(line);
	if (ferror(fp)) {
		fclose(fp);
		return fail(EX_FAIL, "cannot read %s: %s", a->file,
			    strerror(errno));
	}
	fclose(fp);
	if (first_over)
		ap_error(a, first_over, "%d assignments in the file, more than cgroups_max (%d): this is the first too many",
			 n, max);
	return 0;
}

/* How many of the file's cgroups do not exist; each an error if report. */
static int ap_missing(struct apply *a, bool report)
{
	char why[CG_WHY];
	int i, n = 0;

	for (i = 0; i < a->n; i++) {
		if (!cg_exists(a->mnt, a->ent[i].path, &a->ent[i].id, why,
			       sizeof(why)))
			continue;
		n++;
		if (report)
			ap_error(a, a->ent[i].line, "%s", why);
	}
	return n;
}

/*
 * With --wait, missing cgroups get that long to appear (the units that
 * make them may start after us at boot), polled every 100 ms.
 */
static int ap_wait(struct apply *a)
{
	struct timespec ts = { .tv_nsec = 100 * 1000 * 1000 };
	double end = now_mono() + a->wait;

	if (!a->nerr && a->wait > 0) {
		while (ap_missing(a, false) && now_mono() < end) {
			nanosleep(&ts, NULL);
			if (!module_loaded())
				return need_module();
		}
	}
	ap_missing(a, true);
	return 0;
}

/* Every error as FILE:LINE: reason, in line order; nothing was written. */
static int ap_report(struct apply *a)
{
	char msg[PATH_MAX + 64];
	int i;

	qsort(a->err, a->nerr, sizeof(*a->err), ap_err_cmp);
	snprintf(msg, sizeof(msg), "%s: %d error%s; nothing applied",
		 a->file, a->nerr, a->nerr == 1 ? "" : "s");
	if (g.json) {
		g.json_keep = true;
		j_str("file", a->file);
		j_arr("errors");
		for (i = 0; i < a->nerr; i++) {
			j_obj(NULL);
			j_i64("line", a->err[i].line);
			j_str("reason", a->err[i].msg);
			j_end();
		}
		j_end();
		j_str("error", msg);
	} else {
		for (i = 0; i < a->nerr; i++)
			fprintf(stderr, "%s:%d: %s\n", a->file, a->err[i].line,
				a->err[i].msg);
	}
	return fail(EX_USAGE, "%s", msg);
}

static void ap_add(struct apply *a, int kind, int line, const char *path,
		   const char *policy, const struct cg_entry *e, uint64_t id)
{
	a->act[a->nact++] = (struct ap_act){
		.kind = kind, .line = line, .path = path, .policy = policy,
		.previous = e ? e->policy : NULL,
		.reverted = e && !strcmp(e->state, "reverted"), .id = id,
	};
}

/* What makes the module's table the file's: removals, changes, additions. */
static int ap_plan(struct apply *a, const struct cg_table *t)
{
	const struct cg_entry *e;
	int i, j, k;

	a->act = calloc(a->n + t->n + 1, sizeof(*a->act));
	if (!a->act)
		return fail(EX_FAIL, "out of memory");
	for (i = 0; i < t->n; i++) {
		if (!cg_in_effect(&t->e[i]))
			continue;
		for (j = 0; j < a->n && strcmp(a->ent[j].path, t->e[i].path); j++)
			;
		if (j == a->n)
			ap_add(a, AP_REMOVE, 0, t->e[i].path, NULL, &t->e[i],
			       t->e[i].id);
	}
	/* A reverted assignment is written again: that clears the revert. */
	for (k = AP_CHANGE; k <= AP_KEEP; k++) {
		for (j = 0; j < a->n; j++) {
			struct ap_ent *f = &a->ent[j];

			e = cg_find(t, f->path);
			if ((k == AP_ADD && !e) ||
			    (k == AP_CHANGE && e &&
			     (strcmp(e->policy, f->policy) ||
			      strcmp(e->state, "assigned"))) ||
			    (k == AP_KEEP && e && !strcmp(e->policy, f->policy) &&
			     !strcmp(e->state, "assigned")))
				ap_add(a, k, f->line, f->path, f->policy, e,
				       f->id);
		}
	}
	return 0;
}

static void ap_print(const struct apply *a, const struct ap_act *x)
{
	const char *verb = a->dry ? ap_todo[x->kind] : ap_done[x->kind];

	if (g.json || (x->kind == AP_KEEP && !g.verbose))
		return;
	if (x->kind == AP_REMOVE)
		printf("%-9s %s (was %s%s)\n", verb, x->path, x->previous,
		       x->reverted ? ", reverted" : "");
	else if (x->kind == AP_CHANGE)
		printf("%-9s %s %s%s -> %s\n", verb, x->path, x->previous,
		       x->reverted ? " (reverted)" : "", x->policy);
	else
		printf("%-9s %s %s\n", verb, x->path, x->policy);
}

static void ap_json_act(const struct ap_act *x)
{
	j_obj(NULL);
	j_str("path", x->path);
	j_u64("id", x->id);
	j_str("policy", x->policy);
	j_str("previous", x->previous);
	j_bool("reverted", x->reverted);
	if (x->line)
		j_i64("line", x->line);
	else
		j_null("line");
	j_end();
}

/* The JSON lists: the actions done (all of them with -n), by kind. */
static void ap_json(const struct apply *a, int done)
{
	int i, k;

	j_str("file", a->file);
	j_bool("dry_run", a->dry);
	for (k = 0; k < AP_KINDS; k++) {
		j_arr(ap_done[k]);
		for (i = 0; i < a->nact; i++)
			if (a->act[i].kind == k &&
			    (i < done || k == AP_KEEP))
				ap_json_act(&a->act[i]);
		j_end();
	}
}

/*
 * Write number i of the plan failed with exit code rc, after nw writes:
 * say where, why, and what is in effect now.
 */
static int ap_failed(struct apply *a, int i, int nw, const char *why, int rc)
{
	const struct ap_act *x = &a->act[i];
	char where[PATH_MAX + 32];
	int j, left = 0;

	for (j = i; j < a->nact; j++)
		left += a->act[j].kind != AP_KEEP;
	if (x->line)
		snprintf(where, sizeof(where), "%s:%d", a->file, x->line);
	else
		snprintf(where, sizeof(where), "%s", a->file);
	if (g.json) {
		g.json_keep = true;
		ap_json(a, i);
		j_obj("failed");
		j_str("action", ap_todo[x->kind]);
		j_str("path", x->path);
		j_str("policy", x->policy);
		j_str("reason", why);
		j_end();
		j_arr("not_applied");
		for (j = i; j < a->nact; j++)
			if (a->act[j].kind != AP_KEEP)
				ap_json_act(&a->act[j]);
		j_end();
	}
	if (x->kind == AP_REMOVE)
		rc = fail(rc, "%s: cannot unset %s (not in the file): %s; %d write%s done before it, %d not done; the module has no transaction: what was done stays in effect; fix the cause and run apply again",
			  where, x->path, why, nw, nw == 1 ? "" : "s", left);
	else
		rc = fail(rc, "%s: cannot assign %s to %s: %s; %d write%s done before it, %d not done; the module has no transaction: what was done stays in effect; fix the cause and run apply again",
			  where, x->policy, x->path, why, nw,
			  nw == 1 ? "" : "s", left);
	if (g.json)
		j_str("error", error_message());
	return rc;
}

/*
 * Write the plan in order.  The module has no transaction: a write that
 * fails leaves the earlier ones in effect, and the message says which.
 */
static int ap_run(struct apply *a)
{
	int i, rc = 0, cnt[AP_KINDS] = { 0 }, nw = 0;
	char why[CG_WHY];
	bool hook = false;
	struct ap_act *x;

	for (i = 0; i < a->nact; i++) {
		x = &a->act[i];
		if (x->kind != AP_KEEP && !a->dry) {
			rc = cg_write(x->path, x->policy, why, sizeof(why));
			if (rc)
				break;
			hook |= strcmp(x->policy ? x->policy : "stock", "stock");
			nw++;
		}
		cnt[x->kind]++;
		ap_print(a, x);
	}
	if (rc)
		return ap_failed(a, i, nw, why, rc);
	if (hook) {
		rc = wait_hook();
		if (rc)
			return rc;
	}
	if (g.json) {
		ap_json(a, a->nact);
		return 0;
	}
	if (a->dry)
		printf("%s: dry run, nothing written: %d to add, %d to change, %d to remove, %d unchanged\n",
		       a->file, cnt[AP_ADD], cnt[AP_CHANGE], cnt[AP_REMOVE],
		       cnt[AP_KEEP]);
	else
		printf("%s: %d added, %d changed, %d removed, %d unchanged\n",
		       a->file, cnt[AP_ADD], cnt[AP_CHANGE], cnt[AP_REMOVE],
		       cnt[AP_KEEP]);
	return 0;
}

static void ap_free(struct apply *a)
{
	int i;

	for (i = 0; i < a->n; i++)
		free(a->ent[i].path);
	for (i = 0; i < a->nerr; i++)
		free(a->err[i].msg);
	free(a->ent);
	free(a->err);
	free(a->act);
}

int cmd_apply(int argc, char **argv)
{
	struct apply a = { .file = WP_CGROUP_CONF };
	struct wp_policies p;
	struct cg_table t;
	bool named = false;
	int i, rc = 0, max;

	for (i = 1; i < argc; i++) {
		if (num_opt(&i, argc, argv, "--wait", NULL, 0, WP_APPLY_WAIT_MAX,
			    false, &a.wait, &rc)) {
			if (rc)
				return rc;
		} else if (!strcmp(argv[i], "-n") ||
			   !strcmp(argv[i], "--dry-run")) {
			a.dry = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_err("unknown apply option '%s'; see `wakeplacectl apply help`",
					 argv[i]);
		} else {
			if (named)
				return usage_err("apply takes one FILE ('%s')",
						 argv[i]);
			a.file = argv[i];
			named = true;
		}
	}
	rc = load_policies(&p);
	if (!rc)
		rc = need_cgroups();
	if (!rc)
		rc = cg_mount(a.mnt, sizeof(a.mnt));
	if (rc)
		return rc;
	max = cg_max();
	if (max < 0)
		return fail(EX_FAIL, "cannot read a number from %s/%s; is the module version matching this tool?",
			    g.root, CG_MAX_FILE);
	rc = ap_parse(&a, &p, max);
	if (!rc)
		rc = ap_wait(&a);
	if (!rc && a.nerr)
		rc = ap_report(&a);
	if (!rc)
		rc = cg_table_load(&t, false);
	if (!rc) {
		rc = ap_plan(&a, &t);
		if (!rc)
			rc = ap_run(&a);
		cg_table_free(&t);
	}
	ap_free(&a);
	return rc;
}
