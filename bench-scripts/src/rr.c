// SPDX-License-Identifier: GPL-2.0
/*
 * rr - TCP request/response ping-pong over loopback (netperf TCP_RR-like).
 *
 * P pairs of threads in one process: each client thread connects to
 * 127.0.0.1 (an ephemeral port of our own listening socket), sends a
 * request of S bytes and waits for a response of S bytes, in a loop; each
 * server thread echoes.  TCP_NODELAY on both ends.  The round-trip time of
 * every transaction goes into a per-client log-linear histogram.
 *
 * Every interval it prints "<time> <label> <metric> <value>" lines:
 *	tps		transactions per second, all pairs
 *	p50_us p99_us	round-trip time percentiles of the interval (usec)
 *	hist		the interval's raw histogram (llhist.h)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>

#include "wpcommon.h"

static const char *prog = "rr";

struct client {
	int fd;
	pthread_t tid;
	struct wp_stat st;		/* transactions and their RTTs */
} __attribute__((aligned(64)));

struct server {
	int fd;
	pthread_t tid;
};

static int stop;
static unsigned int pairs = 1;
static unsigned int msgsize = 1;

static const struct wp_uopt own[] = {
	{ 'p', &pairs, 1, 4096 },
	{ 's', &msgsize, 1, 1 << 20 },
	{ 0 }
};

static void *client_fn(void *arg)
{
	struct client *c = arg;
	char *buf = calloc(1, msgsize);

	if (!buf)
		return NULL;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		uint64_t t0 = wp_mono_ns(), t1;

		if (wp_xfer(c->fd, buf, msgsize, 1) ||
		    wp_xfer(c->fd, buf, msgsize, 0))
			break;
		t1 = wp_mono_ns();
		__atomic_fetch_add(&c->st.hist[llh_index(t1 - t0)], 1,
				   __ATOMIC_RELAXED);
		__atomic_fetch_add(&c->st.done, 1, __ATOMIC_RELAXED);
	}
	shutdown(c->fd, SHUT_WR);
	free(buf);
	return NULL;
}

static void *server_fn(void *arg)
{
	struct server *s = arg;
	char *buf = calloc(1, msgsize);

	if (!buf)
		return NULL;
	while (!wp_xfer(s->fd, buf, msgsize, 0) &&
	       !wp_xfer(s->fd, buf, msgsize, 1))
		;
	free(buf);
	return NULL;
}

static void nodelay(int fd)
{
	struct timeval tv = { 5, 0 };

	wp_nodelay(fd);
	/* A stuck peer must not hang us: time out blocked receives. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-p PAIRS] [-s BYTES] [-t SECONDS] [-i INTERVAL] [-c COUNT]\n"
		"       [-L LABEL] [-H]\n"
		"  -p  client/server pairs (default 1)\n"
		"  -s  request and response size in bytes (default 1)\n"
		WP_USAGE_TIC
		"  -L  workload label printed in each line (default rr)\n"
		"  -H  do not print the raw histogram line\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static const double q[] = { 0.50, 0.99 };
	static const char *const qname[] = { "p50_us", "p99_us" };
	struct wp_opts o;
	struct wp_ticker tk;
	struct sockaddr_in sa;
	struct client *cl;
	struct server *sv;
	uint64_t *h;
	double el;
	pthread_attr_t attr;
	unsigned int i;
	int lfd;

	wp_getopt(prog, argc, argv, "p:s:t:i:c:L:Hh", own, &o, usage);
	alarm((unsigned int)o.secs + 30);
	signal(SIGPIPE, SIG_IGN);

	lfd = wp_listen_lo(prog, &sa);

	if (posix_memalign((void **)&cl, 64, pairs * sizeof(*cl)))
		wp_die(prog, "out of memory");
	memset(cl, 0, pairs * sizeof(*cl));
	sv = calloc(pairs, sizeof(*sv));
	h = calloc(LLH_NBUCKETS, sizeof(*h));
	if (!sv || !h)
		wp_die(prog, "out of memory");

	/* Connect and accept one pair at a time: pair i is cl[i] <-> sv[i]. */
	for (i = 0; i < pairs; i++) {
		cl[i].fd = wp_connect_lo(prog, &sa);
		sv[i].fd = accept(lfd, NULL, NULL);
		if (sv[i].fd < 0)
			wp_die(prog, "accept: %s", strerror(errno));
		nodelay(cl[i].fd);
		nodelay(sv[i].fd);
	}
	close(lfd);

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (i = 0; i < pairs; i++) {
		if (pthread_create(&sv[i].tid, &attr, server_fn, &sv[i]) ||
		    pthread_create(&cl[i].tid, &attr, client_fn, &cl[i]))
			wp_die(prog, "pthread_create failed");
	}

	wp_ticker_start(&tk, &o);
	while (wp_tick(&tk, &el)) {
		uint64_t done = 0;

		memset(h, 0, LLH_NBUCKETS * sizeof(*h));
		for (i = 0; i < pairs; i++)
			done += wp_stat_collect(&cl[i].st, h);
		wp_line(o.label, "tps", "%.1f", (double)done / el);
		wp_pct_lines(o.label, h, q, qname, WP_NELEM(q));
		wp_interval_end(&o, h);
	}

	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < pairs; i++) {
		pthread_join(cl[i].tid, NULL);
		pthread_join(sv[i].tid, NULL);
		close(cl[i].fd);
		close(sv[i].fd);
	}
	free(cl);
	free(sv);
	free(h);
	return 0;
}
