// SPDX-License-Identifier: GPL-2.0
/*
 * stock: the kernel's own select_task_rq_fair runs, untouched.  The hook's
 * callback sees the call and returns at once.
 */
#include "../wakeplace.h"

/*
 * For the docs (scripts/gen-docs):
 * search: the kernel's own code runs, untouched
 * idea: baseline
 */
struct wakeplace_policy wp_policy_stock = {
	.name = "stock",
	.description = "the kernel's own wakeup placement, untouched",
};
