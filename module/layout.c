// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-private layout: offsets generated from the target kernel's BTF
 * at build time, checked against the running kernel at load.
 *
 * Two layers.  The build identity (release, UTS version, GNU build id) says
 * whether this is the very kernel whose BTF was read; a locally rebuilt
 * kernel with the same release and another config is caught there.  Then
 * every offset the wakeup path reads is exercised once, before the hook is
 * attached, with reads that cannot fault (a wrong offset yields a wild
 * pointer), against invariants the kernel keeps, so that a layout the
 * identity check let through still cannot oops a wakeup.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/utsname.h>
#include <linux/string.h>
#include <linux/irqflags.h>
#include <linux/uaccess.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/threads.h>
#include "generated/wp_layout.h"
#include "sched.h"

struct wp_layout wp_lay __read_mostly = {
	.rq_nr_running		= WP_OFF_RQ_NR_RUNNING,
	.rq_ttwu_pending	= WP_OFF_RQ_TTWU_PENDING,
	.rq_cfs			= WP_OFF_RQ_CFS,
	.rq_curr		= WP_OFF_RQ_CURR,
	.rq_idle		= WP_OFF_RQ_IDLE,
	.rq_sd			= WP_OFF_RQ_SD,
	.rq_cpu_capacity	= WP_OFF_RQ_CPU_CAPACITY,
	.rq_cpu			= WP_OFF_RQ_CPU,
	.cfs_h_nr_running	= WP_OFF_CFS_H_NR_RUNNING,
	.cfs_idle_h_nr_running	= WP_OFF_CFS_IDLE_H_NR_RUNNING,
	.cfs_h_nr_runnable	= WP_OFF_CFS_H_NR_RUNNABLE,
	.cfs_avg		= WP_OFF_CFS_AVG,
	.cfs_h_load		= WP_OFF_CFS_H_LOAD,
	.class_select_task_rq	= WP_OFF_CLASS_SELECT_TASK_RQ,
	.pcpu_runqueues		= WP_OFF_PCPU_RUNQUEUES,
	.pcpu_sd_llc		= WP_OFF_PCPU_SD_LLC,
	.pcpu_sd_llc_size	= WP_OFF_PCPU_SD_LLC_SIZE,
	.pcpu_sd_llc_id		= WP_OFF_PCPU_SD_LLC_ID,
	.pcpu_sd_llc_shared	= WP_OFF_PCPU_SD_LLC_SHARED,
	.pcpu_sd_share_id	= WP_OFF_PCPU_SD_SHARE_ID,
	.pcpu_sd_asym_cpucapacity = WP_OFF_PCPU_SD_ASYM_CPUCAPACITY,
	.pcpu_sd_balance_shared	= WP_OFF_PCPU_SD_BALANCE_SHARED,
	.cfs_last_h_load_update	= WP_OFF_CFS_LAST_H_LOAD_UPDATE,
};

#if WP_HAVE_DELAYED && !WP_HAVE_CFS_H_NR_RUNNABLE
#error "6.12 layout without cfs_rq.h_nr_runnable: unsupported kernel"
#endif

/* The identity recorded at build time; test builds can spoil them. */
static const char *wp_want_utsver = WP_LAYOUT_UTSVER;
static const char *wp_want_build_id = WP_LAYOUT_BUILD_ID;
static const char *wp_notes_path = "/sys/kernel/notes";

#define WP_NT_GNU_BUILD_ID	3	/* ELF note type of the GNU build id */
#define WP_BUILD_ID_MAX		20	/* bytes: SHA-1, what Kbuild links with */
#define WP_NOTES_MAX		8192	/* the kernel's .notes is a few hundred */

