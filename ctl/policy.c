// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: policy list/show/set, tune, shadow show/set.  A policy per
 * cgroup (policy set --cgroup, unset, the list's assignments) is cgroup.c's.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wakeplacectl.h"

static void read_description(const char *name, char *buf, size_t len)
{
	char rel[WP_NAME_MAX + 32];

	snprintf(rel, sizeof(rel), "policies/%s/description", name);
	if (read_attr(rel, buf, len) < 0)
		buf[0] = '\0';
	else
		memmove(buf, trim(buf), strlen(trim(buf)) + 1);
}

/* The scope of the shadow in words (status, shadow show, policy list). */
const char *scope_text(const char *scope)
{
	static char b[PATH_MAX + 64];

	if (!strcmp(scope, "none"))
		return "every wakeup (machine-wide)";
	if (!strncmp(scope, "removed ", 8))
		snprintf(b, sizeof(b), "cgroup %s was removed: compares nothing until set again",
			 scope + 8);
	else
		snprintf(b, sizeof(b), "wakeups in cgroup %s and below only",
			 scope);
	return b;
}

static void read_shadow(char *buf, size_t len)
{
	if (read_attr("shadow", buf, len) < 0)
		snprintf(buf, len, "unknown");
	else
		memmove(buf, trim(buf), strlen(trim(buf)) + 1);
}

/* Current value of a tunable: its own file, else the tunables line. */
static long long tunable_value(const char *pol, const struct wp_tunable *t)
{
	char rel[2 * WP_NAME_MAX + 32], buf[64];
	long long v;

	snprintf(rel, sizeof(rel), "policies/%s/%s", pol, t->name);
	if (read_attr(rel, buf, sizeof(buf)) >= 0 && !parse_ll(trim(buf), &v))
		return v;
	return t->value;
}

int cmd_policy_list(int argc, char **argv)
{
	struct wp_policies p;
	char shadow[WP_NAME_MAX + 2], desc[512], scope[PATH_MAX + 16];
	int i, rc, w = 4;

	if (argc > 1)
		return usage_err("policy list takes no arguments ('%s')",
				 argv[1]);
	rc = load_policies(&p);
	if (rc)
		return rc;
	read_shadow(shadow, sizeof(shadow));
	read_shadow_scope(scope, sizeof(scope));
	if (g.json) {
		j_str("active", p.active >= 0 ? p.name[p.active] : NULL);
		j_str("shadow", shadow);
		j_shadow_scope(scope);
		j_arr("policies");
		for (i = 0; i < p.n; i++) {
			read_description(p.name[i], desc, sizeof(desc));
			j_obj(NULL);
			j_str("name", p.name[i]);
			j_bool("active", i == p.active);
			j_bool("shadow", !strcmp(shadow, p.name[i]));
			j_str("description", desc);
			j_end();
		}
		j_end();
		return cgroup_list();
	}
	for (i = 0; i < p.n; i++)
		if ((int)strlen(p.name[i]) > w)
			w = strlen(p.name[i]);
	printf("  %-*s  %s\n", w, "NAME", "DESCRIPTION");
	for (i = 0; i < p.n; i++) {
		read_description(p.name[i], desc, sizeof(desc));
		printf("%c %-*s  %s\n",
		       i == p.active ? '*' : !strcmp(shadow, p.name[i]) ?
		       '+' : ' ', w, p.name[i], desc);
	}
	if (g.verbose)
		printf("(* active, + shadow)\n");
	if (strcmp(shadow, "off") && *scope && strcmp(scope, "none"))
		printf("shadow %s: %s\n", shadow, scope_text(scope));
	return cgroup_list();
}

/*
 * The policy's own counters (policies/NAME/counters, "name value" lines;
 * only some policies have the file), printed under the tunables or as
 * the JSON object "counters" (null without the file).  Returns 0 or an
 * exit status.
 */
static int show_counters(const char *name)
{
	char rel[PATH_MAX], *buf, *key, *val, *save = NULL;
	uint64_t v;
	int r, n = 0;

	snprintf(rel, sizeof(rel), "policies/%s/counters", name);
	r = read_attr_all(rel, &buf);
	if (r == -ENOENT) {
		if (g.json)
			j_null("counters");
		return 0;
	}
	if (r < 0)
		return fail(EX_FAIL, "cannot read %s/%s: %s", g.root, rel,
			    strerror(-r));
	if (g.json)
		j_obj("counters");
	for (key = next_kv(buf, &save, &val); key;
	     key = next_kv(NULL, &save, &val)) {
		if (parse_u64(val, &v))
			continue;
		if (g.json) {
			j_u64(key, v);
		} else {
			if (!n)
				printf("counters:    since load (stats reset does not zero them)\n");
			printf("  %-20s %12llu\n", key, (unsigned long long)v);
		}
		n++;
	}
	if (g.json)
		j_end();
	free(buf);
	return 0;
}

static int show_policy(const struct wp_policies *p, int idx)
{
	struct wp_tunable t[WP_MAX_TUNABLES];
	char desc[512];
	const char *name = p->name[idx];
	int i, n, rc;

	rc = load_tunables(name, t, &n);
	if (rc)
		return rc;
	read_description(name, desc, sizeof(desc));
	if (g.json) {
		j_str("name", name);
		j_bool("active", idx == p->active);
		j_str("description", desc);
		j_arr("tunables");
		for (i = 0; i < n; i++) {
			j_obj(NULL);
			j_str("name", t[i].name);
			j_i64("value", tunable_value(name, &t[i]));
			j_i64("min", t[i].min);
			j_i64("max", t[i].max);
			j_end();
		}
		j_end();
		return show_counters(name);
	}
	printf("policy:      %s%s\n", name, idx == p->active ? " (active)" : "");
	printf("description: %s\n", desc);
	if (!n) {
		printf("tunables:    none\n");
	} else {
		printf("tunables:\n  %-20s %12s %12s %12s\n", "KEY", "VALUE",
		       "MIN", "MAX");
		for (i = 0; i < n; i++)
			printf("  %-20s %12lld %12lld %12lld\n", t[i].name,
			       tunable_value(name, &t[i]), t[i].min, t[i].max);
	}
	return show_counters(name);
}

int cmd_policy_show(int argc, char **argv)
{
	struct wp_policies p;
	int idx, rc;

	if (argc > 2)
		return usage_err("policy show takes at most one NAME");
	rc = load_policies(&p);
	if (rc)
		return rc;
	if (argc == 2) {
		rc = lookup_policy(&p, argv[1], &idx);
		if (rc)
			return rc;
	} else {
		idx = p.active;
		if (idx < 0)
			return fail(EX_FAIL, "cannot tell the active policy from %s/policy; name one: `wakeplacectl policy show NAME`",
				    g.root);
	}
	return show_policy(&p, idx);
}

/* ------------------------------------------------------------------------
 * Tunable assignments: everything is checked before anything is written,
 * and earlier writes are undone when a later one fails.
 */

struct assign {
	int t;			/* index into the tunables */
	long long val;
	long long old;
};

static int parse_assignments(const char *pol, int argc, char **argv,
			     struct wp_tunable *t, int nt, struct assign *a)
{
	char names[WP_MAX_TUNABLES * (WP_NAME_MAX + 1) + 1];
	int i, j;

	names[0] = '\0';
	for (j = 0; j < nt; j++) {
		strcat(names, j ? " " : "");
		strcat(names, t[j].name);
	}
	if (argc > nt && nt > 0)
		return usage_err("too many KEY=VALUE for policy %s (tunables: %s)",
				 pol, names);
	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '='), *val;
		size_t klen;

		if (!eq || eq == argv[i])
			return usage_err("malformed '%s' (expected KEY=VALUE, e.g. %s=%lld)",
					 argv[i], nt ? t[0].name : "key",
					 nt ? t[0].value : 1LL);
		klen = eq - argv[i];
		val = eq + 1;
		if (klen > WP_NAME_MAX)
			return usage_err("tunable name too long (%zu chars, at most %d)",
					 klen, WP_NAME_MAX);
		for (j = 0; j < nt; j++)
			if (strlen(t[j].name) == klen &&
			    !strncmp(t[j].name, argv[i], klen))
				break;
		if (j == nt) {
			if (!nt)
				return usage_err("policy %s has no tunables ('%.*s')",
						 pol, (int)klen, argv[i]);
			return usage_err("unknown tunable '%.*s' for policy %s (tunables: %s)",
					 (int)klen, argv[i], pol, names);
		}
		a[i].t = j;
		if (parse_ll(val, &a[i].val))
			return usage_err("value '%s' for %s/%s is not a decimal integer",
					 val, pol, t[j].name);
		if (a[i].val < t[j].min || a[i].val > t[j].max)
			return usage_err("value %lld for %s/%s out of range [%lld, %lld]",
					 a[i].val, pol, t[j].name, t[j].min,
					 t[j].max);
		for (j = 0; j < i; j++)
			if (a[j].t == a[i].t)
				return usage_err("tunable %s given twice",
						 t[a[i].t].name);
		a[i].old = tunable_value(pol, &t[a[i].t]);
	}
	return 0;
}

