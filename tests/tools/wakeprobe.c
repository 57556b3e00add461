// SPDX-License-Identifier: GPL-2.0
/*
 * wakeprobe: where does a woken task land?
 *
 * A wakee thread is made to last run on PREV (pinned there, then unpinned
 * while it sleeps, so the kernel's prev_cpu is PREV but any CPU is
 * allowed); optional spinner threads keep CPUs busy; a waker pinned to
 * WAKER wakes the wakee through a futex (-S: a pipe, whose write wakes
 * the reader as a sync wakeup, WF_SYNC) and waits for its answer.  The
 * wakee reports the CPU it woke up on.  Prints one line per CPU:
 * "cpu N count", then "trials N".
 *
 * usage: wakeprobe -w WAKER -p PREV [-s CPU]... [-n TRIALS] [-i SETTLE_US]
 *                  [-b BUSY_US] [-x CPU] [-A] [-I] [-S] [-D SECONDS]
 *
 * SETTLE_US (default 20000) is how long the waker waits after the wakee
 * said it is going to sleep, so that it really sleeps when woken.
 * BUSY_US (default 0) is how long the waker then runs before the wake, to
 * make it a long-running waker.  -x CPU leaves CPU out of the wakee's
 * allowed set while it sleeps (so an idle CPU cannot pull it); -A allows
 * it, while it sleeps, only the CPUs wakeprobe was started on (taskset -c
 * LIST wakeprobe -A ...; the waker and spinners may be pinned elsewhere,
 * as affinity, unlike a cpuset, does not bound it); -I makes the
 * wakee SCHED_IDLE, so that queued behind a spinner it never preempts it
 * and waits for the spinner's tick.
 *
 * -D SECONDS first lowers wake_wide()'s flip count that the threads are
 * created with.  A thread starts with its creator's count (here the test
 * shell's), and a count halves at most once a second, only when its task
 * wakes another through select_task_rq_fair.  The wakee wakes only the
 * pinned waker, which is placed without that call, so it keeps the count
 * it was born with while the waker's halves: after two halvings the two
 * differ by the LLC size, and with a shell's count of 16 or more wake_wide
 * then vetoes the waker's CPU for as long as the waker's count stays at or
 * above the LLC size (seen on Debian 7.2 for most of a run).  The main
 * thread therefore wakes an unpinned helper every 10 ms for SECONDS
 * before it creates anyone (8 s: at least 7 halvings, so a count up to
 * 500 ends under 4).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "watchdog.h"

#define MAX_SPIN 64
#define USAGE "usage: wakeprobe -w WAKER -p PREV [-s CPU]... [-n TRIALS] [-i SETTLE_US] [-b BUSY_US] [-x CPU] [-A] [-I] [-S] [-D SECONDS]\n"

static int waker_cpu = -1, prev_cpu = -1, trials = 50, exclude_cpu = -1;
static int wakee_idle, sync_pipe[2] = { -1, -1 };
static long settle_us = 20000, busy_us, decay_s;
static int spin_cpus[MAX_SPIN], nr_spin;
static atomic_int go_word, ack_word, stop;
static int landed[CPU_SETSIZE];
/* -A: the CPUs wakeprobe started on, the wakee's while it sleeps. */
static cpu_set_t start_set;
static int use_start_set;
static int wakee_prev_ok;

static void futex_wait(atomic_int *w, int val)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(atomic_int *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/*
 * Sleep until *w == want.  The value handed to FUTEX_WAIT is the one just
 * compared: reading *w again for the call would miss a store (and its
 * wake) landing between the two reads, and sleep on the new value forever.
 */
static void wait_for(atomic_int *w, int want)
{
	int cur;

	while ((cur = atomic_load(w)) != want)
		futex_wait(w, cur);
}

static void pin(pid_t tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu < 0) {
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (i != exclude_cpu &&
			    (!use_start_set || CPU_ISSET(i, &start_set)))
				CPU_SET(i, &set);
	} else {
		CPU_SET(cpu, &set);
	}
	if (sched_setaffinity(tid, sizeof(set), &set) && cpu >= 0) {
		fprintf(stderr, "wakeprobe: cannot pin to CPU %d: %s\n", cpu,
			strerror(errno));
		exit(2);
	}
}

/* A non-negative number below 10 s in microseconds, or -1. */
static long parse_us(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v >= 10 * 1000 * 1000)
		return -1;
	return v;
}

/* Microseconds since @t0 (CLOCK_MONOTONIC). */
static long us_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000000L +
	       (t.tv_nsec - t0->tv_nsec) / 1000;
}

/* Run on the CPU for @us microseconds. */
static void busy(long us)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (us_since(&t0) < us)
		;
}

static void *spinner(void *arg)
{
	pin(0, *(int *)arg);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return NULL;
}

/* The wakee waits for go_word to change: on the futex, or in read(). */
static void wake_wakee(void)
{
	if (sync_pipe[1] < 0)
		futex_wake(&go_word);
	else if (write(sync_pipe[1], "g", 1) != 1)
		exit(2);
}

