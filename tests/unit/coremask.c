// SPDX-License-Identifier: GPL-2.0
/*
 * module/coremask.h: whole idle cores read and claimed whatever words of
 * the idle mask their SMT siblings' bits are in.  Topologies: x86's
 * numbering (the siblings of core c are c, c + cores, ...), where from 33
 * cores on some cores' siblings fall in different 64-bit words and from
 * 64 on all of them, and QEMU's (2k, 2k + 1), where they never do.  For
 * every CPU of each: a whole idle core reads idle and is claimed; a core
 * with any other sibling busy is not, and the failed claim leaves the
 * mask as it was; a claimed core reads busy from every sibling, its idle
 * siblings keep their bits and no sibling can claim it again.  Then two
 * threads claim the cores of a 128-CPU x86 mask from opposite siblings
 * at once: no core is won twice, and a lost claim leaves its bit set.
 */
#include <pthread.h>
#include <stdlib.h>
#include <linux/types.h>
#include <linux/cpumask.h>

struct wp_llc {			/* what coremask.h uses of idle.h's */
	unsigned long *idle;
};

#include "coremask.h"
#include "tap.h"

#define WORDS BITS_TO_LONGS(NR_CPUS)

struct topo {
	const char *name;
	unsigned int cpus, threads;
	bool x86;		/* sibling t of core c is c + t * cores */
	unsigned int far_cores;	/* cores with siblings in two words */
};

static const struct topo topos[] = {
	{ "x86 72 (36 cores x 2)", 72, 2, true, 8 },	/* cores 28-35 */
	{ "x86 128 (64 cores x 2)", 128, 2, true, 64 },
	{ "x86 128 (32 cores x 4)", 128, 4, true, 32 },
	{ "x86 16 (8 cores x 2)", 16, 2, true, 0 },
	{ "QEMU 72 (2k, 2k + 1)", 72, 2, false, 0 },
	{ "QEMU 128 (2k, 2k + 1)", 128, 2, false, 0 },
};

static unsigned int core_of(const struct topo *t, unsigned int cpu)
{
	unsigned int cores = t->cpus / t->threads;

	return t->x86 ? cpu % cores : cpu / t->threads;
}

static void build(const struct topo *t)
{
	unsigned int a, b;

	nr_cpu_ids = t->cpus;
	for (a = 0; a < NR_CPUS; a++)
		cpumask_clear(&wp_shim_smt[a]);
	for (a = 0; a < t->cpus; a++)
		for (b = 0; b < t->cpus; b++)
			if (core_of(t, a) == core_of(t, b))
				cpumask_set_cpu(b, &wp_shim_smt[a]);
}

static void fill(unsigned long *m, unsigned int cpus)
{
	unsigned int c;

	memset(m, 0, WORDS * sizeof(*m));
	for (c = 0; c < cpus; c++)
		m[BIT_WORD(c)] |= BIT_MASK(c);
}

static bool same(const unsigned long *a, const unsigned long *b)
{
	return !memcmp(a, b, WORDS * sizeof(*a));
}

/* Failures of one property over a topology's CPUs, the first one told. */
struct tally {
	unsigned int bad, checked;
	char first[160];
};

static void check(struct tally *y, bool cond, unsigned int cpu,
		  const char *what)
{
	y->checked++;
	if (cond)
		return;
	if (!y->bad++)
		snprintf(y->first, sizeof(y->first), "cpu %u: %s", cpu, what);
}

static void report(struct tally *y, const char *topo, const char *prop)
{
	if (!ok(y->checked && !y->bad, "%s: %s (%u checks)", topo, prop,
		y->checked))
		printf("#   %u failed, first %s\n", y->bad, y->first);
}