static void undo_assignments(const char *pol, struct wp_tunable *t,
			     struct assign *a, int n)
{
	char rel[2 * WP_NAME_MAX + 32], val[32];

	while (n-- > 0) {
		snprintf(rel, sizeof(rel), "policies/%s/%s", pol, t[a[n].t].name);
		snprintf(val, sizeof(val), "%lld", a[n].old);
		if (write_attr(rel, val))
			fprintf(stderr, "wakeplacectl: warning: could not restore %s to %s\n",
				rel, val);
	}
}

static int apply_assignments(const char *pol, struct wp_tunable *t,
			     struct assign *a, int n)
{
	char rel[2 * WP_NAME_MAX + 32], val[32];
	int i, err;

	for (i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "policies/%s/%s", pol, t[a[i].t].name);
		snprintf(val, sizeof(val), "%lld", a[i].val);
		err = write_attr(rel, val);
		if (err) {
			undo_assignments(pol, t, a, i);
			return write_err(rel, -err, "the value is unchanged");
		}
		if (g.verbose && !g.json)
			printf("%s/%s: %lld -> %lld\n", pol, t[a[i].t].name,
			       a[i].old, a[i].val);
	}
	return 0;
}

static void json_assignments(struct wp_tunable *t, struct assign *a, int n)
{
	int i;

	j_obj("tunables");
	for (i = 0; i < n; i++)
		j_i64(t[a[i].t].name, a[i].val);
	j_end();
}