#ifdef WAKEPLACE_TEST
/*
 * Test builds only: spoil one offset or one identity item to prove that the
 * load checks bite.  "FIELD" shifts FIELD by the default below, which
 * stands for a plausible wrong layout (a config that adds or drops a field
 * nearby) that the checks catch on both kernels; "FIELD:DELTA" shifts it by
 * DELTA bytes instead.  What each default lands on (6.1 / 6.12 BTF):
 * runqueues: 64 bytes into struct rq; rq_cpu: cfs_tasks; rq_curr: idle /
 * dl_server; rq_idle: curr / dl_server; rq_cfs: 8 bytes into the cfs_rq;
 * rq_nr_running: nr_numa_running; rq_ttwu_pending: nr_switches; rq_sd:
 * cpu_capacity; rq_cpu_capacity: sd; cfs_h_nr_running: idle_h_nr_running /
 * idle_nr_running; cfs_idle_h_nr_running: min_vruntime / zero_vruntime (a
 * shift onto a neighbouring counter is not caught, see wp_check_cfs_rq());
 * cfs_h_nr_runnable: idle_nr_running; cfs_avg: the padding before it;
 * cfs_h_load: last_h_load_update; sd_llc: sd_llc_id and sd_llc_size;
 * sd_llc_size: sd_llc_id; sd_llc_id: sd_llc_size; sd_llc_shared: sd_numa;
 * sd_share_id: sd_llc_shared; sd_asym_cpucapacity and sd_balance_shared:
 * sd_llc's value.  On 7.2: rq_ttwu_pending: nr_switches; cfs_idle_h_nr_running:
 * zero_vruntime; sd_llc_shared: sd_share_id and sd_llc_id (compat.h).
 */
static char *test_corrupt_layout;
module_param(test_corrupt_layout, charp, 0400);
MODULE_PARM_DESC(test_corrupt_layout,
		 "TEST BUILD: corrupt one offset (FIELD[:DELTA], see layout.c) or utsver, no_build_id, build_id, notes");

static const struct {
	const char *name;
	unsigned long *off;
	long delta;
	unsigned long *alias;	/* instead of a delta: another variable */
} wp_corrupt[] = {
	{ "runqueues",		&wp_lay.pcpu_runqueues,		64 },
	{ "rq_cpu",		&wp_lay.rq_cpu,			8 },
	{ "rq_curr",		&wp_lay.rq_curr,		8 },
	{ "rq_idle",		&wp_lay.rq_idle,		-8 },
	{ "rq_cfs",		&wp_lay.rq_cfs,			8 },
	{ "rq_nr_running",	&wp_lay.rq_nr_running,		4 },
	{ "rq_ttwu_pending",	&wp_lay.rq_ttwu_pending,	WP_TEST_TTWU_SHIFT },
	{ "rq_sd",		&wp_lay.rq_sd,			8 },
	{ "rq_cpu_capacity",	&wp_lay.rq_cpu_capacity,	-8 },
	{ "cfs_h_nr_running",	&wp_lay.cfs_h_nr_running,	8 },
	{ "cfs_idle_h_nr_running", &wp_lay.cfs_idle_h_nr_running,
				   WP_TEST_CFS_IDLE_SHIFT },
	{ "cfs_h_nr_runnable",	&wp_lay.cfs_h_nr_runnable,	4 },
	{ "cfs_avg",		&wp_lay.cfs_avg,		-8 },
	{ "cfs_h_load",		&wp_lay.cfs_h_load,		8 },
	{ "sd_llc",		&wp_lay.pcpu_sd_llc,		-8 },
	{ "sd_llc_size",	&wp_lay.pcpu_sd_llc_size,	-4 },
	{ "sd_llc_id",		&wp_lay.pcpu_sd_llc_id,		4 },
	{ "sd_llc_shared",	&wp_lay.pcpu_sd_llc_shared,	WP_TEST_LLC_SHARED_SHIFT },
	{ "sd_share_id",	&wp_lay.pcpu_sd_share_id,	-8 },
	{ "sd_asym_cpucapacity", &wp_lay.pcpu_sd_asym_cpucapacity, 0,
				 &wp_lay.pcpu_sd_llc },
	{ "sd_balance_shared",	&wp_lay.pcpu_sd_balance_shared,	0,
				 &wp_lay.pcpu_sd_llc },
};

