// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplace cgroup assignments: a policy per cgroup (v2).  A task's
 * wakeups are placed by the policy of its nearest ancestor cgroup (itself
 * included) that has one, else by the machine-wide (active) policy.
 *
 * Writers (the cgroups file, the removal poll, a revert) work under
 * wp_mutex on wp_cg[], the assignments with their paths, and publish for
 * the wakeup path a read-only table: the assigned cgroups' addresses,
 * sorted, with their policies.  The lookup walks the task's default-
 * hierarchy cgroup's ancestors[] (the kernel keeps them in the cgroup, no
 * pointer chase per level), skipping levels with no assignment, and
 * bisects the table at each level left: no string, no lock, at most
 * depth x log2(64) compares; the table keeps the answers per task, which
 * the probes below make stale when tasks move or are freed.  Addresses
 * are compared, never followed: each assignment holds a reference on its
 * cgroup, dropped only after a grace period once no published table names
 * it, so an address cannot be reused while a reader may still compare
 * with it.
 *
 * A cgroup can be removed while assigned (it has no tasks then): the
 * kernel tells no module, so a poll every second while there are
 * assignments drops those whose cgroup went offline, with one line in the
 * log; the cgroups file keeps saying so (state "removed") for the last
 * WP_CG_GONE of them.
 *
 * The table and its lookup are the registry's (wp_cg_tab,
 * wp_cg_lookup()): the hook and the latency probes, floors below, read
 * them.  So is the shadow's scope (wp_sh_scope, the shadow_cgroup file),
 * which this file keeps: one cgroup, assigned or not, whose tasks' wakeups
 * alone the shadow compares.
 *
 * This file and switch.c are one floor (registry.c): assignments take
 * their policies through the switch's references and hook requests
 * (wp_assign_get(), wp_assign_swap()), and the switch's revert work
 * reverts the assignments of a tripped policy (wp_cg_revert()).
 */
#include <linux/cgroup.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include "registry.h"
#include "switch.h"
#include "stats.h"
#include "cgroup.h"
#include "parse.h"

#define WP_CG_PATH	256	/* longest path kept, NUL included */
#define WP_CG_GONE	16	/* removed assignments still listed */

/* An assignment, as writers keep it (under wp_mutex). */
struct wp_cg_assign {
	struct cgroup *cgrp;		/* a reference of ours */
	struct wakeplace_policy *pol;	/* a reference of ours */
	struct wp_cg_counters __percpu *cnt;
	u64 id;
	u32 serial;			/* unique among the assignments made */
	bool reverted;			/* set to stock by a revert */
	char path[WP_CG_PATH];
};

/* A line of the cgroups file for an assignment whose cgroup is gone. */
struct wp_cg_gone {
	u64 id;
	const char *pol;
	char path[WP_CG_PATH];
};

/*
 * A cgroup reference dropped, and counters freed, once no published table
 * can name them.
 */
struct wp_cg_put {
	struct rcu_head rcu;
	struct cgroup *cgrp;
	struct wp_cg_counters __percpu *cnt;
};

static struct wp_cg_assign wp_cg[WP_CG_MAX];
static unsigned int wp_cg_nr;
static struct wp_cg_gone wp_cg_gone[WP_CG_GONE];	/* oldest first */
static unsigned int wp_cg_gone_nr;
static bool wp_cg_dead;		/* unloading: no more assignments */
static u32 wp_cg_serial;		/* the last serial given */

static void wp_cg_poll(struct work_struct *work);
static DECLARE_DELAYED_WORK(wp_cg_poll_work, wp_cg_poll);

/*
 * The lookup's cache (registry.c) keeps answers per task and css_set,
 * which only holds while it is told of tasks moved between cgroups and of
 * tasks freed: probes on the cgroup_attach_task and sched_process_free
 * tracepoints, registered while there is a table and unregistered when
 * there is none.  A work does both, outside wp_mutex: registering waits
 * for the CPU hotplug lock (static keys), which a writer of the cgroups
 * file must not wait for.  Until it has run, the lookups are uncached
 * (the generation is odd).
 */