static void test_topo(const struct topo *t)
{
	unsigned long idle[WORDS], want[WORDS];
	struct wp_llc llc = { .idle = idle };
	struct tally claim = {}, sibs = {}, busy = {}, own = {}, others = {};
	unsigned int cpu, s, x, far = 0, far_cores = 0;
	unsigned int n;

	build(t);
	for (cpu = 0; cpu < t->cpus; cpu++) {
		bool spans = false;

		for_each_cpu(s, cpu_smt_mask(cpu))
			spans |= BIT_WORD(s) != BIT_WORD(cpu);
		/* Each core once: from its first CPU. */
		far_cores += spans &&
			     cpumask_next(-1, cpu_smt_mask(cpu)) == (int)cpu;

		/* Every CPU idle: the core reads idle and is claimed. */
		fill(idle, t->cpus);
		check(&claim, wp_core_idle(&llc, cpu), cpu,
		      "whole idle core does not read idle");
		n = 99;
		check(&claim, wp_core_claim(&llc, cpu, &n), cpu,
		      "whole idle core not claimed");
		check(&claim, n == 0, cpu, "claim saw a sibling busy");
		fill(want, t->cpus);
		want[BIT_WORD(cpu)] &= ~BIT_MASK(cpu);
		check(&claim, same(idle, want), cpu,
		      "claim changed more than its own bit");

		/* Claimed: no sibling reads idle or claims it, bits stay. */
		for_each_cpu(s, cpu_smt_mask(cpu)) {
			check(&sibs, !wp_core_idle(&llc, s), s,
			      "claimed core reads idle");
			if (s == cpu)
				continue;
			check(&sibs, test_bit(s, idle), s,
			      "idle sibling lost its bit");
			check(&sibs, !wp_core_claim(&llc, s, &n), s,
			      "claimed core claimed again");
			check(&sibs, same(idle, want), s,
			      "failed claim changed the mask");
		}
		/* Other cores are untouched. */
		for (x = 0; x < t->cpus; x++)
			check(&others, wp_core_idle(&llc, x) ==
			      (core_of(t, x) != core_of(t, cpu)), x,
			      "another core's idleness changed");

		/* One other sibling busy: not idle, not claimed, unchanged. */
		for_each_cpu(s, cpu_smt_mask(cpu)) {
			if (s == cpu)
				continue;
			far += BIT_WORD(s) != BIT_WORD(cpu);
			fill(idle, t->cpus);
			idle[BIT_WORD(s)] &= ~BIT_MASK(s);
			memcpy(want, idle, sizeof(want));
			check(&busy, !wp_core_idle(&llc, cpu), cpu,
			      "core with a busy sibling reads idle");
			check(&busy, !wp_core_claim(&llc, cpu, &n), cpu,
			      "core with a busy sibling claimed");
			check(&busy, same(idle, want), cpu,
			      "failed claim changed the mask");
		}

		/* @cpu itself busy: nothing to claim. */
		fill(idle, t->cpus);
		idle[BIT_WORD(cpu)] &= ~BIT_MASK(cpu);
		memcpy(want, idle, sizeof(want));
		check(&own, !wp_core_idle(&llc, cpu), cpu,
		      "core of a busy CPU reads idle");
		check(&own, !wp_core_claim(&llc, cpu, &n), cpu,
		      "busy CPU claimed");
		check(&own, same(idle, want), cpu,
		      "failed claim changed the mask");
	}
	is_u(far_cores, t->far_cores, "%s: cores whose siblings span words",
	     t->name);
	ok(t->far_cores ? far > 0 : far == 0,
	   "%s: %u busy siblings tried in another word than the claimed CPU",
	   t->name, far);
	report(&claim, t->name,
	       "every whole idle core reads idle and is claimed, its own bit only");
	report(&sibs, t->name,
	       "a claimed core reads busy from every sibling, whose bits stay, "
	       "and is not claimed again");
	report(&others, t->name, "a claim leaves the other cores idle");
	report(&busy, t->name,
	       "a core with one sibling busy is neither idle nor claimed, "
	       "the mask unchanged");
	report(&own, t->name, "a busy CPU's core is neither idle nor claimed");
}

/* Two threads claim every core at once, from opposite siblings. */
#define ROUNDS 3000
#define CORES 64		/* x86 128: siblings c and c + 64 */

static unsigned long race_idle[WORDS];
static bool won[2][CORES];
static pthread_barrier_t start, done;

static void *racer(void *arg)
{
	struct wp_llc llc = { .idle = race_idle };
	unsigned int me = (unsigned long)arg, c, n;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		pthread_barrier_wait(&start);
		for (c = 0; c < CORES; c++)
			won[me][c] = wp_core_claim(&llc, c + me * CORES, &n);
		pthread_barrier_wait(&done);
	}
	return NULL;
}

static void test_race(void)
{
	unsigned int twice = 0, kept = 0, lost_both = 0, bits = 0;
	const struct topo t = { "x86 128", 128, 2, true, 64 };
	pthread_t th[2];
	unsigned long i;
	int r, c;

	build(&t);
	pthread_barrier_init(&start, NULL, 3);
	pthread_barrier_init(&done, NULL, 3);
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, racer, (void *)i);
	for (r = 0; r < ROUNDS; r++) {
		fill(race_idle, 128);
		pthread_barrier_wait(&start);
		pthread_barrier_wait(&done);
		for (c = 0; c < CORES; c++) {
			bool a = won[0][c], b = won[1][c];
			bool sa = test_bit(c, race_idle);
			bool sb = test_bit(c + CORES, race_idle);

			twice += a && b;
			lost_both += !a && !b;
			/* The winner's bit is clear, a loser's set (back). */
			bits += sa == a || sb == b;
			kept += a != b;
		}
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	is_u(twice, 0,
	     "race: no core won by both siblings (%u rounds of %u cores)",
	     ROUNDS, CORES);
	is_u(bits, 0,
	     "race: the winner's bit cleared, a lost claim's set back");
	ok(kept > 0, "race: cores were won (%u; lost by both at once: %u)",
	   kept, lost_both);
}

int main(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(topos) / sizeof(topos[0]); i++)
		test_topo(&topos[i]);
	test_race();
	return tap_done();
}