/*
 * A write returns once the hook is attached, or after the module's
 * attach_wait_ms with the attach still in flight ("attaching"): wait for
 * it here, outside the module's lock, so that the policy set is the
 * policy placing when we return.  An attach that fails puts the module
 * back on stock (see the caller's read-back).  Older modules never say
 * "attaching".
 */
int wait_hook(void)
{
	struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
	char h[32];
	int i;

	for (i = 0; i < 6000; i++) {	/* 60 s */
		if (read_attr("hook", h, sizeof(h)) < 0 ||
		    strcmp(trim(h), "attaching"))
			return 0;
		nanosleep(&ts, NULL);
	}
	return fail(EX_FAIL, "the hook is still attaching after 60 s; see `wakeplacectl status` and dmesg");
}

/* Make name active (it must exist) and check it took. */
int set_policy(const char *name)
{
	char old[WP_NAME_MAX + 2] = "", cur[WP_NAME_MAX + 2], st[512];
	int err;

	if (read_attr("policy", old, sizeof(old)) < 0)
		old[0] = '\0';
	err = write_attr("policy", name);
	if (err)
		return write_err("policy", -err,
				 "the previous policy stays active; see `wakeplacectl status` and dmesg");
	err = wait_hook();
	if (err)
		return err;
	err = read_attr("policy", cur, sizeof(cur));
	if (err < 0)
		return read_err("policy", -err);
	if (strcmp(trim(cur), name)) {
		if (read_attr("state", st, sizeof(st)) < 0)
			strcpy(st, "unknown");
		return fail(EX_FAIL, "policy %s was accepted but %s is active (state: %s); see dmesg",
			    name, trim(cur), trim(st));
	}
	if (g.verbose && !g.json)
		printf("policy: %s -> %s\n", trim(old), name);
	if (g.json) {
		j_str("previous", trim(old));
		j_str("policy", name);
	}
	return 0;
}

