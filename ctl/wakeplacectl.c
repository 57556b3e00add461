// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: control tool for the wakeplace kernel module.
 *
 *   wakeplacectl [OPTIONS] OBJECT COMMAND [ARGS]
 *
 * Objects and commands may be abbreviated to any unique prefix, as in
 * `wakeplacectl pol l`.  Everything is done through the sysfs files
 * documented in docs/sysfs-kernel-wakeplace, below /sys/kernel/wakeplace
 * (or --sysfs DIR, or $WAKEPLACE_SYSFS).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wakeplacectl.h"

struct wp_opts g = { .root = WP_DEFAULT_ROOT };

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
};

struct object {
	const char *name;
	int (*fn)(int argc, char **argv);	/* object without commands */
	const struct command *cmds;		/* or its commands ... */
	const char *defcmd;			/* ... and the default one */
};

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct command policy_cmds[] = {
	{ "list", cmd_policy_list },
	{ "show", cmd_policy_show },
	{ "set", cmd_policy_set },
	{ "unset", cmd_policy_unset },
	{ "help", NULL },
	{ NULL, NULL },
};

static const struct command stats_cmds[] = {
	{ "show", cmd_stats_show },
	{ "reset", cmd_stats_reset },
	{ "period", cmd_stats_period },
	{ "latency", cmd_stats_latency },
	{ "latency-sample", cmd_stats_latency_sample },
	{ "cgroups", cmd_stats_cgroups },
	{ "help", NULL },
	{ NULL, NULL },
};

static const struct command shadow_cmds[] = {
	{ "show", cmd_shadow_show },
	{ "set", cmd_shadow_set },
	{ "off", cmd_shadow_off },
	{ "help", NULL },
	{ NULL, NULL },
};