static void wp_layout_corrupt(void)
{
	const char *arg = test_corrupt_layout;
	size_t len;
	long delta;
	int i;

	if (!arg)
		return;
	if (!strcmp(arg, "utsver")) {
		wp_want_utsver = "";
		return;
	}
	if (!strcmp(arg, "no_build_id")) {
		wp_want_build_id = "";
		return;
	}
	if (!strcmp(arg, "build_id")) {
		/* Same length, another build. */
		wp_want_build_id = "00000000000000000000000000000000deadbeef";
		return;
	}
	if (!strcmp(arg, "notes")) {
		wp_notes_path = "/sys/kernel/no-such-notes";
		return;
	}
	len = strcspn(arg, ":");
	for (i = 0; i < ARRAY_SIZE(wp_corrupt); i++) {
		if (strlen(wp_corrupt[i].name) != len ||
		    strncmp(arg, wp_corrupt[i].name, len))
			continue;
		if (arg[len] && !kstrtol(arg + len + 1, 0, &delta))
			*wp_corrupt[i].off += delta;
		else if (wp_corrupt[i].alias)
			*wp_corrupt[i].off = *wp_corrupt[i].alias;
		else
			*wp_corrupt[i].off += wp_corrupt[i].delta;
		return;
	}
}
#else
static inline void wp_layout_corrupt(void) { }
#endif

/*
 * The running kernel's GNU build id, in lower-case hex, from the ELF notes
 * it exports (the same .notes section gen-layout read from its image).
 * Read through the file because the notes' address is not exported.
 */
static int wp_running_build_id(char *hex)
{
	const struct elf64_note *nh;
	struct file *f;
	loff_t pos = 0;
	size_t got = 0, off = 0;
	ssize_t n = 0;
	int ret = -ENOENT;
	char *buf;

	f = filp_open(wp_notes_path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	buf = kmalloc(WP_NOTES_MAX, GFP_KERNEL);
	if (!buf) {
		filp_close(f, NULL);
		return -ENOMEM;
	}
	while (got < WP_NOTES_MAX) {
		n = kernel_read(f, buf + got, WP_NOTES_MAX - got, &pos);
		if (n <= 0)
			break;
		got += n;
	}
	filp_close(f, NULL);
	if (n < 0) {
		kfree(buf);
		return n;
	}
	/* namesz, descsz, type; the name and the descriptor padded to 4. */
	while (off + sizeof(*nh) <= got) {
		size_t name, desc;

		nh = (const void *)(buf + off);
		name = off + sizeof(*nh);
		desc = name + ALIGN(nh->n_namesz, 4);
		if (nh->n_namesz > got || nh->n_descsz > got ||
		    desc + nh->n_descsz > got)
			break;
		if (nh->n_type == WP_NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4) && nh->n_descsz &&
		    nh->n_descsz <= WP_BUILD_ID_MAX) {
			*bin2hex(hex, buf + desc, nh->n_descsz) = '\0';
			ret = 0;
			break;
		}
		off = desc + ALIGN(nh->n_descsz, 4);
	}
	kfree(buf);
	return ret;
}

/* This module was built for this very kernel build: release, UTS, build id. */
static int wp_identity_verify(void)
{
	const char *ver = init_utsname()->version;
	char id[2 * WP_BUILD_ID_MAX + 1];
	int ret;

	if (strcmp(init_utsname()->release, WP_LAYOUT_RELEASE)) {
		pr_err("wakeplace: built for %s (%s), running %s (%s): rebuild for this kernel\n",
		       WP_LAYOUT_RELEASE, wp_want_utsver,
		       init_utsname()->release, ver);
		return -EINVAL;
	}
	if (!wp_want_utsver[0] || !wp_want_build_id[0]) {
		pr_err("wakeplace: cannot check the kernel build: no %s recorded at build time: rebuild the module\n",
		       wp_want_utsver[0] ? "build id" : "UTS version");
		return -EINVAL;
	}
	if (!strstr(ver, wp_want_utsver)) {
		pr_err("wakeplace: built for %s (%s), running %s (%s): rebuild for this kernel\n",
		       WP_LAYOUT_RELEASE, wp_want_utsver,
		       init_utsname()->release, ver);
		return -EINVAL;
	}
	ret = wp_running_build_id(id);
	if (ret) {
		pr_err("wakeplace: cannot check the kernel build: no build id read from %s (%d)\n",
		       wp_notes_path, ret);
		return -EINVAL;
	}
	if (strcmp(id, wp_want_build_id)) {
		pr_err("wakeplace: built for kernel build id %s, running %s: rebuild for this kernel\n",
		       wp_want_build_id, id);
		return -EINVAL;
	}
	return 0;
}