static int set_or_tune(int argc, char **argv, bool activate)
{
	struct wp_tunable t[WP_MAX_TUNABLES];
	struct assign a[WP_MAX_TUNABLES];
	struct wp_policies p;
	const char *name;
	int idx, nt, n = argc - 2, rc;

	if (argc < 2)
		return usage_err("missing policy NAME; e.g. `wakeplacectl %s mirror`",
				 activate ? "policy set" : "tune");
	name = argv[1];
	rc = load_policies(&p);
	if (rc)
		return rc;
	rc = lookup_policy(&p, name, &idx);
	if (rc)
		return rc;
	if (!activate && n == 0)
		return show_policy(&p, idx);
	rc = load_tunables(name, t, &nt);
	if (rc)
		return rc;
	if (n > WP_MAX_TUNABLES)
		return usage_err("too many KEY=VALUE arguments (%d)", n);
	rc = parse_assignments(name, n, argv + 2, t, nt, a);
	if (rc)
		return rc;
	rc = apply_assignments(name, t, a, n);
	if (rc)
		return rc;
	if (activate) {
		rc = set_policy(name);
		if (rc) {
			undo_assignments(name, t, a, n);
			return rc;
		}
	} else if (g.json) {
		j_str("policy", name);
	}
	if (g.json)
		json_assignments(t, a, n);
	return 0;
}

/*
 * policy set NAME [KEY=VALUE...], or with --cgroup PATH (anywhere after
 * set) NAME for that cgroup only (cgroup.c).
 */
int cmd_policy_set(int argc, char **argv)
{
	struct wp_policies p;
	char *cgroup = NULL, *val;
	int i, n = 0, idx, rc = 0;

	for (i = 0; i < argc; i++) {
		if (i && opt_match(&i, argc, argv, "--cgroup", NULL, &val, &rc)) {
			if (rc)
				return rc;
			if (cgroup)
				return usage_err("--cgroup given twice");
			cgroup = val;
			continue;
		}
		argv[n++] = argv[i];
	}
	argv[n] = NULL;
	if (!cgroup)
		return set_or_tune(n, argv, true);
	if (n < 2)
		return usage_err("missing policy NAME; e.g. `wakeplacectl policy set idlemask --cgroup /system.slice/db.service`");
	if (n > 2)
		return usage_err("tunables are machine-wide, not per cgroup ('%s'): set them with `wakeplacectl tune %s KEY=VALUE`, then assign %s to the cgroup without them",
				 argv[2], argv[1], argv[1]);
	rc = load_policies(&p);
	if (!rc)
		rc = lookup_policy(&p, argv[1], &idx);
	if (rc)
		return rc;
	return cgroup_set(argv[1], cgroup);
}

int cmd_tune(int argc, char **argv)
{
	return set_or_tune(argc, argv, false);
}

/* ------------------------------------------------------------------------
 * Shadow
 */

static int stat_value(const char *pol, const char *key, uint64_t *v)
{
	char rel[WP_NAME_MAX + 16], buf[WP_FILE_MAX], *line, *save;
	size_t n = strlen(key);

	snprintf(rel, sizeof(rel), "stats/%s", pol);
	if (read_attr(rel, buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, key, n) && (line[n] == ' ' || line[n] == '\t'))
			return parse_u64(trim(line + n), v);
	return -1;
}

int cmd_shadow_show(int argc, char **argv)
{
	char shadow[WP_NAME_MAX + 2], scope[PATH_MAX + 16];
	uint64_t cmp = 0, agr = 0;
	bool have;
	int rc;

	if (argc > 1)
		return usage_err("shadow show takes no arguments ('%s'); see `wakeplacectl shadow help`",
				 argv[1]);
	rc = need_module();
	if (rc)
		return rc;
	rc = read_attr("shadow", shadow, sizeof(shadow));
	if (rc < 0)
		return read_err("shadow", -rc);
	trim(shadow);
	read_shadow_scope(scope, sizeof(scope));
	have = strcmp(shadow, "off") &&
	       !stat_value(shadow, "shadow_compared", &cmp) &&
	       !stat_value(shadow, "shadow_agreed", &agr);
	if (g.json) {
		j_str("shadow", shadow);
		j_shadow_scope(scope);
		if (have) {
			j_u64("compared", cmp);
			j_u64("agreed", agr);
			j_num("agreement_pct", cmp ? 100.0 * agr / cmp : NAN, 2);
		} else {
			j_null("compared");
			j_null("agreed");
			j_null("agreement_pct");
		}
		return 0;
	}
	printf("shadow:    %s\n", shadow);
	if (*scope)
		printf("scope:     %s\n", scope_text(scope));
	if (have) {
		printf("compared:  %llu\n", (unsigned long long)cmp);
		if (cmp)
			printf("agreed:    %llu (%.1f%%)\n",
			       (unsigned long long)agr, 100.0 * agr / cmp);
		else
			printf("agreed:    %llu (-)\n", (unsigned long long)agr);
	}
	return 0;
}

/*
 * The scope of the shadow (shadow_cgroup): "none", a cgroup path or
 * "removed PATH"; "" when the module has no shadow_cgroup (older).
 */
