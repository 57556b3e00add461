// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: the module's model as the tool sees it: policy and tunable
 * names, the policy list, a policy's tunables, and the numbers in them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wakeplacectl.h"

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