static const struct object objects[] = {
	{ "status", cmd_status, NULL, NULL },
	{ "policy", NULL, policy_cmds, "list" },
	{ "tune", cmd_tune, NULL, NULL },
	{ "stats", NULL, stats_cmds, "show" },
	{ "watch", cmd_watch, NULL, NULL },
	{ "auto", cmd_auto, NULL, NULL },
	{ "apply", cmd_apply, NULL, NULL },
	{ "shadow", NULL, shadow_cmds, "show" },
	{ "load", cmd_load, NULL, NULL },
	{ "unload", cmd_unload, NULL, NULL },
	{ "help", cmd_help, NULL, NULL },
	{ "version", cmd_version, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

/* ------------------------------------------------------------------------
 * Help
 */

static void help_global(void)
{
	g.helped = true;
	printf(
"Usage: wakeplacectl [OPTIONS] OBJECT COMMAND [ARGS]\n"
"\n"
"Control the wakeplace module (wakeup placement policies for CFS).\n"
"Objects and commands may be abbreviated to a unique prefix (`pol l`).\n"
"\n"
"Objects:\n"
"  status                          module, policy, state, hook, counters\n"
"  policy {list|show|set|unset}    list, inspect and switch policies, also\n"
"                                  per cgroup (set NAME --cgroup PATH)\n"
"  tune NAME KEY=VALUE...          change tunables of a policy\n"
"  stats {show|reset|period|latency}\n"
"                                  per-policy statistics, wakeup latency\n"
"  watch [-i SECONDS]              live view, q quits\n"
"  auto [--candidates A,B] [--objective p99|mean|wakeups] [--daemon]\n"
"                                  pick the best policy online, keep picking\n"
"  apply [FILE] [-n] [--wait SECONDS]\n"
"                                  make the per-cgroup policies those of FILE\n"
"  shadow {show|set}               shadow policy compared with the active one\n"
"  load [--policy NAME] [--ko PATH] [-- MODPARAMS...]\n"
"  unload\n"
"  help [OBJECT]                   this text, or help of one object\n"
"\n"
"Options:\n"
"  -j, --json        one JSON document on stdout\n"
"  -p, --pretty      indented JSON (implies -j)\n"
"  -v, --verbose     say what is written and why\n"
"  -V, --version     print the version\n"
"  -h, --help        help (after an object: that object's help)\n"
"      --sysfs DIR   sysfs root (default $WAKEPLACE_SYSFS or %s)\n"
"\n"
"Exit status: 0 ok, 1 failed, 2 usage, 3 module not loaded, 4 permission.\n"
"See wakeplacectl(8).\n", WP_DEFAULT_ROOT);
}

void help_object(const char *obj)
{
	g.helped = true;
	if (!strcmp(obj, "status"))
		printf(
"Usage: wakeplacectl status\n"
"\n"
"Show whether the module is loaded, its version and kernel, whether the\n"
"running kernel is supported, the active and shadow policies, the state\n"
"(ok or the reason of an automatic revert), whether the ftrace hook on\n"
"select_task_rq_fair is attached, the hook counters and, when something\n"
"is wrong, why (including the last 'wakeplace:' kernel log line when the\n"
"module is not loaded).  Exits 3 when the module is not loaded.\n");
	else if (!strcmp(obj, "policy"))
		printf(
"Usage: wakeplacectl policy list\n"
"       wakeplacectl policy show [NAME]\n"
"       wakeplacectl policy set NAME [KEY=VALUE...]\n"
"       wakeplacectl policy set NAME --cgroup PATH\n"
"       wakeplacectl policy unset --cgroup PATH\n"
"\n"
"list   names and descriptions; '*' marks the active policy, '+' the shadow;\n"
"       then the per-cgroup assignments: path, policy, state, id\n"
"show   one policy (default: the active one) with its tunables, their\n"
"       values and ranges, and the counters the policy keeps, if any\n"
"       (policies/NAME/counters: eager, idlemask, idlecore)\n"
"set    validate and write the tunables of NAME, then make NAME active;\n"
"       prints nothing on success unless -v.  Nothing is changed when a\n"
"       KEY=VALUE is refused.\n"
"       With --cgroup, NAME places the wakeups of the tasks of cgroup PATH\n"
"       and of its descendants that have no policy of their own (cgroup v2);\n"
"       tunables stay machine-wide.  PATH is from the cgroup2 root\n"
"       (/system.slice/db.service, or relative), or a path below the\n"
"       cgroup2 mount (/sys/fs/cgroup/system.slice/db.service).\n"
"unset  remove the cgroup's own policy: its nearest ancestor's with one,\n"
"       else the machine-wide policy, places its wakeups again\n");
	else if (!strcmp(obj, "tune"))
		printf(
"Usage: wakeplacectl tune NAME KEY=VALUE...\n"
"       wakeplacectl tune NAME\n"
"\n"
"Set tunables of policy NAME (active or not) after checking every KEY\n"
"and VALUE against policies/NAME/tunables; without KEY=VALUE show them.\n");
	else if (!strcmp(obj, "stats"))
		printf(
"Usage: wakeplacectl stats [show] [--policy NAME]... [-a|--all]\n"
"                          [-o|--outcomes] [--interval SECONDS [--count N]]\n"
"       wakeplacectl stats [show] --cgroup PATH [--interval S [--count N]]\n"
"       wakeplacectl stats cgroups [--interval S [--count N]]\n"
"       wakeplacectl stats reset [NAME|all]\n"
"       wakeplacectl stats period [N]\n"
"       wakeplacectl stats latency [on|off|sample N]\n"
"\n"
"show   per policy: picks, outcomes in %% of picks, mean scan length,\n"
"       remote runqueue lines per pick, cross-LLC %%, not-prev %%, cost\n"
"       p50/p99 and shadow agreement %%; tracked wakeups and their\n"
"       wakeup latency p50/p90/p99/p99.9; stacked, double picks, moved,\n"
"       migrated and migrated across LLCs in %% of tracked wakeups.\n"
"       Default: policies with picks plus the active one.  --outcomes\n"
"       adds the latency of every outcome row (all, target ... local).\n"
"       With --interval, print rates over each interval (picks per\n"
"       second, outcomes of the interval's picks, latency of the\n"
"       interval's wakeups); --count N stops after N intervals\n"
"       (required with -j).\n"
"--cgroup PATH\n"
"       the assignment of one cgroup: wakeups, redirected, handed back,\n"
"       outcomes in %% of redirected; tracked, unplaced, stacked, missed\n"
"       idle, double picks; latency p50/p90/p99/p99.9 of its tracked\n"
"       wakeups (cgroup_latency_hist: within ~12%%).  With --interval,\n"
"       the deltas of each interval; the measurement is switched on for\n"
"       the run when it is off, and restored.\n"
"cgroups\n"
"       one line per assignment (the same numbers, fewer of them)\n"
"reset  zero the statistics of one policy, or of all and the hook\n"
"       counters (default all)\n"
"period show or set sample_period: one pick in N is timed (1..65536)\n"
"latency\n"
"       show or switch the measurement (latency, quality, the oracle;\n"
"       off at load): on tracks every wakeup unless a sample is already\n"
"       set, sample N one wakeup in N per CPU (0..65536, 0: off).  On\n"
"       stock with no shadow, off runs no probe at all.  ab, switchback,\n"
"       autophase, scale and demo switch it on for their run and restore\n"
"       it.  latency-sample [N] is the older spelling of sample N.\n"
"\n"
"Cost percentiles are estimated from the log2 cost histogram as the\n"
"geometric midpoint of the bucket, 2^i * sqrt(2) ns (bucket 0: 1 ns).\n"
"Latency percentiles are the midpoint, rounded down, of the log-linear\n"
"bucket (at most 1/32 of the value wide) holding the sample of rank\n"
"ceil(q * count).  A module without latency tracking shows \"-\".\n");
	else if (!strcmp(obj, "watch"))
		printf(
"Usage: wakeplacectl watch [-i|--interval SECONDS]\n"
"\n"
"Live view refreshed in place every SECONDS (default 1): per-policy pick\n"
"rates, outcome mix, cost and shadow agreement; below, tracked wakeups\n"
"per second, their latency p50/p99/p99.9 and the placement quality of\n"
"the interval.  Keys: q quit, a toggle all policies.  Ctrl-C also\n"
"quits; the terminal is restored.\n");
	else if (!strcmp(obj, "auto"))
		printf(
"Usage: wakeplacectl auto [--candidates A,B,...] [--objective p99|mean|wakeups]\n"
"                         [--epoch SECONDS] [--margin PCT] [--drift PCT]\n"
"                         [--explore N] [--recheck N] [--min-samples N]\n"
"                         [--epochs N] [--fallback POLICY] [--state FILE]\n"
"                         [--cgroup PATH] [--daemon]\n"
"\n"
"Measure the candidates (default: stock and every policy without\n"
"tunables but mirror) in epochs of --epoch seconds (default 2) by\n"
"successive halving, stock always kept; run the best; re-explore when its\n"
"last 5 epochs drift by more than --drift %% (default 50) with 95%%\n"
"confidence; every --recheck epochs (default 10) run one on stock, and\n"
"go back to stock\n"
"when the choice is worse than stock by more than --margin %% (default 5)\n"
"with 95%% confidence (Welch's test on the last 8 epochs).  Objectives:\n"
"p99 (default) or mean wakeup latency, wakeups (tracked per second).\n"
"Epochs with fewer than --min-samples (100) wakeups do not count.\n"
"On a signal, an error, --epochs N epochs or the module's unload it\n"
"leaves the policy on --fallback (default stock).  -j: one JSON object a\n"
"line per epoch and decision.  --daemon: messages to stderr for the\n"
"journal.  The state file (default %s, or $WAKEPLACE_AUTO_STATE)\n"
"tells `wakeplacectl status` that auto is in charge.  --cgroup PATH:\n"
"try the candidates as that cgroup's policy (policy set --cgroup), judge\n"
"them on its cgroup_latency_hist, and leave --fallback assigned to it.\n",
"/run/wakeplace/auto.state");
	else if (!strcmp(obj, "apply"))
		printf(
"Usage: wakeplacectl apply [FILE] [-n|--dry-run] [--wait SECONDS]\n"
"\n"
"Make the module's per-cgroup policies those of FILE (default\n"
"%s): assignments not in FILE are unset, FILE's are\n"
"set, and what changed is printed.  One assignment a line, PATH POLICY\n"
"(PATH as for policy set --cgroup, without spaces); '#' starts a\n"
"comment, blank lines are ignored.\n"
"Every line is checked first (policy, path, duplicates, cgroups_max, the\n"
"cgroup exists): each error is printed as FILE:LINE: reason, and nothing\n"
"is written (exit 2).  --wait gives missing cgroups up to SECONDS to\n"
"appear (0 to %d).  -n prints what would change and writes nothing.  A\n"
"write refused midway leaves the earlier ones in effect (the module has\n"
"no transaction); the message names the line and what was done.\n",
WP_CGROUP_CONF, WP_APPLY_WAIT_MAX);
	else if (!strcmp(obj, "shadow"))
		printf(
"Usage: wakeplacectl shadow show\n"
"       wakeplacectl shadow set NAME|off [--cgroup PATH]\n"
"       wakeplacectl shadow off\n"
"\n"
"The shadow policy's pick is computed on every redirected wakeup without\n"
"effect and compared with the pick used; show prints the agreement.\n"
"With --cgroup, only on the wakeups of tasks in PATH or below it (the\n"
"scope, shadow_cgroup, is written before the shadow); set without\n"
"--cgroup makes it machine-wide again; off also resets the scope.\n");
	else if (!strcmp(obj, "load"))
		printf(
"Usage: wakeplacectl load [--policy NAME] [--ko PATH] [-- MODPARAMS...]\n"
"\n"
"Load the module with insmod PATH, or `modprobe wakeplace` without --ko,\n"
"then optionally make NAME active.  Failures are explained (EBUSY: the\n"
"function already has an ftrace IPMODIFY owner such as a livepatch;\n"
"EPERM: lockdown, signature or not root; otherwise the last kernel log\n"
"line of the module).  $WAKEPLACE_INSMOD and $WAKEPLACE_MODPROBE replace\n"
"the commands.\n");
	else if (!strcmp(obj, "unload"))
		printf(
"Usage: wakeplacectl unload\n"
"\n"
"Remove the module with rmmod (or $WAKEPLACE_RMMOD).  The kernel's own\n"
"select_task_rq_fair is back when it returns.\n");
	else
		help_global();
}

static int cmd_help(int argc, char **argv)
{
	const struct object *o, *hit = NULL;

	if (argc < 2) {
		help_global();
		return 0;
	}
	for (o = objects; o->name; o++)
		if (!strncmp(o->name, argv[1], strlen(argv[1])) &&
		    (!hit || !strcmp(o->name, argv[1])))
			hit = o;
	if (!hit)
		return usage_err("no help for '%s'; objects: status policy tune stats watch auto apply shadow load unload",
				 argv[1]);
	help_object(hit->name);
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	char buf[128];
	const char *ver = NULL;

	(void)argc;
	(void)argv;
	/* Which module a bug report is about matters as much as the tool. */
	if (module_loaded() && read_attr("version", buf, sizeof(buf)) >= 0)
		ver = trim(buf);
	if (g.json) {
		j_str("version", WP_CTL_VERSION);
		j_str("module_version", ver);
		return 0;
	}
	printf("wakeplacectl %s\n", WP_CTL_VERSION);
	printf("module %s\n", ver ? ver : "not loaded");
	return 0;
}

/* ------------------------------------------------------------------------
 * Options and dispatch
 */

bool is_help_word(const char *s)
{
	return !strcmp(s, "help") || !strcmp(s, "-h") || !strcmp(s, "--help");
}

/*
 * Match option argv[*i] against --lng / shrt (either may be NULL).  With val
 * the option takes a value ("--lng V", "--lng=V", "-s V"); a missing value
 * sets *rc to a usage error.  Returns whether it matched.
 */
bool opt_match(int *i, int argc, char **argv, const char *lng,
	       const char *shrt, char **val, int *rc)
{
	const char *a = argv[*i];
	size_t n = lng ? strlen(lng) : 0;

	if (lng && val && !strncmp(a, lng, n) && a[n] == '=') {
		*val = (char *)a + n + 1;
		return true;
	}
	if (!(lng && !strcmp(a, lng)) && !(shrt && !strcmp(a, shrt)))
		return false;
	if (!val)
		return true;
	if (*i + 1 >= argc) {
		*rc = usage_err("option %s needs a value", a);
		return true;
	}
	*val = argv[++*i];
	return true;
}

int parse_num(const char *opt, const char *s, double lo, double hi,
	      bool integer, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v) || *v < lo ||
	    *v > hi || (integer && *v != (long long)*v))
		return usage_err("invalid %s '%s' (%s%g to %g)", opt, s,
				 integer ? "an integer, " : "", lo, hi);
	return 0;
}

