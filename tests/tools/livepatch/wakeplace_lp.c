// SPDX-License-Identifier: GPL-2.0
/*
 * A real livepatch of select_task_rq_fair, for test 707: while it is
 * enabled, livepatch owns the function with IPMODIFY, as a production
 * fix would.  The replacement keeps a wakee on its previous CPU when it
 * may run there and calls nothing unexported; the scheduler core moves
 * a task whose pick is not allowed to a fallback CPU anyway.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/sched.h>
#include <linux/cpumask.h>

static int wp_lp_select_task_rq_fair(struct task_struct *p, int prev_cpu,
				     int wake_flags)
{
	unsigned int cpu;

	if (cpumask_test_cpu(prev_cpu, p->cpus_ptr) && cpu_active(prev_cpu))
		return prev_cpu;
	cpu = cpumask_first_and(p->cpus_ptr, cpu_active_mask);
	return cpu < nr_cpu_ids ? cpu : prev_cpu;
}

static struct klp_func wp_lp_funcs[] = {
	{
		.old_name = "select_task_rq_fair",
		.new_func = wp_lp_select_task_rq_fair,
	},
	{ }
};

static struct klp_object wp_lp_objs[] = {
	{
		/* name NULL: vmlinux */
		.funcs = wp_lp_funcs,
	},
	{ }
};

static struct klp_patch wp_lp_patch = {
	.mod = THIS_MODULE,
	.objs = wp_lp_objs,
};

static int __init wp_lp_init(void)
{
	return klp_enable_patch(&wp_lp_patch);
}

static void __exit wp_lp_exit(void)
{
}

module_init(wp_lp_init);
module_exit(wp_lp_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
MODULE_DESCRIPTION("wakeplace test: livepatch of select_task_rq_fair");
