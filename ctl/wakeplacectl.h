/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wakeplacectl: control tool for the wakeplace kernel module.
 * Shared declarations of the tool's translation units.
 */
#ifndef WAKEPLACECTL_H
#define WAKEPLACECTL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* WP_CTL_VERSION and the supported kernels: made by scripts/gen-version. */
#include "generated/version.h"

#define WP_DEFAULT_ROOT	"/sys/kernel/wakeplace"
#define WP_NAME_MAX	64	/* longest policy/tunable name accepted */
#define WP_ARG_MAX	4096	/* longest command line argument accepted */
#define WP_MAX_POLICIES	64
#define WP_MAX_TUNABLES	64
#define WP_HIST		32
#define WP_FILE_MAX	16384	/* larger than any sysfs attribute (PAGE) */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Exit codes (documented in wakeplacectl.8, EXIT STATUS). */
enum {
	EX_OK		= 0,
	EX_FAIL		= 1,
	EX_USAGE	= 2,
	EX_NOTLOADED	= 3,
	EX_PERM		= 4,
	EX_PROBLEM	= 5,	/* status: loaded, with a problem to report */
};

struct wp_opts {
	bool json;
	bool pretty;
	bool help;
	bool json_keep;		/* print the JSON document despite rc != 0 */
	bool helped;		/* help text printed: no JSON document */
	int verbose;
	const char *root;	/* sysfs root, WP_DEFAULT_ROOT unless overridden */
};

extern struct wp_opts g;

/* ---- errors (err.c) ---- */
int fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A usage error: fail() with EX_USAGE (the message is checked the same). */
#define usage_err(...)	fail(EX_USAGE, __VA_ARGS__)
int write_err(const char *rel, int err, const char *fix);
int read_err(const char *rel, int err);
void verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *error_message(void);

/* ---- files (files.c) ---- */
double now_mono(void);
int read_path(const char *path, char *buf, size_t len);
int read_attr(const char *rel, char *buf, size_t len);
int read_attr_all(const char *rel, char **buf);
int write_attr(const char *rel, const char *val);
bool module_loaded(void);
int need_module(void);
char *trim(char *s);
char *next_kv(char *buf, char **save, char **val);

/* ---- names, policies, tunables (model.c) ---- */
struct wp_policies {
	int n;
	int active;		/* index into name[], -1 if unknown */
	char name[WP_MAX_POLICIES][WP_NAME_MAX + 1];
};

struct wp_tunable {
	char name[WP_NAME_MAX + 1];
	long long value, min, max;
};

int check_name(const char *name, const char *what);
int load_policies(struct wp_policies *p);
int find_policy(const struct wp_policies *p, const char *name);
int lookup_policy(const struct wp_policies *p, const char *name, int *idx);
int load_tunables(const char *policy, struct wp_tunable *t, int *n);
int parse_ll(const char *s, long long *v);
int parse_u64(const char *s, uint64_t *v);

/* ---- the JSON document, -j (jsondoc.c) ---- */
void json_start(void);
void json_finish(int rc);
void j_obj(const char *key);
void j_arr(const char *key);
void j_end(void);
void j_str(const char *key, const char *val);
void j_u64(const char *key, uint64_t v);
void j_i64(const char *key, long long v);
void j_num(const char *key, double v, int prec);
void j_bool(const char *key, bool v);
void j_null(const char *key);
void j_timestamp(void);

/* ---- option helpers (wakeplacectl.c) ---- */
bool opt_match(int *i, int argc, char **argv, const char *lng,
	       const char *shrt, char **val, int *rc);
bool is_help_word(const char *s);
int parse_num(const char *opt, const char *s, double lo, double hi,
	      bool integer, double *v);
bool num_opt(int *i, int argc, char **argv, const char *lng,
	     const char *shrt, double lo, double hi, bool integer,
	     double *v, int *rc);

/* ---- commands ---- */
int cmd_status(int argc, char **argv);		/* module.c */
int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int last_dmesg_line(char *buf, size_t len);		/* klog.c */
const char *explain_log(const char *line);

int cmd_policy_list(int argc, char **argv);	/* policy.c */
int cmd_policy_show(int argc, char **argv);
int cmd_policy_set(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_shadow_set(int argc, char **argv);
int cmd_shadow_show(int argc, char **argv);
int cmd_shadow_off(int argc, char **argv);
void read_shadow_scope(char *buf, size_t len);
void j_shadow_scope(const char *scope);
const char *scope_text(const char *scope);
int wait_hook(void);
int set_policy(const char *name);

#define WP_CGROUP_CONF	"/etc/wakeplace/cgroups.conf"	/* apply's default */
#define WP_APPLY_WAIT_MAX	3600	/* apply --wait: seconds, at most */
int cgroup_set(const char *name, const char *path);	/* cgroup.c */
int cgroup_list(void);
int cmd_policy_unset(int argc, char **argv);
int cmd_apply(int argc, char **argv);

/* An assignment in effect, as cgroup_entries() lists them (cgroup.c). */
struct cg_assignment {
	uint64_t id;
	char policy[WP_NAME_MAX + 1];
	char state[16];		/* assigned, reverted */
	char path[4096];	/* from the cgroup2 root */
};
int cgroup_arg(const char *arg, char *cg, uint64_t *id);
int cgroup_assign(const char *cg, const char *name);
int cgroup_find(const char *cg, uint64_t *id, char *policy, size_t plen,
		char *state, size_t slen);
int cgroup_entries(struct cg_assignment **out, int *n);

int cmd_stats_show(int argc, char **argv);	/* stats.c */
int cmd_stats_reset(int argc, char **argv);
int cmd_stats_period(int argc, char **argv);
int cmd_stats_latency_sample(int argc, char **argv);
int cmd_stats_latency(int argc, char **argv);
int cgroup_stats_show(int argc, char **argv);	/* cgstats.c */
int cmd_stats_cgroups(int argc, char **argv);
int cmd_watch(int argc, char **argv);		/* watch.c */

int cmd_auto(int argc, char **argv);		/* auto.c */

/* auto's state file (/run/wakeplace/auto.state), as status reads it. */
struct auto_state {
	int pid;
	bool alive;		/* the pid is running */
	char policy[WP_NAME_MAX + 1];
	char phase[16];
	char objective[16];
	char reason[512];
	char cgroup[PATH_MAX];	/* auto --cgroup: the cgroup, else empty */
};
int auto_state_read(struct auto_state *s);

/* ---- help texts (wakeplacectl.c) ---- */
void help_object(const char *obj);

#endif /* WAKEPLACECTL_H */
