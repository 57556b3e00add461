// SPDX-License-Identifier: GPL-2.0
/*
 * churn: wakeups under affinity churn.
 *
 * PAIRS pairs of threads ping-pong through futexes.  Before every sleep a
 * thread gives itself a random non-empty subset of the online CPUs; after
 * every wakeup it checks that it runs on one of them.  Runs until COUNT
 * wakeups in total.  Prints "wakeups N violations M"; exits 1 on any
 * violation.
 *
 * usage: churn [-p PAIRS] [-n COUNT] [-s SEED]
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

struct pair {
	atomic_int turn;	/* 0: thread A runs, 1: thread B runs */
	atomic_int done;
};

static long target = 100000;
static atomic_long wakeups, violations;
static int ncpu;
static unsigned int seed = 1;

struct arg {
	struct pair *pr;
	int me;
	unsigned int rnd;
};

static void random_affinity(unsigned int *rnd, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (!CPU_COUNT(set)) {
		for (int c = 0; c < ncpu; c++)
			if (rand_r(rnd) & 1)
				CPU_SET(c, set);
	}
	sched_setaffinity(0, sizeof(*set), set);
}

static void *worker(void *p)
{
	struct arg *a = p;
	struct pair *pr = a->pr;
	cpu_set_t set;
	int cpu;

	for (;;) {
		random_affinity(&a->rnd, &set);
		while (atomic_load(&pr->turn) != a->me && !atomic_load(&pr->done))
			syscall(SYS_futex, &pr->turn, FUTEX_WAIT_PRIVATE,
				!a->me, NULL, NULL, 0);
		if (atomic_load(&pr->done))
			break;
		cpu = sched_getcpu();
		if (cpu < 0 || !CPU_ISSET(cpu, &set))
			atomic_fetch_add(&violations, 1);
		if (atomic_fetch_add(&wakeups, 1) >= target)
			atomic_store(&pr->done, 1);
		atomic_store(&pr->turn, !a->me);
		syscall(SYS_futex, &pr->turn, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
	}
	atomic_store(&pr->turn, !a->me);
	syscall(SYS_futex, &pr->turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	int pairs = 4, opt, i;
	pthread_t *th;
	struct arg *args;
	struct pair *prs;

	while ((opt = getopt(argc, argv, "p:n:s:")) != -1) {
		switch (opt) {
		case 'p':
			pairs = atoi(optarg);
			break;
		case 'n':
			target = atol(optarg);
			break;
		case 's':
			seed = (unsigned int)atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: churn [-p PAIRS] [-n COUNT] [-s SEED]\n");
			return 2;
		}
	}
	if (pairs < 1 || target < 1) {
		fprintf(stderr, "usage: churn [-p PAIRS] [-n COUNT] [-s SEED]\n");
		return 2;
	}
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	th = calloc(2 * pairs, sizeof(*th));
	args = calloc(2 * pairs, sizeof(*args));
	prs = calloc(pairs, sizeof(*prs));
	if (!th || !args || !prs)
		return 2;
	for (i = 0; i < 2 * pairs; i++) {
		args[i].pr = &prs[i / 2];
		args[i].me = i & 1;
		args[i].rnd = seed * 7919u + (unsigned int)i;
		pthread_create(&th[i], NULL, worker, &args[i]);
	}
	for (i = 0; i < 2 * pairs; i++)
		pthread_join(th[i], NULL);
	printf("wakeups %ld violations %ld\n", atomic_load(&wakeups),
	       atomic_load(&violations));
	return atomic_load(&violations) ? 1 : 0;
}