/* The first failed check: the field it blames and what was read. */
static const char *wp_bad_field;
static char wp_bad_why[128];

static __printf(2, 3) int wp_bad(const char *field, const char *fmt, ...)
{
	va_list args;

	wp_bad_field = field;
	va_start(args, fmt);
	vsnprintf(wp_bad_why, sizeof(wp_bad_why), fmt, args);
	va_end(args);
	return -EINVAL;
}

/* A field of a cfs_rq at a generated offset, read without faulting. */
static bool wp_cfs_u32(void *cfs_rq, unsigned long off, u32 *val)
{
	return !get_kernel_nofault(*val, (u32 *)((char *)cfs_rq + off));
}

/*
 * Checks of one cfs_rq that hold without its lock.  local: the cfs_rq
 * holds current, which runs here with IRQs off, so it counts at least one
 * runnable task and its PELT average has been updated.
 *
 *  h_nr_running (h_nr_queued): >= 1 if local, <= max_h (the root's count,
 *    or rq->nr_running for the root: every CFS task is one of the rq's).
 *    A shift onto nr_running (entities at this level) is not caught.
 *  idle_h_nr_running: <= h_nr_running.  A shift onto another small counter
 *    or onto zeros is not caught (an int: wrong idle decisions, no oops).
 *  h_nr_runnable (6.12): >= 1 if local (current is not delayed), <= h_nr.
 *  avg: period_contrib < 1024 (the partial PELT period, in us);
 *    last_update_time not in the future; non-zero if local.
 *  h_load: below 2^31 (more would be thousands of nice -20 tasks queued);
 *    catches a shift onto last_h_load_update (jiffies) or a pointer.
 */
static int wp_check_cfs_rq(void *cfs_rq, bool local, u32 max_h, u32 *h_out)
{
	struct sched_avg *avg = (void *)((char *)cfs_rq + wp_lay.cfs_avg);
	u32 h, idle_h, contrib;
	u64 lut;
	unsigned long h_load;

	if (!wp_cfs_u32(cfs_rq, wp_lay.cfs_h_nr_running, &h) ||
	    (local && !h) || h > max_h)
		return wp_bad("cfs_rq->h_nr_running", "reads %u, expected %s%u",
			      h, local ? "1.." : "0..", max_h);
	if (!wp_cfs_u32(cfs_rq, wp_lay.cfs_idle_h_nr_running, &idle_h) ||
	    idle_h > h)
		return wp_bad("cfs_rq->idle_h_nr_running",
			      "reads %u, more than h_nr_running %u", idle_h, h);
#if WP_HAVE_CFS_H_NR_RUNNABLE
	{
		u32 r;

		if (!wp_cfs_u32(cfs_rq, wp_lay.cfs_h_nr_runnable, &r) ||
		    (local && !r) || r > h)
			return wp_bad("cfs_rq->h_nr_runnable",
				      "reads %u, expected %s%u", r,
				      local ? "1.." : "0..", h);
	}
#endif
	if (get_kernel_nofault(contrib, &avg->period_contrib) ||
	    get_kernel_nofault(lut, &avg->last_update_time) ||
	    contrib >= 1024 || lut > local_clock() + 10ULL * NSEC_PER_SEC ||
	    (local && !lut))
		return wp_bad("cfs_rq->avg",
			      "period_contrib %u, last_update_time %llu: not a PELT average",
			      contrib, lut);
	if (get_kernel_nofault(h_load, (unsigned long *)((char *)cfs_rq +
							 wp_lay.cfs_h_load)) ||
	    h_load >= 1UL << 31)
		return wp_bad("cfs_rq->h_load", "reads %lu", h_load);
	*h_out = h;
	return 0;
}

