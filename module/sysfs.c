// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/wakeplace: see docs/sysfs-kernel-wakeplace.
 *
 * Every write takes full effect or fails with -EINVAL (or the policy's
 * init error) and changes nothing.
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/ctype.h>
#include <linux/mutex.h>
#include <linux/moduleparam.h>
#include <linux/delay.h>
#include <linux/utsname.h>
#include "registry.h"
#include "compat.h"
#include "hook.h"
#include "switch.h"
#include "sysfs.h"
#include "idle.h"
#include "stats.h"
#include "latency.h"
#include "parse.h"
#include "cgroup.h"

static struct kobject *wp_kobj, *wp_stats_kobj, *wp_pol_kobj;
static struct kobject *wp_lat_kobj, *wp_lathist_kobj;

static ssize_t version_show(struct kobject *k, struct kobj_attribute *a,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", WP_VERSION);
}

static ssize_t kernel_show(struct kobject *k, struct kobj_attribute *a,
			   char *buf)
{
	return sysfs_emit(buf, "%s %s\n", init_utsname()->release, WP_FLAVOUR);
}

static ssize_t available_policies_show(struct kobject *k,
				       struct kobj_attribute *a, char *buf)
{
	const char *cur;
	unsigned int i;
	int len = 0;

	mutex_lock(&wp_mutex);
	cur = wp_active_name();
	for (i = 0; i < wp_nr_policies; i++) {
		const char *n = wp_policies[i]->name;

		len += sysfs_emit_at(buf, len, i ? " " : "");
		len += sysfs_emit_at(buf, len, strcmp(n, cur) ? "%s" : "[%s]",
				     n);
	}
	mutex_unlock(&wp_mutex);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

/* One name or word under wp_mutex, so it is never read mid-switch. */
static ssize_t wp_show_locked(char *buf, const char *(*get)(void))
{
	ssize_t ret;

	mutex_lock(&wp_mutex);
	ret = sysfs_emit(buf, "%s\n", get());
	mutex_unlock(&wp_mutex);
	return ret;
}

/* One policy name from @buf, then @set (wp_set_policy or wp_set_shadow). */
static ssize_t wp_store_name(const char *buf, size_t count,
			     int (*set)(const char *name))
{
	char name[WP_NAME_MAX];
	int ret = wp_parse_token(buf, count, name, sizeof(name));

	if (!ret)
		ret = set(name);
	return ret ? ret : count;
}

static ssize_t policy_show(struct kobject *k, struct kobj_attribute *a,
			   char *buf)
{
	return wp_show_locked(buf, wp_active_name);
}

static ssize_t policy_store(struct kobject *k, struct kobj_attribute *a,
			    const char *buf, size_t count)
{
	return wp_store_name(buf, count, wp_set_policy);
}

static ssize_t shadow_show(struct kobject *k, struct kobj_attribute *a,
			   char *buf)
{
	return wp_show_locked(buf, wp_shadow_name);
}

static ssize_t shadow_store(struct kobject *k, struct kobj_attribute *a,
			    const char *buf, size_t count)
{
	return wp_store_name(buf, count, wp_set_shadow);
}

static ssize_t state_show(struct kobject *k, struct kobj_attribute *a,
			  char *buf)
{
	return wp_show_locked(buf, wp_state);
}

static ssize_t counters_show(struct kobject *k, struct kobj_attribute *a,
			     char *buf)
{
	int i, len = 0;

	/* Lock-free (stats.c), so readers never delay a switch or a revert. */
	for (i = 0; i < WP_C_NR; i++)
		len += sysfs_emit_at(buf, len, "%s %llu\n", wp_counter_names[i],
				     wp_counter_sum(i));
	return len;
}

#ifdef WAKEPLACE_TEST
/* Test builds only: a reset holds wp_mutex this long, to show who waits. */
static unsigned int test_hold_mutex_ms;
module_param(test_hold_mutex_ms, uint, 0644);
MODULE_PARM_DESC(test_hold_mutex_ms, "TEST BUILD: stats/reset holds wp_mutex this long (ms)");

static void wp_test_hold_mutex(void)
{
	unsigned int ms = READ_ONCE(test_hold_mutex_ms);

	if (ms)
		msleep(min(ms, 60000U));
}
#else
static inline void wp_test_hold_mutex(void) { }
#endif

#ifdef WAKEPLACE_TEST
/* Test builds only: the CPUs the idle masks hold. */
static ssize_t idle_mask_show(struct kobject *k, struct kobj_attribute *a,
			      char *buf)
{
	return wp_idle_mask_show(buf);
}
#endif

static ssize_t hook_show(struct kobject *k, struct kobj_attribute *a,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", wp_hook_state());
}

static ssize_t last_switch_show(struct kobject *k, struct kobj_attribute *a,
				char *buf)
{
	return wp_last_switch_show(buf);
}

static ssize_t sample_period_show(struct kobject *k, struct kobj_attribute *a,
				  char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(wp_sample_period));
}

