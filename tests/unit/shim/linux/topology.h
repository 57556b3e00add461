/* SPDX-License-Identifier: GPL-2.0 */
/* The SMT siblings of each CPU, from a table the test fills. */
#ifndef WP_SHIM_TOPOLOGY_H
#define WP_SHIM_TOPOLOGY_H

#include <linux/cpumask.h>

static struct cpumask wp_shim_smt[NR_CPUS];

#define cpu_smt_mask(cpu) (&wp_shim_smt[(cpu)])

#endif