static struct tracepoint *wp_tp_attach, *wp_tp_free;
static bool wp_cgc_want;	/* a table is published (wp_mutex) */
static bool wp_cgc_on;		/* the probes are registered (wp_cgc_mutex) */
static DEFINE_MUTEX(wp_cgc_mutex);
static void wp_cgc_work_fn(struct work_struct *work);
static DECLARE_WORK(wp_cgc_work, wp_cgc_work_fn);

/*
 * Tasks were moved to @dst_cgrp (@task, or its whole thread group): the
 * kernel has switched their css_sets, and the ones they left may be
 * freed.  No answer kept so far holds.
 */
static notrace void wp_cgc_probe_attach(void *data, struct cgroup *dst_cgrp,
					const char *path,
					struct task_struct *task,
					bool threadgroup)
{
	wp_test_count(WP_C_PROBE_HITS);
	smp_mb__before_atomic();	/* the moves before the new generation */
	atomic_long_add(2, &wp_cg_gen);
}

/* @p is freed next: a task may come back at its address. */
static notrace void wp_cgc_probe_free(void *data, struct task_struct *p)
{
	struct wp_cg_table *t;

	wp_test_count(WP_C_PROBE_HITS);
	rcu_read_lock_sched_notrace();
	t = rcu_dereference_sched(wp_cg_tab);
	if (t)
		wp_cg_slot_drop(t, p);
	rcu_read_unlock_sched_notrace();
}

static void wp_cgc_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "cgroup_attach_task"))
		wp_tp_attach = tp;
	else if (!strcmp(tp->name, "sched_process_free"))
		wp_tp_free = tp;
}

static void wp_cgc_work_fn(struct work_struct *work)
{
	int ret = -ENOENT;

	mutex_lock(&wp_cgc_mutex);
	if (READ_ONCE(wp_cgc_want) == wp_cgc_on)
		goto out;
	if (wp_cgc_on) {
		/* Even to odd: off before the moves go untold. */
		atomic_long_inc(&wp_cg_gen);
		tracepoint_probe_unregister(wp_tp_attach, wp_cgc_probe_attach,
					    NULL);
		tracepoint_probe_unregister(wp_tp_free, wp_cgc_probe_free,
					    NULL);
		tracepoint_synchronize_unregister();
		wp_cgc_on = false;
		goto out;
	}
	if (!wp_tp_attach || !wp_tp_free)
		for_each_kernel_tracepoint(wp_cgc_find_tp, NULL);
	if (wp_tp_attach && wp_tp_free)
		ret = tracepoint_probe_register(wp_tp_free, wp_cgc_probe_free,
						NULL);
	if (!ret) {
		ret = tracepoint_probe_register(wp_tp_attach,
						wp_cgc_probe_attach, NULL);
		if (ret) {
			tracepoint_probe_unregister(wp_tp_free,
						    wp_cgc_probe_free, NULL);
			tracepoint_synchronize_unregister();
		}
	}
	if (ret) {
		pr_warn_once("wakeplace: no probes on cgroup_attach_task and sched_process_free (%d): cgroup lookups are not cached\n",
			     ret);
		goto out;
	}
	wp_cgc_on = true;
	/* Odd to even: on, with every answer kept before stale. */
	atomic_long_inc(&wp_cg_gen);
out:
	mutex_unlock(&wp_cgc_mutex);
}

/* A table for wp_cg[] as it will be (its cache empty); NULL on no memory. */
static struct wp_cg_table *wp_cg_table_alloc(gfp_t gfp)
{
	BUILD_BUG_ON(sizeof(struct wp_cg_table) > PAGE_SIZE);
	return kzalloc(sizeof(struct wp_cg_table), gfp);
}

/*
 * Fill @t from wp_cg[] and publish it (NULL and freed when there is no
 * assignment left); the old table is freed after a grace period.
 */
