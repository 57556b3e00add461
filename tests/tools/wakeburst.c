// SPDX-License-Identifier: GPL-2.0
/*
 * wakeburst: one waker wakes several sleepers at once.
 *
 * K wakee threads last run on PREV (pinned there, then unpinned while they
 * sleep, as in wakeprobe) and wait on one futex; a waker pinned to WAKER
 * wakes them all with one FUTEX_WAKE, so their placements follow each other
 * on the waker's CPU before any of them runs: a burst.  Each round, after
 * all of them sleep and SETTLE_US passed, the waker writes "wakeburst round
 * N" to MARKER (a trace_marker file) if given, then wakes them.  A woken
 * wakee spins until all of the round's have run, so that no CPU given to
 * one goes idle (and may rightly be picked again) within a round.  The
 * wakeups that end the wakees follow the marker "wakeburst end".  Prints
 * "wakee TID" per wakee, "rounds N" and "distinct N", the rounds in which
 * all K ran on K different CPUs.  -s CPU (repeatable) keeps CPU busy with
 * a spinner thread pinned there for the whole run.  -x CPU leaves CPU out
 * of the wakees' allowed set while they sleep.
 *
 * usage: wakeburst -w WAKER -p PREV -k WAKEES [-n ROUNDS] [-i SETTLE_US]
 *                  [-m MARKER] [-s CPU]... [-x CPU]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

#define MAX_WAKEES 64
#define MAX_SPIN 256
#define USAGE "usage: wakeburst -w WAKER -p PREV -k WAKEES [-n ROUNDS] [-i SETTLE_US] [-m MARKER] [-s CPU]... [-x CPU]\n"

static int waker_cpu = -1, prev_cpu = -1, nr_wakees, rounds = 20;
static int exclude_cpu = -1;	/* -x: not in a sleeping wakee's set */
static long settle_us = 20000;
static atomic_int go_word, ready, acked, done, stop;
static pid_t tids[MAX_WAKEES];
static int spin_cpus[MAX_SPIN], nr_spin;
static int ran_on[MAX_WAKEES];

static void futex_wait(atomic_int *w, int val)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(atomic_int *w, int n)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* Sleep until *w >= want (the value waited on is the one compared). */
static void wait_at_least(atomic_int *w, int want)
{
	int cur;

	while ((cur = atomic_load(w)) < want)
		futex_wait(w, cur);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu < 0) {
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (i != exclude_cpu)
				CPU_SET(i, &set);
	} else {
		CPU_SET(cpu, &set);
	}
	if (sched_setaffinity(0, sizeof(set), &set) && cpu >= 0) {
		fprintf(stderr, "wakeburst: cannot pin to CPU %d: %s\n", cpu,
			strerror(errno));
		exit(2);
	}
}

static void *spinner(void *arg)
{
	pin(*(int *)arg);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return NULL;
}

static void *wakee(void *arg)
{
	int me = (int)(long)arg, seen = 0;

	tids[me] = (pid_t)syscall(SYS_gettid);
	for (;;) {
		pin(prev_cpu);
		pin(-1);
		atomic_fetch_add(&ready, 1);
		futex_wake(&ready, 1);
		while (atomic_load(&go_word) == seen)
			futex_wait(&go_word, seen);
		seen++;
		if (atomic_load(&stop))
			return NULL;
		ran_on[me] = sched_getcpu();
		atomic_fetch_add(&acked, 1);
		futex_wake(&acked, 1);
		/*
		 * Keep this CPU busy until every wakee of the round ran: a CPU
		 * that went idle again could rightly be picked again.
		 */
		while (atomic_load(&done) < seen)
			;
	}
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_WAKEES], spin_th[MAX_SPIN];
	struct timespec settle;
	int opt, i, j, r, fd = -1, distinct = 0;
	const char *marker = NULL;
	char *end;

	watchdog_arm("wakeburst");
	while ((opt = getopt(argc, argv, "w:p:k:n:i:m:s:x:")) != -1) {
		switch (opt) {
		case 'w':
			waker_cpu = atoi(optarg);
			break;
		case 'p':
			prev_cpu = atoi(optarg);
			break;
		case 'k':
			nr_wakees = atoi(optarg);
			break;
		case 'n':
			rounds = atoi(optarg);
			break;
		case 'i':
			errno = 0;
			settle_us = strtol(optarg, &end, 10);
			if (errno || *end || settle_us < 0 ||
			    settle_us >= 10 * 1000 * 1000)
				settle_us = -1;
			break;
		case 'm':
			marker = optarg;
			break;
		case 's':
			if (nr_spin == MAX_SPIN) {
				fprintf(stderr, USAGE);
				return 2;
			}
			spin_cpus[nr_spin++] = atoi(optarg);
			break;
		case 'x':
			exclude_cpu = atoi(optarg);
			break;
		default:
			fprintf(stderr, USAGE);
			return 2;
		}
	}
	if (waker_cpu < 0 || prev_cpu < 0 || nr_wakees <= 0 ||
	    nr_wakees > MAX_WAKEES || rounds <= 0 || settle_us < 0) {
		fprintf(stderr, USAGE);
		return 2;
	}
	if (marker) {
		fd = open(marker, O_WRONLY);
		if (fd < 0) {
			fprintf(stderr, "wakeburst: %s: %s\n", marker,
				strerror(errno));
			return 2;
		}
	}
	settle.tv_sec = settle_us / 1000000;
	settle.tv_nsec = settle_us % 1000000 * 1000;
	pin(waker_cpu);
	for (i = 0; i < nr_spin; i++)
		pthread_create(&spin_th[i], NULL, spinner, &spin_cpus[i]);
	for (i = 0; i < nr_wakees; i++)
		pthread_create(&th[i], NULL, wakee, (void *)(long)i);

	for (r = 0; r < rounds; r++) {
		char line[64];
		int n;

		wait_at_least(&ready, nr_wakees * (r + 1));
		nanosleep(&settle, NULL);
		n = snprintf(line, sizeof(line), "wakeburst round %d\n", r);
		if (fd >= 0 && write(fd, line, n) != n) {
			perror("wakeburst: marker");
			return 2;
		}
		atomic_store(&go_word, r + 1);
		futex_wake(&go_word, INT_MAX);
		wait_at_least(&acked, nr_wakees * (r + 1));
		atomic_store(&done, r + 1);
		for (i = 0; i < nr_wakees; i++)
			for (j = 0; j < i; j++)
				if (ran_on[i] == ran_on[j])
					goto next;
		distinct++;
next:
		;
	}
	wait_at_least(&ready, nr_wakees * (r + 1));
	/* The wakeups that end the wakees are no round of the test's. */
	if (fd >= 0 && write(fd, "wakeburst end\n", 14) != 14) {
		perror("wakeburst: marker");
		return 2;
	}
	atomic_store(&stop, 1);
	atomic_store(&go_word, r + 1);
	futex_wake(&go_word, INT_MAX);
	for (i = 0; i < nr_wakees; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < nr_spin; i++)
		pthread_join(spin_th[i], NULL);
	for (i = 0; i < nr_wakees; i++)
		printf("wakee %d\n", (int)tids[i]);
	printf("rounds %d\ndistinct %d\n", rounds, distinct);
	return 0;
}
