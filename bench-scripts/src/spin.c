// SPDX-License-Identifier: GPL-2.0
/*
 * spin - a CPU-bound batch whose throughput is the metric.
 *
 * N threads each repeat a fixed unit of integer work (2^16 steps of a
 * 64-bit LCG, no memory traffic) and count the units they finish.  Every
 * interval the reporting thread prints
 *	<unix_time> <label> mops <million steps per second, all threads>
 * so the batch's share of the CPUs shows as a rate: what the wakeups of
 * another workload, placed on its CPUs, cost it.  Under TCG a step is
 * some 50x slower than native: compare rates within one run only.
 *
 * Exit status: 0 ran, 2 usage.
 */
#include <pthread.h>

#include "wpcommon.h"

#define SPIN_STEPS	65536u	/* LCG steps per unit */

static const char *const prog = "spin";
static unsigned int nthreads = 1;
static int stop;

static const struct wp_uopt own[] = {
	{ 'n', &nthreads, 1, 4096 },
	{ 0, NULL, 0, 0 },
};

struct spinner {
	uint64_t units;		/* units done, read by the reporter */
	uint64_t prev;		/* the reporter's last reading */
	uint64_t sink;		/* keeps the work from being optimised out */
	pthread_t tid;
} __attribute__((aligned(64)));

static void *spin_fn(void *arg)
{
	struct spinner *s = arg;
	uint64_t x = (uint64_t)(uintptr_t)s | 1;
	unsigned int i;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (i = 0; i < SPIN_STEPS; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		s->sink = x;
		__atomic_fetch_add(&s->units, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-n THREADS] [-t SECONDS] [-i INTERVAL] [-c COUNT] [-L LABEL]\n"
		"  -n  spinning threads (default 1)\n"
		WP_USAGE_TIC
		"  -L  workload label printed in each line (default spin)\n"
		"output: \"<unix_time> <label> mops <value>\" per interval: million\n"
		"        work steps per second, summed over the threads\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct wp_opts o;
	struct wp_ticker tk;
	struct spinner *sp;
	unsigned int i;
	double el;

	wp_getopt(prog, argc, argv, "n:t:i:c:L:h", own, &o, usage);
	alarm((unsigned int)o.secs + 30);
	if (posix_memalign((void **)&sp, 64, nthreads * sizeof(*sp)))
		wp_die(prog, "out of memory");
	memset(sp, 0, nthreads * sizeof(*sp));
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&sp[i].tid, NULL, spin_fn, &sp[i]))
			wp_die(prog, "pthread_create failed");

	wp_ticker_start(&tk, &o);
	while (wp_tick(&tk, &el)) {
		uint64_t done = 0;

		for (i = 0; i < nthreads; i++) {
			uint64_t u = __atomic_load_n(&sp[i].units,
						     __ATOMIC_RELAXED);

			done += u - sp[i].prev;
			sp[i].prev = u;
		}
		wp_line(o.label, "mops", "%.3f",
			(double)done * SPIN_STEPS / 1e6 / el);
		fflush(stdout);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nthreads; i++)
		pthread_join(sp[i].tid, NULL);
	free(sp);
	return 0;
}
