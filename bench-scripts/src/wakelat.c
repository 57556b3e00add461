// SPDX-License-Identifier: GPL-2.0
/*
 * wakelat - wakeup latency probe in the spirit of schbench.
 *
 * M message threads each own W worker threads.  A message thread posts a
 * request to each of its workers in turn: it stamps CLOCK_MONOTONIC, marks
 * the request posted and wakes the worker with FUTEX_WAKE.  The worker,
 * once running, takes its own CLOCK_MONOTONIC: the difference is the
 * wakeup latency, recorded into a per-worker log-linear histogram.  The
 * worker then spins for the think time (-r) and completes the request; the
 * last worker to complete wakes the message thread, which posts the next
 * round.
 *
 * Every interval the main thread prints, as "<time> <label> <metric> <v>":
 *	p50_us p90_us p99_us p999_us	wakeup latency percentiles (usec)
 *	rps				completed requests per second
 *	hist				the interval's raw histogram (llhist.h)
 * Interval histograms can be merged exactly by adding bucket counts.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

#include "llhist.h"
#include "wpcommon.h"

static const char *prog = "wakelat";

struct worker {
	int state;			/* futex word: 0 idle, 1 posted */
	uint64_t stamp;			/* waker's CLOCK_MONOTONIC, ns */
	struct msgthr *owner;
	pthread_t tid;
	uint64_t done;			/* completed requests */
	uint64_t hist[LLH_NBUCKETS];
	uint64_t prev[LLH_NBUCKETS];	/* main thread's last snapshot */
	uint64_t prev_done;
} __attribute__((aligned(64)));

struct msgthr {
	int pending;			/* futex word: requests outstanding */
	unsigned int nworkers;
	struct worker *workers;
	pthread_t tid;
} __attribute__((aligned(64)));

static int stop;
static unsigned int think_us = 20;

static long futex(int *uaddr, int op, int val, const struct timespec *to)
{
	return syscall(SYS_futex, uaddr, op, val, to, NULL, 0);
}

static void futex_wait(int *uaddr, int val)
{
	struct timespec to = { 0, 100 * 1000 * 1000 };

	futex(uaddr, FUTEX_WAIT_PRIVATE, val, &to);
}

static void futex_wake(int *uaddr, int n)
{
	futex(uaddr, FUTEX_WAKE_PRIVATE, n, NULL);
}

static void spin_us(unsigned int us)
{
	uint64_t end;

	if (!us)
		return;
	end = wp_mono_ns() + (uint64_t)us * 1000;
	while (wp_mono_ns() < end)
		__asm__ __volatile__("pause" ::: "memory");
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct msgthr *m = w->owner;

	for (;;) {
		uint64_t now, lat;

		while (!__atomic_load_n(&w->state, __ATOMIC_ACQUIRE)) {
			if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
				return NULL;
			futex_wait(&w->state, 0);
		}
		now = wp_mono_ns();
		lat = now > w->stamp ? now - w->stamp : 0;
		__atomic_fetch_add(&w->hist[llh_index(lat)], 1,
				   __ATOMIC_RELAXED);
		spin_us(think_us);
		__atomic_store_n(&w->state, 0, __ATOMIC_RELEASE);
		__atomic_fetch_add(&w->done, 1, __ATOMIC_RELAXED);
		if (__atomic_sub_fetch(&m->pending, 1, __ATOMIC_ACQ_REL) == 0)
			futex_wake(&m->pending, 1);
	}
}