static void wp_cg_publish(struct wp_cg_table *t)
{
	struct wp_cg_table *old;
	unsigned int i, j;

	lockdep_assert_held(&wp_mutex);
	if (!wp_cg_nr) {
		kfree(t);
		t = NULL;
	} else {
		t->nr = wp_cg_nr;
		t->levels = 0;
		t->max_level = 0;
		/* Insertion sort by address: at most 64 entries. */
		for (i = 0; i < wp_cg_nr; i++) {
			struct cgroup *cg = wp_cg[i].cgrp;

			for (j = i; j && (unsigned long)t->cg[j - 1] >
					 (unsigned long)cg; j--) {
				t->cg[j] = t->cg[j - 1];
				t->pol[j] = t->pol[j - 1];
				t->cnt[j] = t->cnt[j - 1];
				t->serial[j] = t->serial[j - 1];
			}
			t->cg[j] = cg;
			t->pol[j] = wp_cg[i].pol;
			t->cnt[j] = wp_cg[i].cnt;
			t->serial[j] = wp_cg[i].serial;
			t->levels |= wp_cg_level_bit(cg->level);
			t->max_level = max(t->max_level, cg->level);
		}
	}
	old = rcu_dereference_protected(wp_cg_tab, lockdep_is_held(&wp_mutex));
	rcu_assign_pointer(wp_cg_tab, t);
	if (old)
		kfree_rcu(old, rcu);
	/* The cache's probes while there is a table (wp_cg_exit() waits). */
	if (!old != !t) {
		WRITE_ONCE(wp_cgc_want, !!t);
		schedule_work(&wp_cgc_work);
	}
}

static void wp_cg_put_rcu(struct rcu_head *rcu)
{
	struct wp_cg_put *req = container_of(rcu, struct wp_cg_put, rcu);

	cgroup_put(req->cgrp);
	free_percpu(req->cnt);
	kfree(req);
}

/*
 * Drop @a's reference on its cgroup and free its counters after a grace
 * period: a reader of the table just replaced may still compare with the
 * cgroup's address and count into them.
 */
static void wp_cg_put_later(struct wp_cg_assign *a)
{
	struct wp_cg_put *req = kmalloc(sizeof(*req), GFP_KERNEL);

	if (!req) {
		synchronize_rcu();
		cgroup_put(a->cgrp);
		free_percpu(a->cnt);
		return;
	}
	req->cgrp = a->cgrp;
	req->cnt = a->cnt;
	call_rcu(&req->rcu, wp_cg_put_rcu);
}

static int wp_cg_index(struct cgroup *cgrp)
{
	unsigned int i;

	for (i = 0; i < wp_cg_nr; i++)
		if (wp_cg[i].cgrp == cgrp)
			return i;
	return -1;
}

/* Is @path the path of a live assignment? */
static bool wp_cg_path_live(const char *path)
{
	unsigned int i;

	for (i = 0; i < wp_cg_nr; i++)
		if (!strcmp(wp_cg[i].path, path))
			return true;
	return false;
}

static void wp_cg_gone_drop(const char *path)
{
	unsigned int i;

	for (i = 0; i < wp_cg_gone_nr; i++) {
		if (strcmp(wp_cg_gone[i].path, path))
			continue;
		memmove(&wp_cg_gone[i], &wp_cg_gone[i + 1],
			(wp_cg_gone_nr - i - 1) * sizeof(wp_cg_gone[0]));
		wp_cg_gone_nr--;
		return;
	}
}

/*
 * Take entry @i out of wp_cg[] (not yet published), keeping the others in
 * the order they were made; it keeps its references.
 */
static struct wp_cg_assign wp_cg_take(unsigned int i)
{
	struct wp_cg_assign a = wp_cg[i];

	wp_cg_nr--;
	memmove(&wp_cg[i], &wp_cg[i + 1], (wp_cg_nr - i) * sizeof(wp_cg[0]));
	return a;
}

static bool wp_sh_scope_live(void);

/* Keep the poll running while there are assignments or a live scope. */
static void wp_cg_poll_arm(void)
{
	if ((wp_cg_nr || wp_sh_scope_live()) && !wp_cg_dead)
		schedule_delayed_work(&wp_cg_poll_work, HZ);
}

/*
 * The next assignment's serial number: never 0 (a slot's "no assignment")
 * and, once the counter wrapped, never one a live assignment still has
 * (a tracked wakeup would count to the wrong one).
 */