void read_shadow_scope(char *buf, size_t len)
{
	if (read_attr("shadow_cgroup", buf, len) < 0)
		buf[0] = '\0';
	else
		memmove(buf, trim(buf), strlen(trim(buf)) + 1);
}

/* shadow_cgroup as JSON: null without the file. */
void j_shadow_scope(const char *scope)
{
	if (*scope)
		j_str("shadow_cgroup", scope);
	else
		j_null("shadow_cgroup");
}

static int write_scope(const char *val)
{
	int err = write_attr("shadow_cgroup", val);

	if (err == -ENOENT && module_loaded())
		return fail(EX_FAIL, "this module has no shadow_cgroup (%s/shadow_cgroup): it cannot limit the shadow to a cgroup; load a newer one",
			    g.root);
	if (err == -ENOENT)
		return need_module();
	if (err)
		return write_err("shadow_cgroup", -err, "the shadow is unchanged");
	return 0;
}

/*
 * shadow set NAME|off [--cgroup PATH].  With --cgroup, shadow_cgroup is
 * written before shadow, so that the shadow never compares machine-wide
 * on the way; off writes shadow first, then puts the scope back to none.
 * Without --cgroup, a scoped shadow becomes machine-wide (scope none,
 * after the shadow).
 */
int cmd_shadow_set(int argc, char **argv)
{
	char old[WP_NAME_MAX + 2] = "", cur[WP_NAME_MAX + 2];
	char oscope[PATH_MAX + 16], cg[PATH_MAX], *val, *name = NULL;
	const char *arg = NULL;
	struct wp_policies p;
	uint64_t id;
	int i, idx, rc = 0, err;
	bool off;

	for (i = 1; i < argc; i++) {
		if (opt_match(&i, argc, argv, "--cgroup", NULL, &val, &rc)) {
			if (rc)
				return rc;
			if (arg)
				return usage_err("--cgroup given twice");
			arg = val;
		} else if (!name) {
			name = argv[i];
		} else {
			name = NULL;
			break;
		}
	}
	if (!name)
		return usage_err("usage: wakeplacectl shadow set NAME|off [--cgroup PATH]");
	off = !strcmp(name, "off");
	if (off && arg)
		return usage_err("shadow set off takes no --cgroup (off is off everywhere)");
	rc = load_policies(&p);
	if (rc)
		return rc;
	if (!off) {
		rc = lookup_policy(&p, name, &idx);
		if (rc)
			return rc;
	}
	if (arg) {
		rc = cgroup_arg(arg, cg, &id);
		if (rc)
			return rc;
	}
	if (read_attr("shadow", old, sizeof(old)) < 0)
		old[0] = '\0';
	read_shadow_scope(oscope, sizeof(oscope));
	if (arg) {
		rc = write_scope(cg);
		if (rc)
			return rc;
	}
	err = write_attr("shadow", name);
	if (err) {
		/* the scope as it was, for the shadow as it is */
		if (arg && *oscope && strncmp(oscope, "removed ", 8))
			write_attr("shadow_cgroup", oscope);
		return write_err("shadow", -err, "the shadow is unchanged");
	}
	if (!arg && *oscope && strcmp(oscope, "none")) {
		rc = write_scope("none");
		if (rc)
			return rc;
	}
	err = wait_hook();
	if (err)
		return err;
	err = read_attr("shadow", cur, sizeof(cur));
	if (err < 0)
		return read_err("shadow", -err);
	if (strcmp(trim(cur), name))
		return fail(EX_FAIL, "shadow %s was accepted but reads back '%s'",
			    name, trim(cur));
	if (g.verbose && !g.json)
		printf("shadow: %s -> %s%s%s\n", trim(old), name,
		       arg ? " in cgroup " : "", arg ? cg : "");
	if (g.json) {
		j_str("previous", trim(old));
		j_str("shadow", name);
		if (arg)
			j_str("shadow_cgroup", cg);
		else
			j_shadow_scope(*oscope ? "none" : "");
	}
	return 0;
}

/* shadow off: shadow set off. */
int cmd_shadow_off(int argc, char **argv)
{
	char set[] = "set", off[] = "off";
	char *av[3] = { set, off, NULL };

	if (argc > 1)
		return usage_err("shadow off takes no arguments ('%s')",
				 argv[1]);
	return cmd_shadow_set(2, av);
}
