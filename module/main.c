// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplace load and unload: the top floor (registry.c lists the floors).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include "registry.h"
#include "sched.h"
#include "fair.h"
#include "hook.h"
#include "stats.h"
#include "latency.h"
#include "switch.h"
#include "sysfs.h"
#include "cgroup.h"

static char *policy = "stock";
module_param(policy, charp, 0444);
MODULE_PARM_DESC(policy, "Policy at load (default stock)");

static char *shadow = "off";
module_param(shadow, charp, 0444);
module_param_named(latency_sample, wp_lat_period, uint, 0444);
MODULE_PARM_DESC(latency_sample, "Track one wakeup in N per CPU for the latency statistics (default 0: off, as stock runs nothing; at most 65536); changed at run time in /sys/kernel/wakeplace/latency_sample");
MODULE_PARM_DESC(shadow, "Shadow policy at load (default off)");

/*
 * Unload, in this order (after the control files are gone, so no more
 * switches): drop the cgroup assignments, switch to stock and drop the
 * shadow; detach the ftrace ops
 * now (waits until no CPU is in the callback or resumes into our code);
 * wait for RCU; only then stop the revert path, since until then a pick
 * still in the callback could trip and queue it again; run the deferred
 * puts and teardowns; free.  Also the unwinding of a load that failed
 * once the slots were started.
 */
static void wp_teardown(void)
{
	wp_cg_exit();
	wp_switch_stock();

	wp_hook_exit();
	synchronize_rcu();
	wp_hook_stop_revert();
	wp_switch_drain();

	wp_lat_exit();
	wp_switch_exit();
	wp_stats_exit();
	wp_fair_exit();
}

static int __init wp_init(void)
{
	struct wakeplace_policy *pol, *sh = NULL;
	int ret;

	pol = wp_policy_find(policy);
	if (strcmp(shadow, "off"))
		sh = wp_policy_find(shadow);
	if (!pol || (!sh && strcmp(shadow, "off"))) {
		pr_err("wakeplace: unknown policy '%s' (see available_policies)\n",
		       pol ? shadow : policy);
		return -EINVAL;
	}

	ret = wp_hook_check_loader();
	if (ret)
		return ret;
	ret = wp_layout_verify();
	if (ret)
		return ret;
	ret = wp_fair_init();
	if (ret)
		goto err;
	ret = wp_stats_init();
	if (ret)
		goto err_fair;
	ret = wp_switch_init();
	if (ret)
		goto err_stats;
	ret = wp_hook_init();
	if (ret)
		goto err_wq;
	if (wp_lat_period > WP_LAT_PERIOD_MAX) {
		pr_err("wakeplace: latency_sample=%u is out of range (0..%u)\n",
		       wp_lat_period, WP_LAT_PERIOD_MAX);
		ret = -EINVAL;
		goto err_wq;
	}
	ret = wp_lat_init();
	if (ret)
		goto err_wq;

	ret = wp_switch_start(pol, sh);
	if (ret) {
		if (ret != -EBUSY)
			pr_err("wakeplace: policy %s failed to start: %d\n",
			       pol->name, ret);
		goto err_teardown;
	}

	ret = wp_sysfs_init();
	if (ret) {
		pr_err("wakeplace: sysfs setup failed: %d\n", ret);
		goto err_teardown;
	}
	pr_info("wakeplace: " WP_VERSION " loaded on %s (" WP_FLAVOUR "), policy %s\n",
		init_utsname()->release, pol->name);
	return 0;

err_teardown:
	wp_teardown();
	return ret;
err_wq:
	wp_switch_exit();
err_stats:
	wp_stats_exit();
err_fair:
	wp_fair_exit();
err:
	return ret;
}

static void __exit wp_exit(void)
{
	wp_sysfs_exit();
	wp_teardown();
	pr_info("wakeplace: unloaded\n");
}

module_init(wp_init);
module_exit(wp_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("wakeplace maintainers");
MODULE_DESCRIPTION("Live-switchable wakeup placement policies for CFS");
MODULE_VERSION(WP_VERSION);
