/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the supported kernels lives here: Debian's 6.1
 * (bookworm) and 6.12 (bookworm-backports).  Private layout comes from BTF
 * (generated/wp_layout.h); this file holds what BTF cannot say: macros,
 * flag values and accessor names.  The kernel version is tested here only:
 * everything else reads a feature macro (WP_HAVE_*) or a named value, so a
 * new kernel is its facts in this file (and mirror's differences in fair.c,
 * by feature).
 */
#ifndef WP_COMPAT_H
#define WP_COMPAT_H

#include <linux/version.h>
#include <linux/ftrace.h>
#include <linux/sched/topology.h>

/* WP_FLAVOUR, and the refusal of any series not listed in module/kernels. */
#include "generated/wp_kernels.h"

/* Below, a 6.12 layer and the older 6.1 one. */
#define WP_K612			(LINUX_VERSION_MAJOR == 6 && LINUX_VERSION_PATCHLEVEL == 12)

/* WF_* are private to kernel/sched/sched.h; same values in both. */
#define WP_WF_TTWU		0x08
#define WP_WF_SYNC		0x10
#if WP_K612
#define WP_WF_CURRENT_CPU	0x40	/* new in 6.2 */
#else
#define WP_WF_CURRENT_CPU	0
#endif

/* The flag that marks the LLC domain was renamed in 6.10. */
#if WP_K612
#define WP_SD_SHARE_LLC		SD_SHARE_LLC
#define WP_SD_CLUSTER		SD_CLUSTER
#else
#define WP_SD_SHARE_LLC		SD_SHARE_PKG_RESOURCES
#define WP_SD_CLUSTER		0
#endif

/* ftrace_regs became opaque with accessors in 6.12. */
#if WP_K612
#define wp_fregs_arg(fregs, n)		ftrace_regs_get_argument(fregs, n)
#define wp_fregs_set_ip(fregs, ip)	ftrace_regs_set_instruction_pointer(fregs, ip)
#else
#define wp_fregs_arg(fregs, n)		regs_get_kernel_argument(&(fregs)->regs, n)
#define wp_fregs_set_ip(fregs, ip)	ftrace_instruction_pointer_set(fregs, ip)
#endif

/*
 * Scheduler features the wakeup path reads.  Their bits are looked up by
 * name in the kernel's sched_feat_names[] at load; only their presence
 * differs: SIS_PROP was removed in 6.7.  The cluster-first scan (6.7+) is
 * gated by the static key sched_cluster_active.
 */
#define WP_HAVE_SIS_PROP	(!WP_K612)
#define WP_HAVE_CLUSTER_SCAN	WP_K612

/*
 * 6.12 (EEVDF with delayed dequeue) discounts delayed tasks when it asks
 * whether a sync waker is alone on its runqueue.
 */
#define WP_HAVE_DELAYED		WP_K612

/*
 * Test builds only: the bytes from cfs_rq.idle_h_nr_running to the next
 * 64-bit field (layout.c's test_corrupt_layout shifts the offset there);
 * 6.12 has two more counters in between.
 */
#if WP_K612
#define WP_TEST_CFS_IDLE_SHIFT	24
#else
#define WP_TEST_CFS_IDLE_SHIFT	12
#endif

/* __assign_str() lost its source argument in 6.10. */
#if WP_K612
#define WP_TRACE_ASSIGN_STR(dst, src)	__assign_str(dst)
#else
#define WP_TRACE_ASSIGN_STR(dst, src)	__assign_str(dst, src)
#endif

#endif /* WP_COMPAT_H */