/*
 * The local CPU, with IRQs off so that current stays on this rq:
 *  runqueues, rq->cpu, rq->curr, rq->cfs: rq(this)->cpu == this,
 *    rq(this)->curr == current, and current's top-level sched_entity is
 *    queued on &rq(this)->cfs.  Each passing check vouches for runqueues,
 *    so two failures blame runqueues and one blames its own field.
 *  rq->nr_running: >= 1 (current), below PID_MAX_LIMIT.
 *  current->se.cfs_rq (public) and the root cfs_rq: wp_check_cfs_rq(),
 *    the leaf's count bounded by the root's.
 */
static int wp_check_local(void)
{
	int this = smp_processor_id();
	void *rq = wp_rq(this);
	void *root = (char *)rq + wp_lay.rq_cfs;
	bool cpu_ok, curr_ok, cfs_ok = true;
	u32 nr, h_root, h_leaf;
	int bad, ret;

	cpu_ok = WP_RD(rq, wp_lay.rq_cpu, int) == this;
	curr_ok = WP_RD(rq, wp_lay.rq_curr, struct task_struct *) == current;
#ifdef CONFIG_FAIR_GROUP_SCHED
	{
		struct sched_entity *se = &current->se;
		int depth = 0;

		while (READ_ONCE(se->parent) && depth++ < 64)
			se = READ_ONCE(se->parent);
		cfs_ok = (void *)READ_ONCE(se->cfs_rq) == root;
	}
#endif
	bad = !cpu_ok + !curr_ok + !cfs_ok;
	if (bad > 1)
		return wp_bad("runqueues", "rq(%d): cpu %s, curr %s, cfs %s",
			      this, cpu_ok ? "ok" : "wrong",
			      curr_ok ? "ok" : "wrong", cfs_ok ? "ok" : "wrong");
	if (!cpu_ok)
		return wp_bad("rq->cpu", "rq(%d)->cpu reads %d", this,
			      WP_RD(rq, wp_lay.rq_cpu, int));
	if (!curr_ok)
		return wp_bad("rq->curr", "rq(%d)->curr is not current", this);
	if (!cfs_ok)
		return wp_bad("rq->cfs",
			      "current's top-level cfs_rq is not rq(%d)->cfs",
			      this);

	nr = wp_rq_nr_running(rq);
	if (!nr || nr >= PID_MAX_LIMIT)
		return wp_bad("rq->nr_running", "rq(%d) reads %u with current running",
			      this, nr);
	ret = wp_check_cfs_rq(root, true, nr, &h_root);
#ifdef CONFIG_FAIR_GROUP_SCHED
	if (!ret && READ_ONCE(current->se.cfs_rq) != root)
		ret = wp_check_cfs_rq(READ_ONCE(current->se.cfs_rq), true,
				      h_root, &h_leaf);
#endif
	return ret;
}

/* A sched_domain's fields, read without faulting. */
struct wp_sd_view {
	struct sched_domain *parent, *child;
	struct sched_domain_shared *shared;
	unsigned int span_weight;
	int flags;
};

static bool wp_sd_read(struct sched_domain *sd, struct wp_sd_view *v,
		       struct cpumask *span)
{
	return !get_kernel_nofault(v->parent,
				   (struct sched_domain **)&sd->parent) &&
	       !get_kernel_nofault(v->child,
				   (struct sched_domain **)&sd->child) &&
	       !get_kernel_nofault(v->shared, &sd->shared) &&
	       !get_kernel_nofault(v->span_weight, &sd->span_weight) &&
	       !get_kernel_nofault(v->flags, &sd->flags) &&
	       !copy_from_kernel_nofault(cpumask_bits(span),
					 cpumask_bits(sched_domain_span(sd)),
					 cpumask_size());
}