static ssize_t sample_period_store(struct kobject *k, struct kobj_attribute *a,
				   const char *buf, size_t count)
{
	int v, ret = wp_parse_int(buf, count, 1, 65536, &v);

	if (ret)
		return ret;
	WRITE_ONCE(wp_sample_period, v);
	return count;
}

static ssize_t latency_sample_show(struct kobject *k,
				   struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(wp_lat_period));
}

static ssize_t latency_sample_store(struct kobject *k,
				    struct kobj_attribute *a, const char *buf,
				    size_t count)
{
	int v, ret = wp_parse_int(buf, count, 0, WP_LAT_PERIOD_MAX, &v);

	if (ret)
		return ret;
	mutex_lock(&wp_mutex);
	ret = wp_lat_set_period(v);
	mutex_unlock(&wp_mutex);
	return ret ? ret : count;
}

/* Per policy: bytes of latency histograms and CPUs they cover. */
static ssize_t latency_mem_show(struct kobject *k, struct kobj_attribute *a,
				char *buf)
{
	unsigned int i, ncpus;
	int len = 0;
	size_t b;

	mutex_lock(&wp_mutex);
	for (i = 0; i < wp_nr_policies; i++) {
		b = wp_lat_mem(wp_policies[i], &ncpus);
		len += sysfs_emit_at(buf, len, "%s %zu %u\n",
				     wp_policies[i]->name, b, ncpus);
	}
	mutex_unlock(&wp_mutex);
	return len;
}

static ssize_t cgroups_max_show(struct kobject *k, struct kobj_attribute *a,
				char *buf)
{
	return sysfs_emit(buf, "%u\n", WP_CG_MAX);
}

static ssize_t shadow_cgroup_show(struct kobject *k, struct kobj_attribute *a,
				  char *buf)
{
	return wp_cg_shadow_show(buf);
}

static ssize_t shadow_cgroup_store(struct kobject *k,
				   struct kobj_attribute *a,
				   const char *buf, size_t count)
{
	int ret = wp_cg_shadow_write(buf);

	return ret ? ret : count;
}

/*
 * Text files longer than a page (latency_hist/<policy>, cgroups,
 * cgroup_stats) are binary attributes that read text: @show writes it
 * into @text, a buffer of @size bytes allocated at the first read.  A
 * read at offset 0 takes a snapshot that later offsets continue, so a
 * reader in small chunks sees one moment.
 */
struct wp_textattr {
	struct bin_attribute ba;
	struct mutex lock;	/* text, len */
	char *text;
	size_t len;
	size_t size;
	ssize_t (*show)(struct wp_textattr *ta, char *buf, size_t size);
};

static ssize_t wp_text_read(struct file *f, struct kobject *k,
			    WP_BIN_ATTR_CONST struct bin_attribute *ba,
			    char *buf, loff_t off, size_t count)
{
	struct wp_textattr *ta = container_of(ba, struct wp_textattr, ba);
	ssize_t ret = 0;

	mutex_lock(&ta->lock);
	if (!off || !ta->text) {
		if (!ta->text)
			ta->text = kvmalloc(ta->size, GFP_KERNEL);
		ret = ta->text ? ta->show(ta, ta->text, ta->size) : -ENOMEM;
		ta->len = max_t(ssize_t, ret, 0);
		ret = min_t(ssize_t, ret, 0);
	}
	if (!ret && off < ta->len) {
		ret = min_t(size_t, count, ta->len - off);
		memcpy(buf, ta->text + off, ret);
	}
	mutex_unlock(&ta->lock);
	return ret;
}

/* One command per write(2), whatever the file offset. */
static ssize_t cgroups_write(struct file *f, struct kobject *k,
			     WP_BIN_ATTR_CONST struct bin_attribute *ba,
			     char *buf, loff_t off, size_t count)
{
	char *cmd, *nl;
	int ret;

	if (count > PAGE_SIZE)
		return -EINVAL;
	cmd = kmemdup_nul(buf, count, GFP_KERNEL);
	if (!cmd)
		return -ENOMEM;
	nl = strchr(cmd, '\n');
	if (nl && nl[1])
		ret = -EINVAL;		/* two commands in one write */
	else
		ret = wp_cg_write(cmd);
	kfree(cmd);
	return ret ? ret : count;
}