static atomic_int decay_word;

/* Sleeps until decay_word is -1; only there to be woken. */
static void *decay_helper(void *arg)
{
	(void)arg;
	wait_for(&decay_word, -1);
	return NULL;
}

/* -D: wake an unpinned helper every 10 ms for decay_s seconds. */
static void decay_flips(void)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 }, t0;
	pthread_t th;

	pthread_create(&th, NULL, decay_helper, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		nanosleep(&tick, NULL);
		atomic_fetch_add(&decay_word, 1);
		futex_wake(&decay_word);
	} while (us_since(&t0) < decay_s * 1000000L);
	atomic_store(&decay_word, -1);
	futex_wake(&decay_word);
	pthread_join(th, NULL);
}

static pid_t wakee_tid;
static atomic_int wakee_ready;

static void *wakee(void *arg)
{
	int seen = 0;

	(void)arg;
	wakee_tid = (pid_t)syscall(SYS_gettid);
	if (wakee_idle) {
		struct sched_param sp = { .sched_priority = 0 };

		if (sched_setscheduler(0, SCHED_IDLE, &sp)) {
			fprintf(stderr, "wakeprobe: SCHED_IDLE refused for the sleeper: %s\n",
				strerror(errno));
			exit(2);
		}
	}
	for (;;) {
		/* Run on PREV, then go to sleep there with any CPU allowed. */
		pin(0, prev_cpu);
		if (sched_getcpu() == prev_cpu)
			wakee_prev_ok++;
		pin(0, -1);
		atomic_store(&wakee_ready, seen + 1);
		futex_wake(&wakee_ready);
		while (atomic_load(&go_word) == seen) {
			char c;

			if (sync_pipe[0] < 0)
				futex_wait(&go_word, seen);
			else if (read(sync_pipe[0], &c, 1) < 0 && errno != EINTR)
				exit(2);
		}
		seen++;
		if (atomic_load(&stop))
			return NULL;
		landed[sched_getcpu()]++;
		atomic_store(&ack_word, seen);
		futex_wake(&ack_word);
	}
}

int main(int argc, char **argv)
{
	pthread_t spin_th[MAX_SPIN], wk;
	struct timespec settle;
	int opt, i, n;

	watchdog_arm("wakeprobe");
	while ((opt = getopt(argc, argv, "w:p:s:n:i:b:x:AISD:")) != -1) {
		switch (opt) {
		case 'w':
			waker_cpu = atoi(optarg);
			break;
		case 'p':
			prev_cpu = atoi(optarg);
			break;
		case 's':
			if (nr_spin < MAX_SPIN)
				spin_cpus[nr_spin++] = atoi(optarg);
			break;
		case 'n':
			trials = atoi(optarg);
			break;
		case 'i':
			settle_us = parse_us(optarg);
			break;
		case 'b':
			busy_us = parse_us(optarg);
			break;
		case 'x':
			exclude_cpu = atoi(optarg);
			break;
		case 'A':
			if (sched_getaffinity(0, sizeof(start_set), &start_set)) {
				perror("wakeprobe: sched_getaffinity");
				return 2;
			}
			use_start_set = 1;
			break;
		case 'I':
			wakee_idle = 1;
			break;
		case 'D':
			decay_s = atoi(optarg);
			break;
		case 'S':
			if (pipe(sync_pipe)) {
				perror("wakeprobe: pipe");
				return 2;
			}
			break;
		default:
			fprintf(stderr, USAGE);
			return 2;
		}
	}
	if (waker_cpu < 0 || prev_cpu < 0 || trials <= 0 || settle_us < 0 ||
	    busy_us < 0 || decay_s < 0 || decay_s > 60) {
		fprintf(stderr, USAGE);
		return 2;
	}
	settle.tv_sec = settle_us / 1000000;
	settle.tv_nsec = settle_us % 1000000 * 1000;
	if (decay_s)
		decay_flips();
	pin(0, waker_cpu);
	for (i = 0; i < nr_spin; i++)
		pthread_create(&spin_th[i], NULL, spinner, &spin_cpus[i]);
	pthread_create(&wk, NULL, wakee, NULL);

	for (n = 0; n < trials; n++) {
		wait_for(&wakee_ready, n + 1);
		/* Let the wakee really sleep (and its CPU settle). */
		nanosleep(&settle, NULL);
		if (busy_us)
			busy(busy_us);
		atomic_store(&go_word, n + 1);
		wake_wakee();
		wait_for(&ack_word, n + 1);
	}
	atomic_store(&stop, 1);
	wait_for(&wakee_ready, n + 1);
	atomic_store(&go_word, n + 1);
	wake_wakee();
	pthread_join(wk, NULL);
	for (i = 0; i < nr_spin; i++)
		pthread_join(spin_th[i], NULL);

	for (i = 0; i < CPU_SETSIZE; i++)
		if (landed[i])
			printf("cpu %d %d\n", i, landed[i]);
	printf("trials %d\nprev_ok %d\nwakee %d\n", trials, wakee_prev_ok,
	       (int)wakee_tid);
	return 0;
}