/*
 * sd_llc_id of @cpu, whose LLC domain spans @span from @first: the first
 * CPU up to 6.12.  From 7.2 a dense id per cache (kept by CPUs of one
 * cache also when cpusets split it), so: equal across the domain, and
 * never shared with a CPU of another package (an id shifted onto a
 * neighbouring counter reads the same on every CPU).
 */
static int wp_check_llc_id(int cpu, int id, int first,
			   const struct cpumask *span)
{
	int o;

	if (WP_LLC_ID_IS_FIRST_CPU) {
		if (id != first)
			return wp_bad("sd_llc_id", "CPU %d: %d, LLC starts at %d",
				      cpu, id, first);
		return 0;
	}
	if (id < 0 || id >= nr_cpu_ids)
		return wp_bad("sd_llc_id", "CPU %d: %d, not an LLC id", cpu, id);
	if (cpu != first)
		return id == wp_sd_llc_id(first) ? 0 :
		       wp_bad("sd_llc_id", "CPU %d: %d, its LLC's first CPU %d has %d",
			      cpu, id, first, wp_sd_llc_id(first));
	for_each_online_cpu(o)
		if (wp_sd_llc_id(o) == id &&
		    topology_physical_package_id(o) !=
		    topology_physical_package_id(cpu))
			return wp_bad("sd_llc_id", "CPU %d and %d: LLC id %d in two packages",
				      cpu, o, id);
	return 0;
}

/*
 * One online CPU.  cpus_read_lock() keeps CPUs from coming and going and
 * rcu_read_lock() keeps the domains read alive; a cpuset rebuild can still
 * swap them meanwhile, which the caller's retry absorbs.
 *  rq->cpu: == cpu (every possible CPU, in the caller).
 *  rq->idle: an idle task (PF_IDLE) bound to this CPU.
 *  rq->cpu_capacity: in (0, SCHED_CAPACITY_SCALE].
 *  rq->ttwu_pending: 0 or 1 (a flag); a shift onto nr_switches is caught,
 *    one onto a zero word is not.
 *  rq->nr_running and the root cfs_rq: below PID_MAX_LIMIT, then
 *    wp_check_cfs_rq() with the root's count bounded by nr_running.
 *  sd_llc: NULL, or a readable domain with the LLC flag whose span holds
 *    the CPU and has span_weight bits; sd_llc_size: that weight (1 without
 *    an LLC domain); sd_llc_id: wp_check_llc_id() (the CPU itself
 *    without, up to 6.12);
 *    sd_llc_shared: == sd_llc->shared.
 *  rq->sd: the lowest domain (no child), each parent's child is the domain
 *    below, each span holds the CPU, and sd_llc is on that chain.
 *  sd_share_id (6.12): the first CPU of the lowest cluster domain on the
 *    chain, else sd_llc_id's value.
 *  sd_asym_cpucapacity: NULL or a domain of the chain with the
 *    SD_ASYM_CPUCAPACITY_FULL flag.
 *  sd_balance_shared (7.2): sd_llc_shared on a symmetric machine.
 */