static ssize_t cgroups_show(struct wp_textattr *ta, char *buf, size_t size)
{
	return wp_cg_show(buf, size);
}

static ssize_t cgroup_stats_show(struct wp_textattr *ta, char *buf,
				 size_t size)
{
	return wp_cg_stats_show(buf, size);
}

static ssize_t cgroup_lat_show(struct wp_textattr *ta, char *buf, size_t size)
{
	return wp_cg_lat_show(buf, size);
}

/*
 * Line sizes: "ID POLICY STATE PATH"; "ID" with 16 "key value" pairs;
 * "ID L6ns" with up to WP_CG_LAT_BUCKETS ";IDX:COUNT".
 */
static struct wp_textattr wp_cg_attrs[] = {
	{
		.ba = {
			.attr = { .name = "cgroups", .mode = 0644 },
			.read = wp_text_read,
			.write = cgroups_write,
		},
		.size = (WP_CG_MAX + 16) * 320,
		.show = cgroups_show,
	},
	{
		.ba = {
			.attr = { .name = "cgroup_stats", .mode = 0444 },
			.read = wp_text_read,
		},
		.size = WP_CG_MAX * 768,
		.show = cgroup_stats_show,
	},
	{
		.ba = {
			.attr = { .name = "cgroup_latency_hist", .mode = 0444 },
			.read = wp_text_read,
		},
		.size = WP_CG_MAX * (32 + WP_CG_LAT_BUCKETS * 26),
		.show = cgroup_lat_show,
	},
};

static struct kobj_attribute wp_attrs[] = {
	__ATTR_RO(version),
	__ATTR_RO(kernel),
	__ATTR_RO(available_policies),
	__ATTR(policy, 0644, policy_show, policy_store),
	__ATTR(shadow, 0644, shadow_show, shadow_store),
	__ATTR(shadow_cgroup, 0644, shadow_cgroup_show, shadow_cgroup_store),
	__ATTR_RO(state),
	__ATTR_RO(counters),
	__ATTR_RO(hook),
	__ATTR_RO(last_switch),
	__ATTR(sample_period, 0644, sample_period_show, sample_period_store),
	__ATTR(latency_sample, 0644, latency_sample_show, latency_sample_store),
	__ATTR_RO(latency_mem),
	__ATTR_RO(cgroups_max),
#ifdef WAKEPLACE_TEST
	__ATTR_RO(idle_mask),
#endif
};

static struct attribute *wp_attr_ptrs[ARRAY_SIZE(wp_attrs) + 1];
static const struct attribute_group wp_group = { .attrs = wp_attr_ptrs };

/* stats/<policy> and policies/<policy>/<file>: attributes with a policy. */
struct wp_pattr {
	struct kobj_attribute ka;
	struct wakeplace_policy *pol;
	int idx;
};

#define to_pattr(a) container_of(a, struct wp_pattr, ka)

static ssize_t stats_show(struct kobject *k, struct kobj_attribute *a,
			  char *buf)
{
	struct wp_pstats *s;
	int i, len = 0;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	wp_stats_sum(to_pattr(a)->pol, s);
	for (i = 0; i < WP_ST_NR; i++)
		len += sysfs_emit_at(buf, len, "%s %llu\n", wp_stat_names[i],
				     s->v[i]);
	len += sysfs_emit_at(buf, len, "scan_hist");
	for (i = 0; i < WP_HIST_BUCKETS; i++)
		len += sysfs_emit_at(buf, len, " %llu", s->scan_hist[i]);
	len += sysfs_emit_at(buf, len, "\ncost_hist");
	for (i = 0; i < WP_HIST_BUCKETS; i++)
		len += sysfs_emit_at(buf, len, " %llu", s->cost_hist[i]);
	len += sysfs_emit_at(buf, len, "\n");
	kfree(s);
	return len;
}

/* A policy's statistics and latency histograms (wp_mutex held). */
static void wp_reset_policy(struct wakeplace_policy *pol)
{
	wp_stats_reset(pol);
	wp_lat_reset(pol);
}

