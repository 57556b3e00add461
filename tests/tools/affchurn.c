// SPDX-License-Identifier: GPL-2.0
/*
 * affchurn: wakeups of tasks whose allowed CPUs another thread keeps
 * changing, with two independent checks of where they wake up.
 *
 * PAIRS pairs of worker threads ping-pong through futexes: every handoff
 * wakes the partner.  Meanwhile the main thread changes the workers'
 * allowed CPUs at random, either with sched_setaffinity() on one worker or
 * (with -c DIR) by writing a random CPU list to DIR/cpuset.cpus, a cgroup
 * v2 cpuset the process moves itself into.  Each change is bracketed by a
 * generation counter, odd while the change is in flight; once the change
 * returned, the main thread reads every affected worker's mask back with
 * sched_getaffinity(), i.e. what the kernel enforces after cpusets and the
 * request were combined, and publishes it.
 *
 * Check 1 (every wakeup): after waking up, a worker compares
 * sched_getcpu() with its published mask, when the generation it read
 * before going to sleep is still current and even: the wakeup was then
 * placed under that mask, so the CPU must be in it.  Wakeups that
 * overlapped a change are counted as skipped.
 *
 * Check 2 (sampling, from outside): between changes the main thread picks
 * a worker, reads its run time twice from /proc/self/task/TID/schedstat,
 * then its CPU (field 39 of .../stat).  If it ran in between, that CPU is
 * where the kernel last placed or ran it after the mask was set, so it
 * must be in the mask.  Nothing but the main thread changes masks, so no
 * change is in flight while it samples.
 *
 * Output, one line:
 *   wakeups N checked N skipped N violations N samples N sample_violations N
 *   setaffinity N cpuset N refused N
 * Exit status: 0; 1 on any violation; 2 on usage or setup errors.
 *
 * usage: affchurn [-p PAIRS] [-n WAKEUPS] [-t SECONDS] [-s SEED]
 *                 [-c CGROUP_DIR] [-i CHANGE_INTERVAL_US] [-w SPIN_US]
 *                 [-S SAMPLES] [-F]
 * -t stops early, after SECONDS, with fewer wakeups.  -F (self-test of the
 * checks) publishes the complement of each mask: both checks must fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

#define WORDS		(CPU_SETSIZE / 64)
#define MAX_REPORTS	10

struct pair {
	atomic_int turn;	/* 0: worker A runs, 1: worker B runs */
	atomic_int done;
};

struct worker {
	pthread_t th;
	struct pair *pr;
	int me;
	atomic_int tid;
	atomic_ulong mask[WORDS];	/* published allowed CPUs */
	unsigned int rnd;
};

static atomic_long target = 100000;
/*
 * Set once the changer made a change of each kind it makes (or gave up:
 * time limit, refusals): the workers run past the target until then, so
 * that a run whose wakeups all fit in one slow cpuset write still checks
 * some wakeups against a changed mask.
 */
static atomic_int changed_enough;
static int spin_us, fault;
static atomic_ulong gen = 1;	/* odd: a change is in flight */
static atomic_long wakeups, checked, skipped, violations, reports;
static atomic_int started;

static int universe[CPU_SETSIZE], nuniverse;

static void usage(void)
{
	fprintf(stderr,
		"usage: affchurn [-p PAIRS] [-n WAKEUPS] [-t SECONDS] [-s SEED]\n"
		"                [-c CGROUP_DIR] [-i CHANGE_INTERVAL_US] [-w SPIN_US]\n"
		"                [-S SAMPLES] [-F]\n");
	exit(2);
}

static void futex_wait(atomic_int *w, int val)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(atomic_int *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static int mask_has(atomic_ulong *m, int cpu)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return 0;
	return (atomic_load_explicit(&m[cpu / 64], memory_order_relaxed) >>
		(cpu % 64)) & 1;
}

static void mask_publish(atomic_ulong *m, const cpu_set_t *set)
{
	for (int i = 0; i < WORDS; i++) {
		unsigned long v = 0;

		for (int b = 0; b < 64; b++)
			if (CPU_ISSET(i * 64 + b, set))
				v |= 1UL << b;
		atomic_store_explicit(&m[i], v, memory_order_relaxed);
	}
}

/* "0,2-3" for a report. */
static void mask_str(atomic_ulong *m, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && n + 8 < len; c++)
		if (mask_has(m, c))
			n += snprintf(buf + n, len - n, "%s%d", n ? "," : "", c);
}

static void report(const char *what, int tid, int cpu, atomic_ulong *m)
{
	char buf[256];

	if (atomic_fetch_add(&reports, 1) >= MAX_REPORTS)
		return;
	mask_str(m, buf, sizeof(buf));
	fprintf(stderr, "affchurn: %s: tid %d on cpu %d, allowed %s\n", what,
		tid, cpu, buf);
}