static int wp_check_cpu(int cpu, struct cpumask *span)
{
	void *rq = wp_rq(cpu);
	struct task_struct *idle = WP_RD(rq, wp_lay.rq_idle,
					 struct task_struct *);
	struct sched_domain *llc, *asym, *sd, *below = NULL;
	struct sched_domain_shared *llc_shared;
	unsigned int pflags = 0, icpu = -1, pending, nr, h;
	unsigned long cap;
	int size, id, expect_id, share_id = -1, depth = 0, ret;
	bool llc_seen = false, asym_seen = false;
	struct wp_sd_view v;

	if (!idle || get_kernel_nofault(pflags, &idle->flags) ||
	    get_kernel_nofault(icpu, &task_thread_info(idle)->cpu) ||
	    !(pflags & PF_IDLE) || icpu != cpu)
		return wp_bad("rq->idle", "rq(%d)->idle is not this CPU's idle task",
			      cpu);
	cap = wp_capacity_of(cpu);
	if (!cap || cap > SCHED_CAPACITY_SCALE)
		return wp_bad("rq->cpu_capacity", "rq(%d) reads %lu", cpu, cap);
	pending = WP_RD(rq, wp_lay.rq_ttwu_pending, unsigned int);
	if (pending > 1)
		return wp_bad("rq->ttwu_pending", "rq(%d) reads %u", cpu,
			      pending);
	nr = wp_rq_nr_running(rq);
	if (nr >= PID_MAX_LIMIT)
		return wp_bad("rq->nr_running", "rq(%d) reads %u", cpu, nr);
	ret = wp_check_cfs_rq((char *)rq + wp_lay.rq_cfs, false, nr, &h);
	if (ret)
		return ret;

	llc = READ_ONCE(*WP_PCPU(wp_lay.pcpu_sd_llc, struct sched_domain *,
				 cpu));
	llc_shared = READ_ONCE(*WP_PCPU(wp_lay.pcpu_sd_llc_shared,
					struct sched_domain_shared *, cpu));
	size = wp_sd_llc_size(cpu);
	id = wp_sd_llc_id(cpu);
	expect_id = cpu;
	if (!llc) {
		if (size != 1)
			return wp_bad("sd_llc_size", "CPU %d: %d without an LLC domain",
				      cpu, size);
		if (WP_LLC_ID_IS_FIRST_CPU && id != cpu)
			return wp_bad("sd_llc_id", "CPU %d: %d without an LLC domain",
				      cpu, id);
		if (llc_shared)
			return wp_bad("sd_llc_shared", "CPU %d: set without an LLC domain",
				      cpu);
	} else {
		if (!wp_sd_read(llc, &v, span) || !cpumask_test_cpu(cpu, span) ||
		    !(v.flags & WP_SD_SHARE_LLC) ||
		    v.span_weight != cpumask_weight(span))
			return wp_bad("sd_llc", "CPU %d: not an LLC domain holding it",
				      cpu);
		if (size != v.span_weight)
			return wp_bad("sd_llc_size", "CPU %d: %d, LLC spans %u",
				      cpu, size, v.span_weight);
		expect_id = cpumask_first(span);
		ret = wp_check_llc_id(cpu, id, expect_id, span);
		if (ret)
			return ret;
		if (llc_shared != v.shared)
			return wp_bad("sd_llc_shared", "CPU %d: not sd_llc->shared",
				      cpu);
	}
	if (llc_shared) {
		int hic;

		if (get_kernel_nofault(hic, &llc_shared->has_idle_cores) ||
		    (hic != 0 && hic != 1))
			return wp_bad("sd_llc_shared", "CPU %d: has_idle_cores unreadable or %d",
				      cpu, hic);
	}

	asym = READ_ONCE(*WP_PCPU(wp_lay.pcpu_sd_asym_cpucapacity,
				  struct sched_domain *, cpu));
	for (sd = WP_RD(rq, wp_lay.rq_sd, struct sched_domain *); sd;
	     below = sd, sd = v.parent) {
		if (depth++ > 32 || !wp_sd_read(sd, &v, span) ||
		    v.child != below || !cpumask_test_cpu(cpu, span))
			return wp_bad("rq->sd", "CPU %d: level %d is not a domain above the CPU",
				      cpu, depth - 1);
		if ((v.flags & WP_SD_CLUSTER) && share_id < 0)
			share_id = cpumask_first(span);
		if (sd == llc)
			llc_seen = true;
		if (sd == asym && (v.flags & SD_ASYM_CPUCAPACITY_FULL))
			asym_seen = true;
	}
	if (llc && !llc_seen)
		return wp_bad("rq->sd", "CPU %d: sd_llc is not on its domain chain",
			      cpu);
	if (asym && !asym_seen)
		return wp_bad("sd_asym_cpucapacity",
			      "CPU %d: not an asymmetric-capacity domain of the CPU",
			      cpu);
	/* 7.2: sd_llc_shared unless an asymmetric domain brings its own. */
	if (wp_lay.pcpu_sd_balance_shared && !asym &&
	    READ_ONCE(*WP_PCPU(wp_lay.pcpu_sd_balance_shared,
			       struct sched_domain_shared *, cpu)) != llc_shared)
		return wp_bad("sd_balance_shared", "CPU %d: not sd_llc_shared",
			      cpu);
	if (wp_lay.pcpu_sd_share_id) {
		int got = READ_ONCE(*WP_PCPU(wp_lay.pcpu_sd_share_id, int, cpu));

		if (share_id < 0)
			share_id = expect_id;
		if (got != share_id)
			return wp_bad("sd_share_id", "CPU %d: %d, expected %d",
				      cpu, got, share_id);
	}
	return 0;
}