static void wp_cg_next_serial(void)
{
	unsigned int i;

again:
	if (!++wp_cg_serial)
		++wp_cg_serial;
	for (i = 0; i < wp_cg_nr; i++)
		if (wp_cg[i].serial == wp_cg_serial)
			goto again;
}

static int wp_cg_assign_locked(struct cgroup *cgrp, const char *path,
			       struct wakeplace_policy *pol)
{
	struct wp_cg_counters __percpu *cnt = NULL;
	struct wakeplace_policy *old = NULL;
	struct wp_cg_table *t;
	int i, ret;

	i = wp_cg_index(cgrp);
	if (i >= 0 && wp_cg[i].pol == pol && !wp_cg[i].reverted)
		return 0;
	if (i < 0 && wp_cg_nr == WP_CG_MAX)
		return -ENOSPC;
	t = wp_cg_table_alloc(GFP_KERNEL);
	if (i < 0)
		cnt = alloc_percpu(struct wp_cg_counters);
	if (!t || (i < 0 && !cnt)) {
		kfree(t);
		free_percpu(cnt);
		return -ENOMEM;
	}
	ret = wp_assign_get(pol);
	if (ret) {
		kfree(t);
		free_percpu(cnt);
		return ret;
	}
	if (i >= 0) {
		old = wp_cg[i].pol;
		wp_cg[i].pol = pol;
		wp_cg[i].reverted = false;
	} else {
		wp_cg_next_serial();
		i = wp_cg_nr++;
		cgroup_get(cgrp);
		wp_cg[i] = (struct wp_cg_assign){
			.cgrp = cgrp, .pol = pol, .cnt = cnt,
			.id = cgroup_id(cgrp), .serial = wp_cg_serial,
		};
		strscpy(wp_cg[i].path, path, sizeof(wp_cg[i].path));
	}
	wp_cg_gone_drop(wp_cg[i].path);
	wp_cg_publish(t);
	wp_assign_swap(old, pol);
	this_cpu_inc(wp_counters.c[WP_C_CG_CHANGES]);
	wp_cg_poll_arm();
	return 0;
}

