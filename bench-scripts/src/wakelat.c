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
 *
 * -b N adds N CPU-bound neighbours (threads that spin until the end): a
 * wakee placed on a CPU a neighbour occupies waits for the scheduler to
 * preempt it, up to a slice, where one placed on an idle CPU waits
 * microseconds.  That is the cost of a placement that misses an idle CPU.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

#include "wpcommon.h"

static const char *prog = "wakelat";

struct worker {
	int state;			/* futex word: 0 idle, 1 posted */
	uint64_t stamp;			/* waker's CLOCK_MONOTONIC, ns */
	struct msgthr *owner;
	pthread_t tid;
	struct wp_stat st;		/* completed requests, latencies */
} __attribute__((aligned(64)));

struct msgthr {
	int pending;			/* futex word: requests outstanding */
	unsigned int nworkers;
	struct worker *workers;
	pthread_t tid;
} __attribute__((aligned(64)));

static int stop;
static unsigned int nmsg = 1, nwork, think_us = 20, nhogs;

static const struct wp_uopt own[] = {
	{ 'm', &nmsg, 1, 1024 },
	{ 'w', &nwork, 1, 4096 },
	{ 'r', &think_us, 0, 1e6 },
	{ 'b', &nhogs, 0, 1024 },
	{ 0 }
};

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
		__atomic_fetch_add(&w->st.hist[llh_index(lat)], 1,
				   __ATOMIC_RELAXED);
		spin_us(think_us);
		__atomic_store_n(&w->state, 0, __ATOMIC_RELEASE);
		__atomic_fetch_add(&w->st.done, 1, __ATOMIC_RELAXED);
		if (__atomic_sub_fetch(&m->pending, 1, __ATOMIC_ACQ_REL) == 0)
			futex_wake(&m->pending, 1);
	}
}

static void *hog_fn(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		__asm__ __volatile__("pause" ::: "memory");
	return NULL;
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
		/*
		 * A worker that saw stop before this round's post has left
		 * and will never complete it: stop ends the wait too.
		 */
		while ((p = __atomic_load_n(&m->pending, __ATOMIC_ACQUIRE)) &&
		       !__atomic_load_n(&stop, __ATOMIC_RELAXED))
			futex_wait(&m->pending, p);
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-m MSGTHREADS] [-w WORKERS] [-t SECONDS] [-i INTERVAL]\n"
		"       [-c COUNT] [-r THINK_US] [-b HOGS] [-L LABEL] [-H]\n"
		"  -m  message threads (default 1)\n"
		"  -w  worker threads per message thread (default: online CPUs)\n"
		WP_USAGE_TIC
		"  -r  busy time per request in usec (default 20)\n"
		"  -b  CPU-bound neighbour threads, spinning all along (default 0)\n"
		"  -L  workload label printed in each line (default wakelat)\n"
		"  -H  do not print the raw histogram line\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static const double q[] = { 0.50, 0.90, 0.99, 0.999 };
	static const char *const qname[] = {
		"p50_us", "p90_us", "p99_us", "p999_us"
	};
	struct wp_opts o;
	struct wp_ticker tk;
	struct msgthr *msgs;
	pthread_t *hogs;
	uint64_t *h;
	double el;
	unsigned int i, j;
	pthread_attr_t attr;

	wp_getopt(prog, argc, argv, "m:w:t:i:c:r:b:L:Hh", own, &o, usage);
	if (!nwork) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		nwork = c > 0 ? (unsigned int)c : 1;
	}
	/* Hard bound: never outlive the requested time by much. */
	alarm((unsigned int)o.secs + 30);

	msgs = calloc(nmsg, sizeof(*msgs));
	hogs = calloc(nhogs + 1, sizeof(*hogs));
	h = calloc(LLH_NBUCKETS, sizeof(*h));
	if (!msgs || !hogs || !h)
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
	for (i = 0; i < nhogs; i++)
		if (pthread_create(&hogs[i], &attr, hog_fn, NULL))
			wp_die(prog, "pthread_create failed");
	for (i = 0; i < nmsg; i++)
		if (pthread_create(&msgs[i].tid, &attr, msg_fn, &msgs[i]))
			wp_die(prog, "pthread_create failed");

	wp_ticker_start(&tk, &o);
	while (wp_tick(&tk, &el)) {
		uint64_t done = 0;

		memset(h, 0, LLH_NBUCKETS * sizeof(*h));
		for (i = 0; i < nmsg; i++)
			for (j = 0; j < nwork; j++)
				done += wp_stat_collect(&msgs[i].workers[j].st,
							h);
		wp_pct_lines(o.label, h, q, qname, WP_NELEM(q));
		wp_line(o.label, "rps", "%.1f", (double)done / el);
		wp_interval_end(&o, h);
	}

	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nhogs; i++)
		pthread_join(hogs[i], NULL);
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
	free(hogs);
	free(h);
	return 0;
}