/* A numeric option: matched, its value in *v or a usage error in *rc. */
bool num_opt(int *i, int argc, char **argv, const char *lng,
	     const char *shrt, double lo, double hi, bool integer,
	     double *v, int *rc)
{
	char *val = NULL;

	if (!opt_match(i, argc, argv, lng, shrt, &val, rc))
		return false;
	if (!*rc)
		*rc = parse_num(lng + 2, val, lo, hi, integer, v);
	return true;
}

/*
 * Take the global options out of argv wherever they are (up to "--"), so
 * that `wakeplacectl policy list -j` works as well as `-j policy list`.
 */
static int global_opts(int *argc, char **argv, bool *version)
{
	int i, o = 1, rc = 0;

	for (i = 1; i < *argc; i++) {
		char *a = argv[i], *val = NULL;
		const char *c;

		if (!strcmp(a, "--")) {
			while (i < *argc)
				argv[o++] = argv[i++];
			break;
		}
		if (!strcmp(a, "--json")) {
			g.json = true;
		} else if (!strcmp(a, "--pretty")) {
			g.json = g.pretty = true;
		} else if (!strcmp(a, "--verbose")) {
			g.verbose++;
		} else if (!strcmp(a, "--version")) {
			*version = true;
		} else if (!strcmp(a, "--help")) {
			g.help = true;
		} else if (opt_match(&i, *argc, argv, "--sysfs", NULL, &val,
				     &rc)) {
			if (rc)
				return rc;
			if (!*val)
				return usage_err("--sysfs needs a directory");
			g.root = val;
		} else if (a[0] == '-' && a[1] && a[1] != '-' &&
			   strspn(a + 1, "jpvVh") == strlen(a + 1)) {
			for (c = a + 1; *c; c++) {
				if (*c == 'j')
					g.json = true;
				else if (*c == 'p')
					g.json = g.pretty = true;
				else if (*c == 'v')
					g.verbose++;
				else if (*c == 'V')
					*version = true;
				else
					g.help = true;
			}
		} else {
			argv[o++] = a;
		}
	}
	*argc = o;
	argv[o] = NULL;
	return 0;
}