static ssize_t reset_store(struct kobject *k, struct kobj_attribute *a,
			   const char *buf, size_t count)
{
	struct wakeplace_policy *pol = NULL;
	char name[WP_NAME_MAX];
	unsigned int i;
	int ret = wp_parse_token(buf, count, name, sizeof(name));

	if (ret)
		return ret;
	if (strcmp(name, "all") && strcmp(name, "1")) {
		pol = wp_policy_find(name);
		if (!pol)
			return -EINVAL;
	}
	mutex_lock(&wp_mutex);
	wp_test_hold_mutex();
	if (pol) {
		wp_reset_policy(pol);
	} else {
		for (i = 0; i < wp_nr_policies; i++)
			wp_reset_policy(wp_policies[i]);
		wp_counters_reset();
	}
	mutex_unlock(&wp_mutex);
	return count;
}

static struct kobj_attribute wp_reset_attr = __ATTR_WO(reset);

/*
 * The rows of latency/ and latency_hist/: all (the outcomes merged), the
 * outcomes, then unplaced (not in all: no policy placed those wakeups).
 */
#define WP_LAT_NROWS	(1 + WP_LAT_ROWS)

static const char *wp_lat_row(int r)
{
	if (!r)
		return "all";
	return r - 1 == WP_LAT_UNPLACED ? "unplaced" :
	       wp_stat_names[WP_ST_OUT + r - 1];
}

/* Row @r of @h: the merged outcomes for all (r == 0), else one row. */
static void wp_lat_row_hist(const struct wp_lathist *h, int r, u64 *row,
			    u64 *total)
{
	int o, i;

	*total = 0;
	for (i = 0; i < WP_LAT_BUCKETS; i++) {
		if (r) {
			row[i] = h->b[r - 1][i];
		} else {
			row[i] = 0;
			for (o = 0; o < WP_OUT_NR; o++)
				row[i] += h->b[o][i];
		}
		*total += row[i];
	}
}

static ssize_t latency_show(struct kobject *k, struct kobj_attribute *a,
			    char *buf)
{
	struct wp_lathist *h;
	u64 *row, n;
	int r, len = 0;

	h = kvmalloc(sizeof(*h), GFP_KERNEL);
	row = kmalloc_array(WP_LAT_BUCKETS, sizeof(*row), GFP_KERNEL);
	if (!h || !row) {
		kvfree(h);
		kfree(row);
		return -ENOMEM;
	}
	wp_lat_sum(to_pattr(a)->pol, h);
	for (r = 0; r < WP_LAT_NROWS; r++) {
		wp_lat_row_hist(h, r, row, &n);
		len += sysfs_emit_at(buf, len, "%s %llu %llu %llu %llu %llu\n",
				     wp_lat_row(r), n,
				     wp_lat_percentile(row, n, 1, 2),
				     wp_lat_percentile(row, n, 9, 10),
				     wp_lat_percentile(row, n, 99, 100),
				     wp_lat_percentile(row, n, 999, 1000));
	}
	kvfree(h);
	kfree(row);
	return len;
}

/*
 * latency_hist/<policy>: text that can outgrow a page, so a binary
 * attribute of unbounded size: a read at offset 0 takes a snapshot, later
 * offsets are served from it.
 */
struct wp_hattr {
	struct wp_textattr ta;
	struct wakeplace_policy *pol;
};
static struct wp_hattr *wp_hattrs;

/* Worst case of one row: its name and every bucket, "IDX:COUNT;". */
#define WP_HIST_ROW_MAX	(WP_NAME_MAX + 8 + WP_LAT_BUCKETS * 26)

static ssize_t wp_hist_show(struct wp_textattr *ta, char *text, size_t cap)
{
	struct wp_hattr *ha = container_of(ta, struct wp_hattr, ta);
	struct wp_lathist *h;
	size_t len = 0;
	u64 *row, n;
	int r, i;

	h = kvmalloc(sizeof(*h), GFP_KERNEL);
	row = kmalloc_array(WP_LAT_BUCKETS, sizeof(*row), GFP_KERNEL);
	if (!h || !row) {
		kvfree(h);
		kfree(row);
		return -ENOMEM;
	}
	wp_lat_sum(ha->pol, h);
	for (r = 0; r < WP_LAT_NROWS; r++) {
		wp_lat_row_hist(h, r, row, &n);
		len += scnprintf(text + len, cap - len, "%s " WP_LAT_TAG,
				 wp_lat_row(r));
		for (i = 0; i < WP_LAT_BUCKETS; i++)
			if (row[i])
				len += scnprintf(text + len, cap - len,
						 ";%d:%llu", i, row[i]);
		len += scnprintf(text + len, cap - len, "\n");
	}
	kvfree(h);
	kfree(row);
	return len;
}

