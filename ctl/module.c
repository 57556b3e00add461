// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: status, load and unload (the kernel log: klog.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wakeplacectl.h"

/* Kernel flavours the module supports (module/kernels). */
static const char *const flavours[] = { WP_CTL_FLAVOURS, NULL };

/* "6.12.95+deb12-amd64" -> "6.12" */
static void flavour_of(const char *release, char *fl, size_t len)
{
	size_t n = strspn(release, "0123456789");

	if (release[n] == '.')
		n += 1 + strspn(release + n + 1, "0123456789");
	if (n >= len)
		n = len - 1;
	memcpy(fl, release, n);
	fl[n] = '\0';
}

static bool flavour_supported(const char *fl)
{
	int i;

	for (i = 0; flavours[i]; i++)
		if (!strcmp(fl, flavours[i]))
			return true;
	return false;
}

/* ------------------------------------------------------------------------
 * status
 */

/* 1 attached, 0 not attached, -1 unknown (enabled_functions unreadable). */
static int hook_state(char *line, size_t len)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/enabled_functions",
		"/sys/kernel/debug/tracing/enabled_functions",
		NULL,
	};
	const char *env = getenv("WAKEPLACE_ENABLED_FUNCTIONS");
	const char *one[2] = { env, NULL };
	const char *const *p = env && *env ? one : paths;
	char *l = NULL;
	size_t cap = 0;
	int state = -1;
	FILE *f;

	line[0] = '\0';
	for (; *p && state < 0; p++) {
		f = fopen(*p, "re");
		if (!f)
			continue;
		state = 0;
		while (getline(&l, &cap, f) > 0) {
			if (!strncmp(l, "select_task_rq_fair", 19) &&
			    (l[19] == ' ' || l[19] == '\t' || l[19] == '\n' ||
			     !l[19])) {
				snprintf(line, len, "%s", trim(l));
				state = 1;
				break;
			}
		}
		fclose(f);
	}
	free(l);
	return state;
}

static int status_not_loaded(const char *running)
{
	char log[512], fl[32];
	const char *why = NULL;
	bool sup, have_log;

	flavour_of(running, fl, sizeof(fl));
	sup = flavour_supported(fl);
	have_log = last_dmesg_line(log, sizeof(log));
	if (have_log)
		why = explain_log(log);
	if (g.json) {
		j_bool("loaded", false);
		j_obj("kernel");
		j_str("running", running);
		j_str("flavour", fl);
		j_bool("supported", sup);
		j_end();
		j_str("log", have_log ? log : NULL);
		j_str("reason", why);
		j_str("hint", "load it with `wakeplacectl load`");
		j_str("error", "wakeplace module not loaded");
		g.json_keep = true;
		return EX_NOTLOADED;
	}
	printf("module:      not loaded (%s does not exist)\n", g.root);
	printf("kernel:      %s (%s)\n", running,
	       sup ? "supported" :
	       "not supported: the module supports " WP_CTL_KERNELS_TEXT " kernels");
	if (have_log)
		printf("last log:    %s\n", log);
	if (why)
		printf("reason:      %s\n", why);
	printf("hint:        load it with `wakeplacectl load` (as root)\n");
	return EX_NOTLOADED;
}

/*
 * sched_ext (7.x): a BPF scheduler that owns tasks takes them out of CFS,
 * so their wakeups never reach select_task_rq_fair and the policy.
 * WAKEPLACE_SCX_DIR: another directory than /sys/kernel/sched_ext (tests).
 */
struct scx_view {
	bool present;		/* the kernel has sched_ext */
	bool active;		/* a scheduler is loaded (any state but disabled) */
	bool all;		/* switch_all: every task, not only SCHED_EXT ones */
	char state[32];
	char ops[64];
};

static void scx_read(struct scx_view *x)
{
	const char *dir = getenv("WAKEPLACE_SCX_DIR");
	char path[512], buf[64];

	memset(x, 0, sizeof(*x));
	if (!dir || !*dir)
		dir = "/sys/kernel/sched_ext";
	snprintf(path, sizeof(path), "%s/state", dir);
	if (read_path(path, x->state, sizeof(x->state)) < 0)
		return;
	x->present = true;
	memmove(x->state, trim(x->state), strlen(trim(x->state)) + 1);
	x->active = strcmp(x->state, "disabled") != 0;
	snprintf(path, sizeof(path), "%s/switch_all", dir);
	x->all = read_path(path, buf, sizeof(buf)) >= 0 && atoi(trim(buf)) == 1;
	snprintf(path, sizeof(path), "%s/root/ops", dir);
	if (!x->active || read_path(path, x->ops, sizeof(x->ops)) < 0)
		x->ops[0] = '\0';
	memmove(x->ops, trim(x->ops), strlen(trim(x->ops)) + 1);
}

