/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the supported kernels lives here: Debian's 6.1
 * (bookworm), 6.12 (bookworm-backports) and 7.2 (sid).  Private layout comes from BTF
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

/* bin2hex() moved out of kernel.h into its own header (7.x). */
#if __has_include("linux/hex.h")
#include <linux/hex.h>
#endif

/* WP_FLAVOUR, and the refusal of any series not listed in module/kernels. */
#include "generated/wp_kernels.h"

/*
 * Each fact below is keyed to the release that brought it.  Only the series
 * of module/kernels compile (the refusal above), so a threshold needs to be
 * right for those: 6.1, 6.12 and 7.2.  Facts BTF can tell are read there
 * instead (sd_balance_shared, the per-CPU base: layout.c).
 */
#define WP_SINCE(maj, min)	(LINUX_VERSION_MAJOR > (maj) ||		\
				 (LINUX_VERSION_MAJOR == (maj) &&		\
				  LINUX_VERSION_PATCHLEVEL >= (min)))

/* WF_* are private to kernel/sched/sched.h; same values in all. */
#define WP_WF_TTWU		0x08
#define WP_WF_SYNC		0x10
#if WP_SINCE(6, 2)
#define WP_WF_CURRENT_CPU	0x40
#else
#define WP_WF_CURRENT_CPU	0
#endif

/* The flag that marks the LLC domain was renamed in 6.10. */
#if WP_SINCE(6, 10)
#define WP_SD_SHARE_LLC		SD_SHARE_LLC
#define WP_SD_CLUSTER		SD_CLUSTER
#else
#define WP_SD_SHARE_LLC		SD_SHARE_PKG_RESOURCES
#define WP_SD_CLUSTER		0
#endif

/* ftrace_regs became opaque with accessors (6.12 has them). */
#if WP_SINCE(6, 12)
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
#define WP_HAVE_SIS_PROP	(!WP_SINCE(6, 7))
#define WP_HAVE_CLUSTER_SCAN	WP_SINCE(6, 7)

/*
 * EEVDF with delayed dequeue (6.12) discounts delayed tasks when it asks
 * whether a sync waker is alone on its runqueue.
 */
#define WP_HAVE_DELAYED		WP_SINCE(6, 12)

/*
 * choose_idle_cpu() (in 7.2, not in 6.12): a runqueue with only SCHED_IDLE
 * tasks counts as idle for a wakee that is not SCHED_IDLE itself.
 */
#define WP_HAVE_CHOOSE_IDLE	WP_SINCE(7, 0)

/*
 * select_idle_cpu() returns at once, leaving has_idle_cores set, when the
 * wakee may run nowhere in the LLC (7.2; 6.12 scans nothing and clears it).
 */
#define WP_SIC_EMPTY_RETURNS	WP_SINCE(7, 0)

/*
 * sd_llc_id is the first CPU of the LLC up to 6.12; 7.2 hands out dense
 * LLC ids (sched_domains_alloc_llc_id()), equal across an LLC only.
 */
#define WP_LLC_ID_IS_FIRST_CPU	(!WP_SINCE(7, 0))

/*
 * Test builds only: the bytes from cfs_rq.idle_h_nr_running (h_nr_idle) to
 * the vruntime base after it (layout.c's test_corrupt_layout shifts the
 * offset there).
 */
#if WP_SINCE(7, 0)
#define WP_TEST_CFS_IDLE_SHIFT	20
#elif WP_SINCE(6, 12)
#define WP_TEST_CFS_IDLE_SHIFT	24
#else
#define WP_TEST_CFS_IDLE_SHIFT	12
#endif

/*
 * Test builds only, likewise: rq.ttwu_pending to nr_switches (7.2 put
 * cpu_capacity, whose upper half is zero, 8 bytes on), and sd_llc_shared
 * to a neighbour that is not the same pointer (7.2's sd_balance_shared,
 * just before it, is).
 */
#if WP_SINCE(7, 0)
#define WP_TEST_TTWU_SHIFT		52
#define WP_TEST_LLC_SHARED_SHIFT	8
#else
#define WP_TEST_TTWU_SHIFT		8
#define WP_TEST_LLC_SHARED_SHIFT	-8
#endif

/* A bin_attribute's read() takes it const (7.2; not 6.12). */
#if WP_SINCE(7, 0)
#define WP_BIN_ATTR_CONST	const
#else
#define WP_BIN_ATTR_CONST
#endif

/* __assign_str() lost its source argument in 6.10. */
#if WP_SINCE(6, 10)
#define WP_TRACE_ASSIGN_STR(dst, src)	__assign_str(dst)
#else
#define WP_TRACE_ASSIGN_STR(dst, src)	__assign_str(dst, src)
#endif

#endif /* WP_COMPAT_H */