static int wp_layout_check(struct cpumask *span)
{
	unsigned long flags;
	int cpu, ret;

	/* First without faulting: a wrong per-CPU base is a wild pointer. */
	for_each_possible_cpu(cpu) {
		int rcpu;

		if (get_kernel_nofault(rcpu, (int *)((char *)wp_rq(cpu) +
						     wp_lay.rq_cpu)))
			return wp_bad("runqueues", "rq(%d) is not readable",
				      cpu);
	}

	local_irq_save(flags);
	ret = wp_check_local();
	local_irq_restore(flags);
	if (ret)
		return ret;

	for_each_possible_cpu(cpu) {
		int rcpu = READ_ONCE(WP_FIELD(wp_rq(cpu), wp_lay.rq_cpu, int));

		if (rcpu != cpu)
			return wp_bad("rq->cpu", "rq(%d)->cpu reads %d", cpu,
				      rcpu);
	}

	cpus_read_lock();
	rcu_read_lock();
	for_each_online_cpu(cpu) {
		ret = wp_check_cpu(cpu, span);
		if (ret)
			break;
	}
	rcu_read_unlock();
	cpus_read_unlock();
	return ret;
}

/*
 * BTF gives per-CPU variables as offsets into .data..percpu.  Where per-CPU
 * data is zero-based (x86-64 up to 6.x) an offset is the per-CPU address;
 * from 7.x the section sits at its link address.  this_cpu_off, exported,
 * is the anchor: its address minus its BTF offset is the section's base (0
 * when zero-based).  Absent variables (offset 0) stay 0.
 */
static void wp_layout_relocate(void)
{
	unsigned long base = (__force unsigned long)&this_cpu_off -
			     WP_OFF_PCPU_THIS_CPU_OFF;
	unsigned long *pc[] = {
		&wp_lay.pcpu_runqueues, &wp_lay.pcpu_sd_llc,
		&wp_lay.pcpu_sd_llc_size, &wp_lay.pcpu_sd_llc_id,
		&wp_lay.pcpu_sd_llc_shared, &wp_lay.pcpu_sd_share_id,
		&wp_lay.pcpu_sd_asym_cpucapacity,
		&wp_lay.pcpu_sd_balance_shared,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(pc); i++)
		if (*pc[i])
			*pc[i] += base;
}

/**
 * wp_layout_verify() - check the generated layout against the live kernel.
 *
 * First the build identity: the release, UTS version and GNU build id of
 * the kernel whose BTF gen-layout read must be the running kernel's (a
 * module that cannot tell is refused).  Then every offset the wakeup path
 * reads is exercised (see wp_check_local() and wp_check_cpu()).  Counters
 * of other CPUs are read without their locks, so a failed pass is retried
 * twice before the module is refused: a wrong offset fails every time.
 *
 * Return: 0, or -EINVAL (-ENOMEM) after printing one line naming the
 * failed check.
 */
int wp_layout_verify(void)
{
	cpumask_var_t span;
	int ret, try;

	wp_layout_corrupt();
	wp_layout_relocate();

	ret = wp_identity_verify();
	if (ret)
		return ret;

	if (!alloc_cpumask_var(&span, GFP_KERNEL))
		return -ENOMEM;
	for (try = 0; try < 3; try++) {
		if (try)
			msleep(20);
		ret = wp_layout_check(span);
		if (!ret)
			break;
	}
	free_cpumask_var(span);
	if (ret)
		pr_err("wakeplace: layout check failed: %s: %s: offsets do not match this kernel\n",
		       wp_bad_field, wp_bad_why);
	return ret;
}