static void spin(int us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000L +
		 (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct pair *pr = w->pr;
	atomic_ulong copy[WORDS];
	unsigned long g1, g2;
	int cpu, i;

	atomic_store(&w->tid, (int)syscall(SYS_gettid));
	atomic_fetch_add(&started, 1);
	for (;;) {
		g1 = atomic_load(&gen);
		while (atomic_load(&pr->turn) != w->me && !atomic_load(&pr->done))
			futex_wait(&pr->turn, !w->me);
		if (atomic_load(&pr->done))
			break;
		cpu = sched_getcpu();
		for (i = 0; i < WORDS; i++)
			atomic_store_explicit(&copy[i], atomic_load_explicit(
				&w->mask[i], memory_order_relaxed),
				memory_order_relaxed);
		g2 = atomic_load(&gen);
		if (g1 == g2 && !(g1 & 1)) {
			atomic_fetch_add(&checked, 1);
			if (!mask_has(copy, cpu)) {
				atomic_fetch_add(&violations, 1);
				report("woke outside its mask", w->tid, cpu, copy);
			}
		} else {
			atomic_fetch_add(&skipped, 1);
		}
		if (spin_us)
			spin(spin_us);
		if (atomic_fetch_add(&wakeups, 1) + 1 >= atomic_load(&target) &&
		    atomic_load(&changed_enough))
			atomic_store(&pr->done, 1);
		atomic_store(&pr->turn, !w->me);
		futex_wake(&pr->turn);
	}
	atomic_store(&pr->turn, !w->me);
	futex_wake(&pr->turn);
	return NULL;
}

static void random_set(unsigned int *rnd, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (!CPU_COUNT(set))
		for (int i = 0; i < nuniverse; i++)
			if (rand_r(rnd) & 1)
				CPU_SET(universe[i], set);
}

/* A random CPU of @set, which is not empty. */
static int pick_cpu(unsigned int *rnd, const cpu_set_t *set)
{
	int k = rand_r(rnd) % CPU_COUNT(set);

	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, set) && !k--)
			return i;
	return 0;
}