static ssize_t description_show(struct kobject *k, struct kobj_attribute *a,
				char *buf)
{
	return sysfs_emit(buf, "%s\n", to_pattr(a)->pol->description);
}

static ssize_t pol_counters_show(struct kobject *k, struct kobj_attribute *a,
				 char *buf)
{
	return to_pattr(a)->pol->counters_show(buf);
}

static ssize_t tunables_show(struct kobject *k, struct kobj_attribute *a,
			     char *buf)
{
	struct wakeplace_policy *pol = to_pattr(a)->pol;
	unsigned int i;
	int len = 0;

	for (i = 0; i < pol->nr_tunables; i++) {
		struct wp_tunable *t = &pol->tunables[i];

		len += sysfs_emit_at(buf, len, "%s %d %d %d\n", t->name,
				     READ_ONCE(t->val), t->min, t->max);
	}
	return len;
}

static ssize_t tunable_show(struct kobject *k, struct kobj_attribute *a,
			    char *buf)
{
	struct wp_pattr *pa = to_pattr(a);

	return sysfs_emit(buf, "%d\n", READ_ONCE(pa->pol->tunables[pa->idx].val));
}

static ssize_t tunable_store(struct kobject *k, struct kobj_attribute *a,
			     const char *buf, size_t count)
{
	struct wp_pattr *pa = to_pattr(a);
	struct wp_tunable *t = &pa->pol->tunables[pa->idx];
	int v, ret = wp_parse_int(buf, count, t->min, t->max, &v);

	if (ret)
		return ret;
	/* Under wp_mutex, so that init/exit and the hook see one order. */
	mutex_lock(&wp_mutex);
	WRITE_ONCE(t->val, v);
	if (pa->pol->users && pa->pol->tunables_changed)
		pa->pol->tunables_changed();
	mutex_unlock(&wp_mutex);
	return count;
}

/* All dynamically created attributes, freed at exit. */
static struct wp_pattr *wp_pattrs;
static unsigned int wp_nr_pattrs, wp_max_pattrs;

static int wp_add_pattr(struct kobject *kobj, const char *name, umode_t mode,
			ssize_t (*show)(struct kobject *, struct kobj_attribute *,
					char *),
			ssize_t (*store)(struct kobject *,
					 struct kobj_attribute *,
					 const char *, size_t),
			struct wakeplace_policy *pol, int idx)
{
	struct wp_pattr *pa;

	if (wp_nr_pattrs >= wp_max_pattrs)
		return -ENOSPC;
	pa = &wp_pattrs[wp_nr_pattrs++];
	sysfs_attr_init(&pa->ka.attr);
	pa->ka.attr.name = name;
	pa->ka.attr.mode = mode;
	pa->ka.show = show;
	pa->ka.store = store;
	pa->pol = pol;
	pa->idx = idx;
	return sysfs_create_file(kobj, &pa->ka.attr);
}

static void wp_put_policy_kobjs(void)
{
	unsigned int i;

	for (i = 0; i < wp_nr_policies; i++) {
		kobject_put(wp_policies[i]->kobj);
		wp_policies[i]->kobj = NULL;
	}
}

/**
 * wp_sysfs_exit() - remove /sys/kernel/wakeplace.  After it returns no
 * show or store method runs (kernfs drains active ones).
 */
void wp_sysfs_exit(void)
{
	unsigned int i;

	if (wp_hattrs) {
		for (i = 0; i < wp_nr_policies; i++) {
			if (wp_hattrs[i].pol)
				sysfs_remove_bin_file(wp_lathist_kobj,
						      &wp_hattrs[i].ta.ba);
			kvfree(wp_hattrs[i].ta.text);
		}
		kfree(wp_hattrs);
		wp_hattrs = NULL;
	}
	for (i = 0; i < ARRAY_SIZE(wp_cg_attrs); i++) {
		if (wp_kobj)
			sysfs_remove_bin_file(wp_kobj, &wp_cg_attrs[i].ba);
		kvfree(wp_cg_attrs[i].text);
		wp_cg_attrs[i].text = NULL;
	}
	kobject_put(wp_lathist_kobj);
	kobject_put(wp_lat_kobj);
	wp_lathist_kobj = wp_lat_kobj = NULL;
	wp_put_policy_kobjs();
	kobject_put(wp_pol_kobj);
	kobject_put(wp_stats_kobj);
	kobject_put(wp_kobj);
	wp_pol_kobj = wp_stats_kobj = wp_kobj = NULL;
	kfree(wp_pattrs);
	wp_pattrs = NULL;
	wp_nr_pattrs = 0;
}