static void scx_print(const struct scx_view *x)
{
	if (g.json) {
		if (!x->present) {
			j_null("sched_ext");
			return;
		}
		j_obj("sched_ext");
		j_str("state", x->state);
		j_bool("active", x->active);
		j_str("scheduler", x->active && x->ops[0] ? x->ops : NULL);
		j_str("mode", !x->active ? NULL : x->all ? "all" : "partial");
		j_end();
		return;
	}
	if (!x->present)
		return;
	if (!x->active)
		printf("sched_ext:   %s (CFS places every task)\n", x->state);
	else if (x->all)
		printf("sched_ext:   %s, scheduler %s, all tasks: their wakeups bypass CFS and the policy\n",
		       x->state, x->ops[0] ? x->ops : "?");
	else
		printf("sched_ext:   %s, scheduler %s, partial: only SCHED_EXT tasks bypass CFS and the policy\n",
		       x->state, x->ops[0] ? x->ops : "?");
}

/*
 * The measurement and its memory: latency_sample and latency_mem
 * ("<policy> <bytes> <cpus>" lines).  Either absent (an older module):
 * null in JSON, left out of the text.
 */
static void status_latency(void)
{
	char buf[4096], smp[32], name[64];
	unsigned long long b, total = 0;
	unsigned int c, n = 0;
	long long v = -1;
	bool mem;
	char *line, *save;

	if (read_attr("latency_sample", smp, sizeof(smp)) < 0 ||
	    parse_ll(trim(smp), &v))
		v = -1;
	mem = read_attr("latency_mem", buf, sizeof(buf)) >= 0;
	if (g.json) {
		if (v >= 0)
			j_i64("latency_sample", v);
		else
			j_null("latency_sample");
		if (!mem) {
			j_null("latency_mem");
			return;
		}
		j_obj("latency_mem");
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (sscanf(line, "%63s %llu %u", name, &b, &c) != 3)
				continue;
			j_obj(name);
			j_u64("bytes", b);
			j_u64("cpus", c);
			j_end();
		}
		j_end();
		return;
	}
	if (v == 0)
		printf("measure:     off (stats latency on|sample N switches it on)\n");
	else if (v > 0)
		printf("measure:     on, one wakeup in %lld tracked on every CPU\n", v);
	if (!mem)
		return;
	printf("histograms: ");
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s %llu %u", name, &b, &c) != 3 || !b)
			continue;
		printf(" %s %llu KiB (%u CPUs)", name, (b + 1023) / 1024, c);
		total += b;
		n++;
	}
	if (n)
		printf(", total %llu KiB\n", (total + 1023) / 1024);
	else
		printf(" none\n");
}

/* Whether `wakeplacectl auto` is in charge, from its state file. */
static void j_auto(void)
{
	struct auto_state a;

	if (auto_state_read(&a)) {
		j_null("auto");
		return;
	}
	j_obj("auto");
	j_i64("pid", a.pid);
	j_bool("running", a.alive);
	j_str("policy", a.policy);
	j_str("phase", a.phase);
	j_str("objective", a.objective);
	j_str("reason", a.reason);
	if (a.cgroup[0])
		j_str("cgroup", a.cgroup);
	else
		j_null("cgroup");
	j_end();
}

static void text_auto(void)
{
	struct auto_state a;

	if (auto_state_read(&a))
		return;
	if (a.alive)
		printf("auto:        in charge%s%s (pid %d): %s, %s, %s: %s\n",
		       a.cgroup[0] ? " of cgroup " : "", a.cgroup, a.pid,
		       a.policy, a.phase, a.objective, a.reason);
	else
		printf("auto:        not running (stale state of pid %d)\n",
		       a.pid);
}