/* Unique-prefix match of word against names (stride bytes apart). */
static int match(const char *word, const void *tab, size_t stride,
		 const char *what, int *idx)
{
	char list[256] = "";
	const char *name;
	int i, hits = 0;
	size_t n = strlen(word);

	*idx = -1;
	for (i = 0; (name = *(const char * const *)((const char *)tab +
						   i * stride)); i++) {
		if (!strcmp(name, word)) {
			*idx = i;
			return 0;
		}
		if (n && !strncmp(name, word, n)) {
			hits++;
			*idx = i;
			if (strlen(list) + strlen(name) + 2 < sizeof(list)) {
				strcat(list, list[0] ? ", " : "");
				strcat(list, name);
			}
		}
	}
	if (hits == 1)
		return 0;
	if (hits > 1)
		return usage_err("ambiguous %s '%s': %s", what, word, list);
	list[0] = '\0';
	for (i = 0; (name = *(const char * const *)((const char *)tab +
						   i * stride)); i++) {
		strcat(list, list[0] ? " " : "");
		strcat(list, name);
	}
	return usage_err("unknown %s '%s' (one of: %s); see `wakeplacectl help`",
			 what, word, list);
}

static int dispatch(int argc, char **argv)
{
	const struct object *o;
	const struct command *c;
	int i, rc;

	if (argc < 1) {
		if (g.help) {
			help_global();
			return 0;
		}
		help_global();
		return usage_err("missing OBJECT; e.g. `wakeplacectl status`");
	}
	rc = match(argv[0], objects, sizeof(*objects), "object", &i);
	if (rc)
		return rc;
	o = &objects[i];
	if (g.help || (argc > 1 && is_help_word(argv[1]) && o->fn != cmd_help)) {
		help_object(o->name);
		return 0;
	}
	if (o->fn)
		return o->fn(argc, argv);

	/* Object with commands: default command when none is given. */
	if (argc < 2 || argv[1][0] == '-') {
		for (c = o->cmds; strcmp(c->name, o->defcmd); c++)
			;
		return c->fn(argc, argv);
	}
	rc = match(argv[1], o->cmds, sizeof(*o->cmds), "command", &i);
	if (rc)
		return rc;
	c = &o->cmds[i];
	if (!c->fn) {
		help_object(o->name);
		return 0;
	}
	return c->fn(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	bool version = false;
	const char *env;
	int i, rc;

	env = getenv("WAKEPLACE_SYSFS");
	if (env && *env)
		g.root = env;
	rc = global_opts(&argc, argv, &version);
	if (g.json && !g.help)
		json_start();
	if (!rc && argc > WP_ARG_MAX)
		rc = usage_err("too many arguments (%d, at most %d)", argc - 1,
			       WP_ARG_MAX);
	for (i = 1; !rc && i < argc; i++)
		if (strlen(argv[i]) > WP_ARG_MAX)
			rc = usage_err("argument %d too long (%zu chars, at most %d)",
				       i, strlen(argv[i]), WP_ARG_MAX);
	if (!rc && version)
		rc = cmd_version(0, NULL);
	else if (!rc)
		rc = dispatch(argc - 1, argv + 1);
	json_finish(rc);
	fflush(stdout);
	return rc;
}