/**
 * wp_sysfs_init() - create /sys/kernel/wakeplace.
 *
 * Return: 0 or a negative errno (everything created is removed).
 */
int wp_sysfs_init(void)
{
	unsigned int i, j;
	int ret = -ENOMEM;

	for (i = 0; i < ARRAY_SIZE(wp_attrs); i++)
		wp_attr_ptrs[i] = &wp_attrs[i].attr;

	wp_max_pattrs = wp_nr_policies * (5 + WP_MAX_TUNABLES);
	wp_pattrs = kcalloc(wp_max_pattrs, sizeof(*wp_pattrs), GFP_KERNEL);
	wp_hattrs = kcalloc(wp_nr_policies, sizeof(*wp_hattrs), GFP_KERNEL);
	if (!wp_pattrs || !wp_hattrs) {
		kfree(wp_pattrs);
		kfree(wp_hattrs);
		wp_pattrs = NULL;
		wp_hattrs = NULL;
		return -ENOMEM;
	}

	/* The twin of test 706 gets its own directory (KBUILD_MODNAME). */
	wp_kobj = kobject_create_and_add(KBUILD_MODNAME, kernel_kobj);
	if (!wp_kobj)
		goto err;
	ret = sysfs_create_group(wp_kobj, &wp_group);
	for (i = 0; !ret && i < ARRAY_SIZE(wp_cg_attrs); i++) {
		sysfs_bin_attr_init(&wp_cg_attrs[i].ba);
		mutex_init(&wp_cg_attrs[i].lock);
		ret = sysfs_create_bin_file(wp_kobj, &wp_cg_attrs[i].ba);
	}
	if (ret)
		goto err;
	ret = -ENOMEM;
	wp_stats_kobj = kobject_create_and_add("stats", wp_kobj);
	wp_pol_kobj = kobject_create_and_add("policies", wp_kobj);
	wp_lat_kobj = kobject_create_and_add("latency", wp_kobj);
	wp_lathist_kobj = kobject_create_and_add("latency_hist", wp_kobj);
	if (!wp_stats_kobj || !wp_pol_kobj || !wp_lat_kobj || !wp_lathist_kobj)
		goto err;
	ret = sysfs_create_file(wp_stats_kobj, &wp_reset_attr.attr);
	if (ret)
		goto err;

	for (i = 0; i < wp_nr_policies; i++) {
		struct wakeplace_policy *pol = wp_policies[i];

		ret = -ENOMEM;
		pol->kobj = kobject_create_and_add(pol->name, wp_pol_kobj);
		if (!pol->kobj)
			goto err;
		ret = wp_add_pattr(wp_stats_kobj, pol->name, 0444, stats_show,
				   NULL, pol, 0);
		if (!ret)
			ret = wp_add_pattr(wp_lat_kobj, pol->name, 0444,
					   latency_show, NULL, pol, 0);
		if (!ret) {
			struct wp_hattr *ha = &wp_hattrs[i];

			sysfs_bin_attr_init(&ha->ta.ba);
			mutex_init(&ha->ta.lock);
			ha->ta.ba.attr.name = pol->name;
			ha->ta.ba.attr.mode = 0444;
			ha->ta.ba.read = wp_text_read;
			ha->ta.size = WP_LAT_NROWS * WP_HIST_ROW_MAX;
			ha->ta.show = wp_hist_show;
			ret = sysfs_create_bin_file(wp_lathist_kobj, &ha->ta.ba);
			if (!ret)
				ha->pol = pol;
		}
		if (!ret)
			ret = wp_add_pattr(pol->kobj, "description", 0444,
					   description_show, NULL, pol, 0);
		if (!ret)
			ret = wp_add_pattr(pol->kobj, "tunables", 0444,
					   tunables_show, NULL, pol, 0);
		if (!ret && pol->counters_show)
			ret = wp_add_pattr(pol->kobj, "counters", 0444,
					   pol_counters_show, NULL, pol, 0);
		for (j = 0; !ret && j < pol->nr_tunables; j++)
			ret = wp_add_pattr(pol->kobj, pol->tunables[j].name,
					   0644, tunable_show, tunable_store,
					   pol, j);
		if (ret)
			goto err;
	}
	return 0;
err:
	wp_sysfs_exit();
	return ret;
}