int cmd_status(int argc, char **argv)
{
	struct scx_view scx;
	char ver[64], kern[256], pol[WP_NAME_MAX + 2], shadow[WP_NAME_MAX + 2];
	char state[512], ctr[WP_FILE_MAX], hook[512], period[32], fl[64];
	char mhook[32], scope[4096 + 16];
	bool moving;
	char rel_k[128] = "?", problems[8][600];
	const char *reason = NULL;
	struct utsname u;
	int np = 0, hs, i;
	bool sup = false;
	char *line, *save, *val;
	uint64_t corrected = 0, v;

	if (argc > 1 && !(argc == 2 && !strcmp(argv[1], "show")))
		return usage_err("status takes no arguments ('%s')", argv[1]);
	if (uname(&u))
		strcpy(u.release, "?");
	val = getenv("WAKEPLACE_RELEASE");	/* tests: another machine's */
	if (val && *val)
		snprintf(u.release, sizeof(u.release), "%s", val);
	if (!module_loaded())
		return status_not_loaded(u.release);

#define RD(rel, buf) do {						\
		if (read_attr(rel, buf, sizeof(buf)) < 0)		\
			strcpy(buf, "?");				\
		memmove(buf, trim(buf), strlen(trim(buf)) + 1);		\
	} while (0)
	RD("version", ver);
	RD("kernel", kern);
	RD("policy", pol);
	RD("shadow", shadow);
	read_shadow_scope(scope, sizeof(scope));
	RD("state", state);
	RD("sample_period", period);