/* Read back what the kernel enforces for @w. */
static void readback(struct worker *w)
{
	cpu_set_t set;

	if (sched_getaffinity(atomic_load(&w->tid), sizeof(set), &set)) {
		if (errno == ESRCH)	/* finished: nothing to check */
			return;
		fprintf(stderr, "affchurn: sched_getaffinity(%d): %s\n",
			atomic_load(&w->tid), strerror(errno));
		exit(2);
	}
	if (fault)
		for (int i = 0; i < nuniverse; i++) {
			if (CPU_ISSET(universe[i], &set))
				CPU_CLR(universe[i], &set);
			else
				CPU_SET(universe[i], &set);
		}
	mask_publish(w->mask, &set);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	if (n != (ssize_t)strlen(s))
		ret = -1;
	close(fd);
	return ret;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Sample one worker; returns 1 if it ran and could be checked. */
static int sample(struct worker *w, long *bad)
{
	char path[96], buf[1024], *p;
	unsigned long long r1, r2;
	struct timespec ts = { 0, 2000000 };
	int tid = atomic_load(&w->tid), cpu, i;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	if (read_file(path, buf, sizeof(buf)) || sscanf(buf, "%llu", &r1) != 1)
		return 0;
	nanosleep(&ts, NULL);
	if (read_file(path, buf, sizeof(buf)) || sscanf(buf, "%llu", &r2) != 1)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (read_file(path, buf, sizeof(buf)))
		return 0;
	if (r2 <= r1)
		return 0;
	/* Field 39 (processor); fields after the comm start at 3. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	p++;
	for (i = 3; i < 39 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, "%d", &cpu) != 1)
		return 0;
	if (!mask_has(w->mask, cpu)) {
		(*bad)++;
		report("sampled outside its mask", tid, cpu, w->mask);
	}
	return 1;
}

int main(int argc, char **argv)
{
	int pairs = 4, interval_us = 1000, nsamples = 1, limit = 0, opt, i, n;
	struct timespec t0, now;
	long changes_aff = 0, changes_cs = 0, refused = 0, samples = 0;
	long sample_bad = 0;
	unsigned int seed = 1, rnd;
	const char *cg = NULL;
	char path[4096], buf[CPU_SETSIZE * 5];
	struct worker *ws;
	struct pair *prs;
	cpu_set_t set, cs_set;

	while ((opt = getopt(argc, argv, "p:n:t:s:c:i:w:S:F")) != -1) {
		switch (opt) {
		case 'p':
			pairs = atoi(optarg);
			break;
		case 'n':
			target = atol(optarg);
			break;
		case 't':
			limit = atoi(optarg);
			break;
		case 's':
			seed = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'c':
			cg = optarg;
			break;
		case 'i':
			interval_us = atoi(optarg);
			break;
		case 'w':
			spin_us = atoi(optarg);
			break;
		case 'S':
			nsamples = atoi(optarg);
			break;
		case 'F':
			fault = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || pairs < 1 || target < 1 || interval_us < 0 ||
	    spin_us < 0 || nsamples < 0 || limit < 0)
		usage();
	rnd = seed;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("affchurn: sched_getaffinity");
		return 2;
	}
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			universe[nuniverse++] = i;
	cs_set = set;
	if (cg) {
		/* Start from all our CPUs, whatever an earlier run left. */
		n = 0;
		for (i = 0; i < nuniverse; i++)
			n += snprintf(buf + n, sizeof(buf) - n, "%s%d",
				      n ? "," : "", universe[i]);
		snprintf(path, sizeof(path), "%s/cpuset.cpus", cg);
		if (write_str(path, buf)) {
			fprintf(stderr, "affchurn: cannot write %s: %s\n",
				path, strerror(errno));
			return 2;
		}
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		snprintf(buf, sizeof(buf), "%d", (int)getpid());
		if (write_str(path, buf)) {
			fprintf(stderr, "affchurn: cannot join %s: %s\n", cg,
				strerror(errno));
			return 2;
		}
		snprintf(path, sizeof(path), "%s/cpuset.cpus", cg);
	}

	ws = calloc(2 * pairs, sizeof(*ws));
	prs = calloc(pairs, sizeof(*prs));
	if (!ws || !prs)
		return 2;
	for (i = 0; i < 2 * pairs; i++) {
		ws[i].pr = &prs[i / 2];
		ws[i].me = i & 1;
		if (pthread_create(&ws[i].th, NULL, worker_fn, &ws[i])) {
			fprintf(stderr, "affchurn: pthread_create failed\n");
			return 2;
		}
	}
	while (atomic_load(&started) < 2 * pairs)
		sched_yield();
	for (i = 0; i < 2 * pairs; i++)
		readback(&ws[i]);
	atomic_fetch_add(&gen, 1);	/* even: stable */

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (atomic_load(&wakeups) < atomic_load(&target) ||
	       !atomic_load(&changed_enough)) {
		struct timespec ts = { 0, interval_us * 1000L };
		/*
		 * The cpuset until one change is taken, then sched_setaffinity
		 * until one is, then one change in four rewrites the cpuset:
		 * a short run (a few changes) still changes both, or the
		 * caller's check of each flakes.
		 */
		int use_cs = cg && ((!changes_cs && refused < 8) ||
				    (changes_aff && rand_r(&rnd) % 4 == 0));

		random_set(&rnd, &set);
		atomic_fetch_add(&gen, 1);
		if (use_cs) {
			n = 0;
			for (i = 0; i < CPU_SETSIZE; i++)
				if (CPU_ISSET(i, &set))
					n += snprintf(buf + n, sizeof(buf) - n,
						      "%s%d", n ? "," : "", i);
			if (write_str(path, buf)) {
				refused++;
			} else {
				changes_cs++;
				cs_set = set;
			}
			for (i = 0; i < 2 * pairs; i++)
				readback(&ws[i]);
		} else {
			struct worker *w = &ws[rand_r(&rnd) % (2 * pairs)];
			cpu_set_t both;

			/*
			 * A request disjoint from the cpuset is refused
			 * (EINVAL): keep one of the cpuset's CPUs in it, or a
			 * run of a few changes may have no setaffinity one.
			 */
			CPU_AND(&both, &set, &cs_set);
			if (!CPU_COUNT(&both))
				CPU_SET(pick_cpu(&rnd, &cs_set), &set);
			if (!sched_setaffinity(atomic_load(&w->tid),
					       sizeof(set), &set))
				changes_aff++;
			else if (errno != ESRCH)
				refused++;
			readback(w);
		}
		atomic_fetch_add(&gen, 1);
		for (i = 0; i < nsamples; i++)
			samples += sample(&ws[rand_r(&rnd) % (2 * pairs)],
					  &sample_bad);
		if ((changes_aff && (!cg || changes_cs || refused >= 8)) ||
		    refused >= 64)
			atomic_store(&changed_enough, 1);
		if (interval_us)
			nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (limit && now.tv_sec - t0.tv_sec >= limit) {
			atomic_store(&changed_enough, 1);
			atomic_store(&target, atomic_load(&wakeups));
		}
	}
	for (i = 0; i < 2 * pairs; i++)
		pthread_join(ws[i].th, NULL);

	printf("wakeups %ld checked %ld skipped %ld violations %ld samples %ld sample_violations %ld setaffinity %ld cpuset %ld refused %ld\n",
	       atomic_load(&wakeups), atomic_load(&checked),
	       atomic_load(&skipped), atomic_load(&violations), samples,
	       sample_bad, changes_aff, changes_cs, refused);
	return atomic_load(&violations) || sample_bad ? 1 : 0;
}