static int wp_cg_unset_locked(struct cgroup *cgrp)
{
	struct wp_cg_table *t;
	struct wp_cg_assign a;
	int i = wp_cg_index(cgrp);

	if (i < 0)
		return -ENOENT;
	t = wp_cg_table_alloc(GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	a = wp_cg_take(i);
	wp_cg_publish(t);
	wp_assign_swap(a.pol, NULL);
	wp_cg_put_later(&a);
	this_cpu_inc(wp_counters.c[WP_C_CG_CHANGES]);
	return 0;
}

/* Every assignment goes (clear, unload); the removed lines too. */
static void wp_cg_clear_locked(void)
{
	unsigned int i, n = wp_cg_nr;

	if (n)
		this_cpu_inc(wp_counters.c[WP_C_CG_CHANGES]);
	wp_cg_nr = 0;
	wp_cg_gone_nr = 0;
	wp_cg_publish(NULL);
	for (i = 0; i < n; i++) {
		wp_assign_swap(wp_cg[i].pol, NULL);
		wp_cg_put_later(&wp_cg[i]);
	}
}

/*
 * The cgroup at @in (a path from the cgroup2 root, as the cgroups file
 * takes it), referenced, into *@cgrp; @in normalised into @path
 * (WP_CG_PATH bytes).  Sleeps and takes the kernel's cgroup locks: call it
 * before taking wp_mutex.
 */
static int wp_cg_get(const char *in, char *path, struct cgroup **cgrp)
{
	struct cgroup *cg;
	int ret = wp_parse_cgroup_path(in, path, WP_CG_PATH);

	if (ret)
		return ret;
	cg = cgroup_get_from_path(path);
	if (IS_ERR(cg))
		return PTR_ERR(cg);
	*cgrp = cg;
	return 0;
}

/*
 * A command written to cgroups or shadow_cgroup: copied into *@cmd, with
 * *@line the copy without the whitespace around it (a trailing newline),
 * and *@path a WP_CG_PATH buffer for the path it names.  The caller frees
 * *@cmd and *@path (kfree), whatever this returns.
 */
static int wp_cg_cmd(const char *buf, char **cmd, char **line, char **path)
{
	*cmd = kstrdup(buf, GFP_KERNEL);
	*path = kmalloc(WP_CG_PATH, GFP_KERNEL);
	if (!*cmd || !*path)
		return -ENOMEM;
	*line = strim(*cmd);
	return 0;
}

/**
 * wp_cg_write() - one command written to the cgroups file.
 * @buf: "PATH POLICY" (assign; PATH from the cgroup2 root), "PATH unset",
 *	or "clear"; a trailing newline is allowed.
 *
 * Return: 0; -EINVAL (format, unknown policy), -ENOENT (no such cgroup,
 * or none assigned for unset), -ENOTDIR, -ENAMETOOLONG, -ENOSPC (table
 * full), -ENOMEM, -ENODEV (unloading), or the policy's or hook's error.
 */
int wp_cg_write(const char *buf)
{
	char *cmd, *line, *path, *name, *sp;
	struct wakeplace_policy *pol = NULL;
	struct cgroup *cgrp;
	int ret;

	ret = wp_cg_cmd(buf, &cmd, &line, &path);
	if (ret)
		goto out;
	if (!strcmp(line, "clear")) {
		mutex_lock(&wp_mutex);
		ret = wp_cg_dead ? -ENODEV : 0;
		if (!ret)
			wp_cg_clear_locked();
		mutex_unlock(&wp_mutex);
		goto out;
	}
	sp = strrchr(line, ' ');
	if (!sp) {
		ret = -EINVAL;
		goto out;
	}
	*sp = '\0';
	name = sp + 1;
	if (strcmp(name, "unset")) {
		pol = wp_policy_find(name);
		if (!pol) {
			ret = -EINVAL;
			goto out;
		}
	}
	ret = wp_cg_get(strim(line), path, &cgrp);
	if (ret)
		goto out;
	mutex_lock(&wp_mutex);
	if (wp_cg_dead)
		ret = -ENODEV;
	else if (!(READ_ONCE(cgrp->self.flags) & CSS_ONLINE))
		ret = -ENOENT;		/* being removed */
	else if (pol)
		ret = wp_cg_assign_locked(cgrp, path, pol);
	else
		ret = wp_cg_unset_locked(cgrp);
	mutex_unlock(&wp_mutex);
	cgroup_put(cgrp);
out:
	kfree(path);
	kfree(cmd);
	return ret;
}

/**
 * wp_cg_show() - the cgroups file: "ID POLICY STATE PATH" per line.
 * @buf: the buffer.
 * @size: its size.
 *
 * Assignments in the order they were made (state "assigned", or
 * "reverted" when a revert set them to stock), then the removed ones,
 * oldest first.
 *
 * Return: bytes written.
 */
ssize_t wp_cg_show(char *buf, size_t size)
{
	size_t n = 0;
	unsigned int i;

	mutex_lock(&wp_mutex);
	for (i = 0; i < wp_cg_nr; i++)
		n += scnprintf(buf + n, size - n, "%llu %s %s %s\n",
			       wp_cg[i].id, wp_cg[i].pol->name,
			       wp_cg[i].reverted ? "reverted" : "assigned",
			       wp_cg[i].path);
	for (i = 0; i < wp_cg_gone_nr; i++)
		n += scnprintf(buf + n, size - n, "%llu %s removed %s\n",
			       wp_cg_gone[i].id, wp_cg_gone[i].pol,
			       wp_cg_gone[i].path);
	mutex_unlock(&wp_mutex);
	return n;
}

/* The names of enum wp_cg_count, for the cgroup_stats file. */
#define WP_CGC_OUT_NAME(v, e, name, col, tag, desc)	#name
static const char * const wp_cgc_names[WP_CGC_NR] = {
	"wakeups", "redirected", "handed_back", WP_OUTCOMES(WP_CGC_OUT_NAME),
	"tracked", "unplaced", "stacked", "missed_idle", "double_picks",
};

/**
 * wp_cg_stats_show() - the cgroup_stats file: per assignment, in the
 * order of the cgroups file, "ID" then "key value" pairs on one line.
 * @buf: the buffer.
 * @size: its size.
 *
 * Counters are summed over CPUs at read time (not an atomic snapshot) and
 * live as long as the assignment: a new policy for the same cgroup keeps
 * them, unset and clear drop them.
 *
 * Return: bytes written.
 */
ssize_t wp_cg_stats_show(char *buf, size_t size)
{
	u64 sum[WP_CGC_NR];
	size_t n = 0;
	unsigned int i, k;
	int cpu;

	mutex_lock(&wp_mutex);
	for (i = 0; i < wp_cg_nr; i++) {
		memset(sum, 0, sizeof(sum));
		for_each_possible_cpu(cpu) {
			const struct wp_cg_counters *c =
				per_cpu_ptr(wp_cg[i].cnt, cpu);

			for (k = 0; k < WP_CGC_NR; k++)
				sum[k] += READ_ONCE(c->v[k]);
		}
		n += scnprintf(buf + n, size - n, "%llu", wp_cg[i].id);
		for (k = 0; k < WP_CGC_NR; k++)
			n += scnprintf(buf + n, size - n, " %s %llu",
				       wp_cgc_names[k], sum[k]);
		n += scnprintf(buf + n, size - n, "\n");
	}
	mutex_unlock(&wp_mutex);
	return n;
}

/**
 * wp_cg_lat_show() - the cgroup_latency_hist file: per assignment, in the
 * order of the cgroups file, "ID L6ns;IDX:COUNT;..." (latency_hist's text
 * form), each count at the middle index of the run of buckets it stands
 * for.
 * @buf: the buffer.
 * @size: its size.
 *
 * Return: bytes written.
 */
ssize_t wp_cg_lat_show(char *buf, size_t size)
{
	u64 *sum;
	size_t n = 0;
	unsigned int i, k;
	int cpu;

	sum = kmalloc_array(WP_CG_LAT_BUCKETS, sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	mutex_lock(&wp_mutex);
	for (i = 0; i < wp_cg_nr; i++) {
		memset(sum, 0, WP_CG_LAT_BUCKETS * sizeof(*sum));
		for_each_possible_cpu(cpu) {
			const struct wp_cg_counters *c =
				per_cpu_ptr(wp_cg[i].cnt, cpu);

			for (k = 0; k < WP_CG_LAT_BUCKETS; k++)
				sum[k] += READ_ONCE(c->lat[k]);
		}
		n += scnprintf(buf + n, size - n, "%llu %s", wp_cg[i].id,
			       WP_LAT_TAG);
		for (k = 0; k < WP_CG_LAT_BUCKETS; k++)
			if (sum[k])
				n += scnprintf(buf + n, size - n, ";%u:%llu",
					       (k << WP_CG_LAT_SHIFT) +
					       (1U << WP_CG_LAT_SHIFT) / 2,
					       sum[k]);
		n += scnprintf(buf + n, size - n, "\n");
	}
	mutex_unlock(&wp_mutex);
	kfree(sum);
	return n;
}

/* Put a scope's cgroup and free it once no hook can read it. */
static void wp_sh_scope_free_rcu(struct rcu_head *rcu)
{
	struct wp_shadow_scope *sc = container_of(rcu, struct wp_shadow_scope,
						  rcu);

	if (sc->cg)
		cgroup_put(sc->cg);
	kfree(sc);
}

/* The scope's path, as written; meaningful while wp_sh_scope is set. */
static char wp_sh_path[WP_CG_PATH];

/* Publish @sc (NULL: no scope); the old one goes after a grace period. */
static void wp_sh_scope_publish(struct wp_shadow_scope *sc)
{
	struct wp_shadow_scope *old;

	lockdep_assert_held(&wp_mutex);
	old = rcu_dereference_protected(wp_sh_scope,
					lockdep_is_held(&wp_mutex));
	rcu_assign_pointer(wp_sh_scope, sc);
	if (old)
		call_rcu(&old->rcu, wp_sh_scope_free_rcu);
}

/* Is the shadow scoped to a cgroup that still exists (the poll's job)? */
static bool wp_sh_scope_live(void)
{
	struct wp_shadow_scope *sc;

	sc = rcu_dereference_protected(wp_sh_scope,
				       lockdep_is_held(&wp_mutex));
	return sc && sc->cg;
}

/**
 * wp_cg_shadow_write() - the shadow_cgroup file: scope the shadow to one
 * cgroup's wakeups.
 * @buf: a cgroup path (from the cgroup2 root, as in the cgroups file), or
 *	"none"; a trailing newline is allowed.
 *
 * Return: 0; -EINVAL (format), -ENOENT (no such cgroup, or one being
 * removed), -ENOTDIR, -ENAMETOOLONG, -ENOMEM, or -ENODEV (unloading).
 */
int wp_cg_shadow_write(const char *buf)
{
	struct wp_shadow_scope *sc = NULL;
	struct cgroup *cgrp = NULL;
	char *cmd, *line, *path;
	int ret;

	ret = wp_cg_cmd(buf, &cmd, &line, &path);
	if (ret)
		goto out;
	if (strcmp(line, "none")) {
		sc = kzalloc(sizeof(*sc), GFP_KERNEL);
		if (!sc) {
			ret = -ENOMEM;
			goto out;
		}
		ret = wp_cg_get(line, path, &cgrp);
		if (ret)
			goto out;
	}
	mutex_lock(&wp_mutex);
	if (wp_cg_dead) {
		ret = -ENODEV;
	} else if (cgrp && !(READ_ONCE(cgrp->self.flags) & CSS_ONLINE)) {
		ret = -ENOENT;		/* being removed */
	} else {
		ret = 0;
		if (sc) {
			sc->cg = cgrp;
			sc->level = cgrp->level;
			cgrp = NULL;		/* the scope's reference now */
			strscpy(wp_sh_path, path, sizeof(wp_sh_path));
		}
		wp_sh_scope_publish(sc);
		sc = NULL;
		wp_cg_poll_arm();
	}
	mutex_unlock(&wp_mutex);
out:
	if (cgrp)
		cgroup_put(cgrp);
	kfree(sc);
	kfree(path);
	kfree(cmd);
	return ret;
}

/**
 * wp_cg_shadow_show() - the shadow_cgroup file: "none", the path, or
 * "removed PATH".
 * @buf: a sysfs page.
 *
 * Return: bytes written.
 */
ssize_t wp_cg_shadow_show(char *buf)
{
	struct wp_shadow_scope *sc;
	ssize_t n;

	mutex_lock(&wp_mutex);
	sc = rcu_dereference_protected(wp_sh_scope,
				       lockdep_is_held(&wp_mutex));
	if (!sc)
		n = sysfs_emit(buf, "none\n");
	else
		n = sysfs_emit(buf, "%s%s\n", sc->cg ? "" : "removed ",
			       wp_sh_path);
	mutex_unlock(&wp_mutex);
	return n;
}

/*
 * The scope's cgroup was removed: the shadow compares nothing until a new
 * scope is written (widening it to every wakeup would be a surprise).
 */
static void wp_sh_scope_poll(void)
{
	struct wp_shadow_scope *sc, *gone;

	sc = rcu_dereference_protected(wp_sh_scope,
				       lockdep_is_held(&wp_mutex));
	if (!sc || !sc->cg || (READ_ONCE(sc->cg->self.flags) & CSS_ONLINE))
		return;
	gone = kzalloc(sizeof(*gone), GFP_KERNEL);
	if (!gone)
		return;		/* try again next time */
	pr_info("wakeplace: cgroup %s was removed: the shadow compares nothing until shadow_cgroup is set again\n",
		wp_sh_path);
	wp_sh_scope_publish(gone);
}

/*
 * Drop the assignments whose cgroup was removed.  The kernel takes a
 * cgroup offline (clears CSS_ONLINE) when it is removed; our reference
 * only keeps its memory.
 */
static void wp_cg_poll(struct work_struct *work)
{
	struct wp_cg_table *t;
	unsigned int i;

	mutex_lock(&wp_mutex);
	if (wp_cg_dead)
		goto out;
	wp_sh_scope_poll();
	t = wp_cg_table_alloc(GFP_KERNEL);
	if (!t)
		goto arm;	/* try again next time */
	for (i = wp_cg_nr; i-- > 0;) {
		struct wp_cg_assign a;
		struct wp_cg_gone *g;

		if (READ_ONCE(wp_cg[i].cgrp->self.flags) & CSS_ONLINE)
			continue;
		a = wp_cg_take(i);
		pr_info("wakeplace: cgroup %s was removed: its assignment to %s is gone\n",
			a.path, a.pol->name);
		/* Its path assigned again (a new cgroup of that name): no line. */
		if (wp_cg_path_live(a.path))
			goto publish;
		if (wp_cg_gone_nr == WP_CG_GONE) {
			memmove(&wp_cg_gone[0], &wp_cg_gone[1],
				(WP_CG_GONE - 1) * sizeof(wp_cg_gone[0]));
			wp_cg_gone_nr--;
		}
		g = &wp_cg_gone[wp_cg_gone_nr++];
		g->id = a.id;
		g->pol = a.pol->name;
		strscpy(g->path, a.path, sizeof(g->path));
publish:
		/* Publish before the swap puts the policy: one table each. */
		wp_cg_publish(t);
		wp_assign_swap(a.pol, NULL);
		wp_cg_put_later(&a);
		this_cpu_inc(wp_counters.c[WP_C_CG_REMOVED]);
		t = wp_cg_table_alloc(GFP_KERNEL);
		if (!t)
			goto arm;
	}
	kfree(t);
arm:
	wp_cg_poll_arm();
out:
	mutex_unlock(&wp_mutex);
}

/**
 * wp_cg_revert() - set to stock the assignments of @pol, a policy that
 * tripped self-protection, or (@pol NULL) of every policy that needs the
 * hook, which could not attach.
 * @pol: the tripped policy, or NULL.
 * @why: the reason, for the log.
 *
 * Under wp_mutex.  The assignments stay, on stock (state "reverted"), so
 * that an assigned ancestor does not take their tasks over.  The caller
 * counts the event in counters/reverted, once whatever it reverted.
 *
 * Return: whether any assignment was reverted.
 */
bool wp_cg_revert(struct wakeplace_policy *pol, const char *why)
{
	struct wakeplace_policy *old[WP_CG_MAX];
	unsigned int i, n = 0;

	lockdep_assert_held(&wp_mutex);
	for (i = 0; i < wp_cg_nr; i++) {
		struct wakeplace_policy *p = wp_cg[i].pol;

		if (!p->select_cpu || (pol && p != pol))
			continue;
		/* Stock has no init and needs no hook: this cannot fail. */
		if (wp_assign_get(&wp_policy_stock))
			continue;
		pr_warn("wakeplace: cgroup %s: policy %s reverted to stock: %s\n",
			wp_cg[i].path, p->name, why);
		old[n++] = p;
		wp_cg[i].pol = &wp_policy_stock;
		wp_cg[i].reverted = true;
	}
	if (!n)
		return false;
	wp_cg_publish(wp_cg_table_alloc(GFP_KERNEL | __GFP_NOFAIL));
	for (i = 0; i < n; i++)
		wp_assign_swap(old[i], &wp_policy_stock);
	return true;
}

/**
 * wp_cg_exit() - unload: stop the poll, drop every assignment.  Their
 * policies and cgroups are put after a grace period (wp_switch_drain()
 * waits for them).
 */
void wp_cg_exit(void)
{
	mutex_lock(&wp_mutex);
	wp_cg_dead = true;
	mutex_unlock(&wp_mutex);
	cancel_delayed_work_sync(&wp_cg_poll_work);
	mutex_lock(&wp_mutex);
	wp_cg_clear_locked();
	wp_sh_scope_publish(NULL);
	mutex_unlock(&wp_mutex);
	/* The table is gone: the work unregisters the cache's probes. */
	flush_work(&wp_cgc_work);
}