#undef RD
	if (read_attr("counters", ctr, sizeof(ctr)) < 0)
		ctr[0] = '\0';
	hs = hook_state(hook, sizeof(hook));
	/* In between, the module says so (the attach runs in a work item). */
	if (read_attr("hook", mhook, sizeof(mhook)) >= 0)
		trim(mhook);
	else
		mhook[0] = '\0';
	moving = !strcmp(mhook, "attaching") || !strcmp(mhook, "detaching");
	scx_read(&scx);

	/* "<release> <flavour>" */
	fl[0] = '\0';
	if (sscanf(kern, "%127s %63s", rel_k, fl) == 2) {
		char rfl[32];

		flavour_of(rel_k, rfl, sizeof(rfl));
		sup = !strcmp(rfl, fl);
		if (!sup)
			snprintf(problems[np++], sizeof(problems[0]),
				 "module built for %s but the kernel is %s; rebuild for this kernel",
				 fl, rel_k);
		if (strcmp(rel_k, u.release))
			snprintf(problems[np++], sizeof(problems[0]),
				 "module reports kernel %s but uname says %s",
				 rel_k, u.release);
	}
	if (!strncmp(state, "reverted", 8)) {
		reason = state + 8;
		while (*reason == ':' || *reason == ' ')
			reason++;
		snprintf(problems[np++], sizeof(problems[0]),
			 "self-protection reverted to stock (%s); check dmesg, then `wakeplacectl policy set NAME`",
			 reason);
	} else if (strcmp(state, "ok")) {
		snprintf(problems[np++], sizeof(problems[0]),
			 "unexpected state '%s'", state);
	}
	if (hs == 0 && strcmp(pol, "stock") && strcmp(mhook, "attaching"))
		snprintf(problems[np++], sizeof(problems[0]),
			 "select_task_rq_fair is not in enabled_functions: the hook is not attached");
	for (line = strtok_r(ctr, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "corrected ", 10) &&
		    !parse_u64(trim(line + 10), &v))
			corrected = v;
	if (corrected)
		snprintf(problems[np++], sizeof(problems[0]),
			 "%llu picks were outside the allowed CPUs and were corrected (a policy bug); see dmesg",
			 (unsigned long long)corrected);

	if (g.json) {
		j_bool("loaded", true);
		j_str("version", ver);
		j_obj("kernel");
		j_str("release", rel_k);
		j_str("flavour", fl);
		j_str("running", u.release);
		j_bool("supported", sup);
		j_end();
		j_str("policy", pol);
		j_str("shadow", shadow);
		j_shadow_scope(scope);
		j_str("state", state);
		if (reason) {
			char rp[WP_NAME_MAX + 2] = "";
			const char *colon = strchr(reason, ':');
			size_t n = colon ? (size_t)(colon - reason) : 0;

			if (n > WP_NAME_MAX)
				n = 0;
			memcpy(rp, reason, n);
			rp[n] = '\0';
			j_obj("reverted");
			j_str("policy", n ? rp : NULL);
			j_str("reason", colon ? trim((char *)colon + 1) : reason);
			j_end();
		} else {
			j_null("reverted");
		}
		scx_print(&scx);
		j_auto();
		j_str("hook", moving ? mhook : hs > 0 ? "attached" :
		      hs == 0 ? "detached" : "unknown");
		j_str("hook_line", hs > 0 ? hook : NULL);
		if (!parse_u64(period, &v))
			j_u64("sample_period", v);
		else
			j_null("sample_period");
		status_latency();
		j_obj("counters");
		if (read_attr("counters", ctr, sizeof(ctr)) < 0)
			ctr[0] = '\0';
		for (line = next_kv(ctr, &save, &val); line;
		     line = next_kv(NULL, &save, &val))
			if (!parse_u64(val, &v))
				j_u64(line, v);
		j_end();
		j_arr("problems");
		for (i = 0; i < np; i++)
			j_str(NULL, problems[i]);
		j_end();
		g.json_keep = true;	/* the document, with its problems */
		return np ? EX_PROBLEM : EX_OK;
	}
	printf("module:      loaded, version %s (%s)\n", ver, g.root);
	printf("kernel:      %s, module flavour %s (%s)\n", rel_k,
	       fl[0] ? fl : "?", sup ? "supported" : "NOT supported");
	printf("policy:      %s\n", pol);
	if (strcmp(shadow, "off") && *scope && strcmp(scope, "none"))
		printf("shadow:      %s, %s\n", shadow, scope_text(scope));
	else
		printf("shadow:      %s\n", shadow);
	printf("state:       %s\n", state);
	text_auto();
	if (!strcmp(mhook, "attaching"))
		printf("hook:        attaching (the kernel places until the attach is done)\n");
	else if (!strcmp(mhook, "detaching"))
		printf("hook:        detaching (waiting for an RCU-tasks grace period)\n");
	else if (hs > 0)
		printf("hook:        attached (%s)\n", hook);
	else if (hs == 0 && !strcmp(pol, "stock") && !strcmp(shadow, "off"))
		printf("hook:        not attached (on stock with no shadow the module registers no hook: the kernel's code runs with no callback)\n");
	else if (hs == 0)
		printf("hook:        not attached (select_task_rq_fair not in enabled_functions)\n");
	else
		printf("hook:        unknown (enabled_functions not readable; mount tracefs, run as root)\n");
	scx_print(&scx);
	printf("sample:      one pick in %s timed\n", period);
	status_latency();
	printf("counters:   ");
	if (read_attr("counters", ctr, sizeof(ctr)) < 0)
		ctr[0] = '\0';
	for (line = next_kv(ctr, &save, &val); line;
	     line = next_kv(NULL, &save, &val))
		if (g.verbose || !strcmp(line, "redirected") ||
		    !strcmp(line, "handed_back") || !strcmp(line, "corrected"))
			printf(" %s %s", line, val);
	printf("\n");
	for (i = 0; i < np; i++)
		printf("problem:     %s\n", problems[i]);
	return np ? EX_PROBLEM : EX_OK;
}

/* ------------------------------------------------------------------------
 * load, unload
 */

/* Split "cmd args" from the environment (or dflt) into av. */
static int split_cmd(const char *env, const char *dflt, char *store,
		     size_t len, char **av, int max)
{
	const char *s = getenv(env);
	char *tok, *save;
	int n = 0;

	snprintf(store, len, "%s", s && *s ? s : dflt);
	for (tok = strtok_r(store, " \t", &save); tok && n < max - 1;
	     tok = strtok_r(NULL, " \t", &save))
		av[n++] = tok;
	av[n] = NULL;
	return n;
}

