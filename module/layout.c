// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-private layout: offsets generated from the target kernel's BTF
 * at build time, checked against the running kernel at load.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/utsname.h>
#include <linux/string.h>
#include <linux/irqflags.h>
#include <linux/uaccess.h>
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
	.cfs_last_h_load_update	= WP_OFF_CFS_LAST_H_LOAD_UPDATE,
};

#if WP_HAVE_DELAYED && !WP_HAVE_CFS_H_NR_RUNNABLE
#error "6.12 layout without cfs_rq.h_nr_runnable: unsupported kernel"
#endif

#ifdef WAKEPLACE_TEST
/* Test builds only: shift one offset to prove that the load checks bite. */
static char *test_corrupt_layout;
module_param(test_corrupt_layout, charp, 0400);
MODULE_PARM_DESC(test_corrupt_layout,
		 "TEST BUILD: corrupt one offset (rq_cpu, rq_curr, rq_idle, runqueues)");

static void wp_layout_corrupt(void)
{
	if (!test_corrupt_layout)
		return;
	if (!strcmp(test_corrupt_layout, "rq_cpu"))
		wp_lay.rq_cpu += 8;
	else if (!strcmp(test_corrupt_layout, "rq_curr"))
		wp_lay.rq_curr += 8;
	else if (!strcmp(test_corrupt_layout, "rq_idle"))
		wp_lay.rq_idle -= 8;
	else if (!strcmp(test_corrupt_layout, "runqueues"))
		wp_lay.pcpu_runqueues += 64;
}
#else
static inline void wp_layout_corrupt(void) { }
#endif

/**
 * wp_layout_verify() - check the generated layout against the live kernel.
 *
 * The build embeds the release and UTS version of the kernel whose BTF it
 * read; a different kernel build (same release name, other layout) is
 * refused.  Then the offsets are exercised: every possible CPU's rq->cpu,
 * the local rq->curr, each online rq->idle.
 *
 * Return: 0, or -EINVAL after printing one line naming the failed check.
 */
int wp_layout_verify(void)
{
	const char *ver = init_utsname()->version;
	unsigned long flags;
	bool curr_ok;
	int cpu;

	wp_layout_corrupt();

	if (strcmp(init_utsname()->release, WP_LAYOUT_RELEASE) ||
	    (WP_LAYOUT_UTSVER[0] && !strstr(ver, WP_LAYOUT_UTSVER))) {
		pr_err("wakeplace: built for %s (%s), running %s (%s): rebuild for this kernel\n",
		       WP_LAYOUT_RELEASE, WP_LAYOUT_UTSVER,
		       init_utsname()->release, ver);
		return -EINVAL;
	}

	for_each_possible_cpu(cpu) {
		int rcpu = READ_ONCE(WP_FIELD(wp_rq(cpu), wp_lay.rq_cpu, int));

		if (rcpu != cpu) {
			pr_err("wakeplace: layout check failed: rq(%d)->cpu reads %d: struct rq offsets do not match this kernel\n",
			       cpu, rcpu);
			return -EINVAL;
		}
	}

	local_irq_save(flags);
	curr_ok = WP_RD(wp_rq(smp_processor_id()), wp_lay.rq_curr,
			struct task_struct *) == current;
	local_irq_restore(flags);
	if (!curr_ok) {
		pr_err("wakeplace: layout check failed: rq->curr is not current: struct rq offsets do not match this kernel\n");
		return -EINVAL;
	}

	for_each_online_cpu(cpu) {
		struct task_struct *idle = WP_RD(wp_rq(cpu), wp_lay.rq_idle,
						 struct task_struct *);
		unsigned int pflags = 0;

		/* A wrong offset yields a wild pointer: read it without faulting. */
		if (!idle || get_kernel_nofault(pflags, &idle->flags) ||
		    !(pflags & PF_IDLE)) {
			pr_err("wakeplace: layout check failed: rq(%d)->idle is not an idle task: struct rq offsets do not match this kernel\n",
			       cpu);
			return -EINVAL;
		}
	}
	return 0;
}
