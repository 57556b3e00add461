/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cpumask of up to NR_CPUS bits for the host unit tests; nr_cpu_ids is
 * set by the test (the size of the topology it builds).
 */
#ifndef WP_SHIM_CPUMASK_H
#define WP_SHIM_CPUMASK_H

#include <linux/bitops.h>
#include <string.h>

#define NR_CPUS 256

struct cpumask {
	unsigned long bits[BITS_TO_LONGS(NR_CPUS)];
};

static unsigned int nr_cpu_ids = NR_CPUS;

#define cpumask_bits(m) ((m)->bits)

static inline void cpumask_clear(struct cpumask *m)
{
	memset(m, 0, sizeof(*m));
}

static inline void cpumask_set_cpu(unsigned int cpu, struct cpumask *m)
{
	m->bits[BIT_WORD(cpu)] |= BIT_MASK(cpu);
}

static inline bool cpumask_test_cpu(int cpu, const struct cpumask *m)
{
	return m->bits[BIT_WORD(cpu)] & BIT_MASK(cpu);
}

/* The next CPU of @m after @n, or nr_cpu_ids. */
static inline int cpumask_next(int n, const struct cpumask *m)
{
	unsigned int cpu;

	for (cpu = n + 1; cpu < nr_cpu_ids; cpu++)
		if (cpumask_test_cpu(cpu, m))
			return cpu;
	return nr_cpu_ids;
}

#define for_each_cpu(cpu, mask)						\
	for ((cpu) = -1; (cpu) = cpumask_next((cpu), (mask)),		\
	     (unsigned int)(cpu) < nr_cpu_ids;)

#endif