/* Run av, stdout and stderr into out. Returns the exit status, or -1. */
static int run_cmd(char **av, char *out, size_t len)
{
	size_t got = 0;
	int pfd[2], st, i;
	ssize_t r;
	pid_t pid;

	out[0] = '\0';
	if (g.verbose) {
		fprintf(stderr, "wakeplacectl: run:");
		for (i = 0; av[i]; i++)
			fprintf(stderr, " %s", av[i]);
		fputc('\n', stderr);
	}
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		execvp(av[0], av);
		fprintf(stderr, "cannot run %s: %s\n", av[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		char tmp[512];

		r = read(pfd[0], tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (got + r >= len)
			r = len - 1 - got;
		memcpy(out + got, tmp, r);
		got += r;
	}
	out[got] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (g.verbose && got)
		fprintf(stderr, "wakeplacectl: output: %s", out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Guess the errno from kmod's insmod/modprobe/rmmod message. */
static int output_errno(const char *out)
{
	static const struct {
		const char *text;
		int err;
	} kmod[] = {
		{ "Invalid module format", ENOEXEC },
		{ "Unknown symbol in module", ENOENT },
		{ "Invalid parameters", EINVAL },
		{ "wrong symbol version", ESRCH },
		{ "is in use", EBUSY },
		{ "not currently loaded", ESRCH },
		{ "Key was rejected", EKEYREJECTED },
	};
	static const int errs[] = {
		EBUSY, EEXIST, EPERM, EACCES, ENOKEY, EKEYREJECTED, ENOEXEC,
		ENOMEM, ENODEV, EINVAL, ENOENT, EFAULT, ENOSPC, ETIMEDOUT,
		EAGAIN, EINTR,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kmod); i++)
		if (strstr(out, kmod[i].text))
			return kmod[i].err;
	for (i = 0; i < ARRAY_SIZE(errs); i++)
		if (strstr(out, strerror(errs[i])))
			return errs[i];
	return 0;
}

static const char *first_line(char *out)
{
	char *s = trim(out);

	s[strcspn(s, "\n")] = '\0';
	return s;
}

static int load_failed(const char *tool, char *out, int status)
{
	char log[512], lpart[600] = "";
	int err = output_errno(out);
	const char *why;

	if (status == 127)
		return fail(EX_FAIL, "%s: %s; install kmod or set the command in the environment",
			    tool, first_line(out));
	if (strstr(out, "not found") && !strcmp(tool, "modprobe"))
		return fail(EX_FAIL, "wakeplace is not installed for this kernel (modprobe: not found); pass --ko PATH, e.g. `wakeplacectl load --ko module/wakeplace.ko`");
	if (last_dmesg_line(log, sizeof(log))) {
		why = explain_log(log);
		snprintf(lpart, sizeof(lpart), "; kernel log: %s%s%s", log,
			 why ? " => " : "", why ? why : "");
	}
	switch (err) {
	case EBUSY:
		return fail(EX_FAIL, "%s failed (%s): select_task_rq_fair is already patched by livepatch or another ftrace IPMODIFY user; remove that user (e.g. disable the livepatch) and retry",
			    tool, strerror(err));
	case EEXIST:
		return fail(EX_FAIL, "%s failed (%s): wakeplace is already loaded; `wakeplacectl unload` first",
			    tool, strerror(err));
	case EPERM:
	case EACCES:
	case ENOKEY:
	case EKEYREJECTED:
		return fail(EX_PERM, "%s failed (%s): kernel lockdown or module signature enforcement refused the module, or not root; sign the module or disable Secure Boot/lockdown%s",
			    tool, strerror(err), lpart);
	case ENOEXEC:
		return fail(EX_FAIL, "%s failed (invalid module format): the module was built for another kernel; rebuild it for this kernel%s",
			    tool, lpart);
	case 0:
		return fail(EX_FAIL, "%s failed: %s%s%s", tool, first_line(out),
			    lpart[0] ? "" : "; see `dmesg | grep wakeplace`",
			    lpart);
	default:
		return fail(EX_FAIL, "%s failed (%s)%s%s", tool, strerror(err),
			    lpart[0] ? "" : "; see `dmesg | grep wakeplace`",
			    lpart);
	}
}

static bool wait_loaded(bool want)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int i;

	for (i = 0; i < 100; i++) {
		if (module_loaded() == want)
			return true;
		nanosleep(&ts, NULL);
	}
	return module_loaded() == want;
}

int cmd_load(int argc, char **argv)
{
	char store[WP_ARG_MAX + 1], out[8192], cur[WP_NAME_MAX + 2];
	char *policy = NULL, *ko = NULL, *av[WP_ARG_MAX / 2];
	const char *tool;
	struct wp_policies p;
	int i, n, rc = 0, idx, st;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (opt_match(&i, argc, argv, "--policy", "-P", &policy, &rc) ||
		    opt_match(&i, argc, argv, "--ko", "-k", &ko, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		return usage_err("unknown load argument '%s'; module parameters go after `--`",
				 argv[i]);
	}
	if (policy) {
		rc = check_name(policy, "policy");
		if (rc)
			return rc;
	}
	if (argc - i > 64)
		return usage_err("too many module parameters (%d, at most 64)",
				 argc - i);
	if (module_loaded())
		return fail(EX_FAIL, "wakeplace is already loaded (%s exists); `wakeplacectl unload` first, or switch with `wakeplacectl policy set NAME`",
			    g.root);
	if (geteuid() != 0)
		return fail(EX_PERM, "loading a module needs root; run `sudo wakeplacectl load ...`");
	if (ko && access(ko, R_OK))
		return fail(EX_FAIL, "cannot read module file %s: %s; build it with `make` first",
			    ko, strerror(errno));
	if (ko) {
		tool = "insmod";
		n = split_cmd("WAKEPLACE_INSMOD", "insmod", store, sizeof(store),
			      av, 16);
		av[n++] = ko;
	} else {
		tool = "modprobe";
		n = split_cmd("WAKEPLACE_MODPROBE", "modprobe", store,
			      sizeof(store), av, 16);
		av[n++] = "wakeplace";
	}
	for (; i < argc; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	st = run_cmd(av, out, sizeof(out));
	if (st != 0)
		return load_failed(tool, out, st);
	if (!wait_loaded(true))
		return fail(EX_FAIL, "%s succeeded but %s did not appear; see `dmesg | grep wakeplace`",
			    tool, g.root);
	verbose("module loaded with %s", tool);
	if (g.json) {
		j_bool("loaded", true);
		j_str("command", tool);
	}
	if (policy) {
		rc = load_policies(&p);
		if (rc)
			return rc;
		idx = find_policy(&p, policy);
		if (idx < 0)
			return usage_err("module loaded, but: unknown policy '%s', the default stays active; see `wakeplacectl policy list`",
					 policy);
		return set_policy(policy);
	}
	if (g.json) {
		if (read_attr("policy", cur, sizeof(cur)) < 0)
			j_null("policy");
		else
			j_str("policy", trim(cur));
	}
	return 0;
}

int cmd_unload(int argc, char **argv)
{
	char store[WP_ARG_MAX + 1], out[8192], log[512], *av[20];
	int n, st, err;

	if (argc > 1)
		return usage_err("unload takes no arguments ('%s')", argv[1]);
	if (!module_loaded())
		return fail(EX_NOTLOADED, "wakeplace is not loaded (%s does not exist); nothing to unload",
			    g.root);
	if (geteuid() != 0)
		return fail(EX_PERM, "unloading a module needs root; run `sudo wakeplacectl unload`");
	n = split_cmd("WAKEPLACE_RMMOD", "rmmod", store, sizeof(store), av, 16);
	av[n++] = "wakeplace";
	av[n] = NULL;
	st = run_cmd(av, out, sizeof(out));
	if (st == 127)
		return fail(EX_FAIL, "rmmod: %s; install kmod", first_line(out));
	if (st != 0) {
		err = output_errno(out);
		if (err == EBUSY)
			return fail(EX_FAIL, "rmmod failed: the module is in use; stop what holds it and retry");
		if (err == EPERM || err == EACCES)
			return fail(EX_PERM, "rmmod failed (%s): not root, or module unloading is disabled (lockdown, modules_disabled)",
				    strerror(err));
		if (err == ESRCH)
			return fail(EX_NOTLOADED, "rmmod: wakeplace is not loaded");
		if (last_dmesg_line(log, sizeof(log)))
			return fail(EX_FAIL, "rmmod failed: %s; kernel log: %s",
				    first_line(out), log);
		return fail(EX_FAIL, "rmmod failed: %s; see `dmesg | grep wakeplace`",
			    first_line(out));
	}
	if (!wait_loaded(false))
		return fail(EX_FAIL, "rmmod succeeded but %s is still there",
			    g.root);
	verbose("module unloaded");
	if (g.json)
		j_bool("loaded", false);
	return 0;
}