static void *msg_fn(void *arg)
{
	struct msgthr *m = arg;
	unsigned int i;
	int p;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		__atomic_store_n(&m->pending, (int)m->nworkers,
				 __ATOMIC_RELEASE);
		for (i = 0; i < m->nworkers; i++) {
			struct worker *w = &m->workers[i];

			w->stamp = wp_mono_ns();
			__atomic_store_n(&w->state, 1, __ATOMIC_RELEASE);
			futex_wake(&w->state, 1);
		}
		while ((p = __atomic_load_n(&m->pending, __ATOMIC_ACQUIRE)))
			futex_wait(&m->pending, p);
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-m MSGTHREADS] [-w WORKERS] [-t SECONDS] [-i INTERVAL]\n"
		"       [-c COUNT] [-r THINK_US] [-L LABEL] [-H]\n"
		"  -m  message threads (default 1)\n"
		"  -w  worker threads per message thread (default: online CPUs)\n"
		"  -t  run time in seconds (default 10)\n"
		"  -i  reporting interval in seconds (default 1)\n"
		"  -c  stop after COUNT intervals (default: time only)\n"
		"  -r  busy time per request in usec (default 20)\n"
		"  -L  workload label printed in each line (default wakelat)\n"
		"  -H  do not print the raw histogram line\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int nmsg = 1, nwork = 0, count = 0, n, i, j, k;
	double secs = 10, interval = 1;
	const char *label = "wakelat";
	struct msgthr *msgs;
	uint64_t *h, start, next, end, last;
	int opt, nohist = 0;
	pthread_attr_t attr;

	while ((opt = getopt(argc, argv, "m:w:t:i:c:r:L:Hh")) != -1) {
		switch (opt) {
		case 'm':
			nmsg = (unsigned int)wp_num(prog, "-m", optarg,
					1, 1024);
			break;
		case 'w':
			nwork = (unsigned int)wp_num(prog, "-w", optarg,
					1, 4096);
			break;
		case 't':
			secs = wp_num(prog, "-t", optarg, 0.1, 86400);
			break;
		case 'i':
			interval = wp_num(prog, "-i", optarg, 0.01, 3600);
			break;
		case 'c':
			count = (unsigned int)wp_num(prog, "-c", optarg,
					1, 1e9);
			break;
		case 'r':
			think_us = (unsigned int)wp_num(prog, "-r", optarg,
					0,
							1e6);
			break;
		case 'L':
			label = optarg;
			break;
		case 'H':
			nohist = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (!nwork) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		nwork = c > 0 ? (unsigned int)c : 1;
	}
	/* Hard bound: never outlive the requested time by much. */
	alarm((unsigned int)secs + 30);

	msgs = calloc(nmsg, sizeof(*msgs));
	h = calloc(LLH_NBUCKETS, sizeof(*h));
	if (!msgs || !h)
		wp_die(prog, "out of memory");
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (i = 0; i < nmsg; i++) {
		msgs[i].nworkers = nwork;
		if (posix_memalign((void **)&msgs[i].workers, 64,
				   nwork * sizeof(struct worker)))
			wp_die(prog, "out of memory");
		memset(msgs[i].workers, 0, nwork * sizeof(struct worker));
		for (j = 0; j < nwork; j++) {
			msgs[i].workers[j].owner = &msgs[i];
			if (pthread_create(&msgs[i].workers[j].tid, &attr,
					   worker_fn, &msgs[i].workers[j]))
				wp_die(prog, "pthread_create failed");
		}
	}
	for (i = 0; i < nmsg; i++)
		if (pthread_create(&msgs[i].tid, &attr, msg_fn, &msgs[i]))
			wp_die(prog, "pthread_create failed");

	start = last = wp_mono_ns();
	end = start + (uint64_t)(secs * 1e9);
	for (n = 1; !count || n <= count; n++) {
		uint64_t done = 0, now;
		double el;

		next = start + (uint64_t)(n * interval * 1e9);
		if (next > end)
			break;
		wp_sleep_until(next);
		now = wp_mono_ns();
		memset(h, 0, LLH_NBUCKETS * sizeof(*h));
		for (i = 0; i < nmsg; i++) {
			for (j = 0; j < nwork; j++) {
				struct worker *w = &msgs[i].workers[j];
				uint64_t d;

				for (k = 0; k < LLH_NBUCKETS; k++) {
					uint64_t c;

					c = __atomic_load_n(&w->hist[k],
							    __ATOMIC_RELAXED);
					h[k] += c - w->prev[k];
					w->prev[k] = c;
				}
				d = __atomic_load_n(&w->done, __ATOMIC_RELAXED);
				done += d - w->prev_done;
				w->prev_done = d;
			}
		}
		el = (double)(now - last) / 1e9;
		last = now;
		if (llh_total(h)) {
			wp_line(label, "p50_us", "%.2f",
				llh_percentile(h, 0.50) / 1000);
			wp_line(label, "p90_us", "%.2f",
				llh_percentile(h, 0.90) / 1000);
			wp_line(label, "p99_us", "%.2f",
				llh_percentile(h, 0.99) / 1000);
			wp_line(label, "p999_us", "%.2f",
				llh_percentile(h, 0.999) / 1000);
		}
		wp_line(label, "rps", "%.1f", (double)done / el);
		if (!nohist) {
			printf("%.3f %s hist ", wp_real_s(), label);
			llh_print(stdout, h);
			putchar('\n');
		}
		fflush(stdout);
	}

	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nmsg; i++)
		pthread_join(msgs[i].tid, NULL);
	for (i = 0; i < nmsg; i++) {
		for (j = 0; j < nwork; j++)
			futex_wake(&msgs[i].workers[j].state, 1);
		for (j = 0; j < nwork; j++)
			pthread_join(msgs[i].workers[j].tid, NULL);
		free(msgs[i].workers);
	}
	free(msgs);
	free(h);
	return 0;
}
