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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include "llhist.h"
#include "wpcommon.h"

static const char *prog = "rr";

struct client {
	int fd;
	pthread_t tid;
	uint64_t done;
	uint64_t prev_done;
	uint64_t hist[LLH_NBUCKETS];
	uint64_t prev[LLH_NBUCKETS];
} __attribute__((aligned(64)));

struct server {
	int fd;
	pthread_t tid;
};

static int stop;
static size_t msgsize = 1;

static int xfer(int fd, char *buf, size_t len, int out)
{
	size_t off = 0;

	while (off < len) {
		ssize_t r = out ? send(fd, buf + off, len - off, MSG_NOSIGNAL)
				: recv(fd, buf + off, len - off, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		off += (size_t)r;
	}
	return 0;
}

static void *client_fn(void *arg)
{
	struct client *c = arg;
	char *buf = calloc(1, msgsize);

	if (!buf)
		return NULL;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		uint64_t t0 = wp_mono_ns(), t1;

		if (xfer(c->fd, buf, msgsize, 1) ||
		    xfer(c->fd, buf, msgsize, 0))
			break;
		t1 = wp_mono_ns();
		__atomic_fetch_add(&c->hist[llh_index(t1 - t0)], 1,
				   __ATOMIC_RELAXED);
		__atomic_fetch_add(&c->done, 1, __ATOMIC_RELAXED);
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
	while (!xfer(s->fd, buf, msgsize, 0) && !xfer(s->fd, buf, msgsize, 1))
		;
	free(buf);
	return NULL;
}

static void nodelay(int fd)
{
	int one = 1;
	struct timeval tv = { 5, 0 };

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
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
		"  -t  run time in seconds (default 10)\n"
		"  -i  reporting interval in seconds (default 1)\n"
		"  -c  stop after COUNT intervals (default: time only)\n"
		"  -L  workload label printed in each line (default rr)\n"
		"  -H  do not print the raw histogram line\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int pairs = 1, count = 0, n, i, k;
	double secs = 10, interval = 1;
	const char *label = "rr";
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	struct client *cl;
	struct server *sv;
	uint64_t *h, start, end, last;
	pthread_attr_t attr;
	int opt, lfd, nohist = 0, one = 1;

	while ((opt = getopt(argc, argv, "p:s:t:i:c:L:Hh")) != -1) {
		switch (opt) {
		case 'p':
			pairs = (unsigned int)wp_num(prog, "-p", optarg,
					1, 4096);
			break;
		case 's':
			msgsize = (size_t)wp_num(prog, "-s", optarg,
					1, 1 << 20);
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
	alarm((unsigned int)secs + 30);
	signal(SIGPIPE, SIG_IGN);

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		wp_die(prog, "socket: %s", strerror(errno));
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = 0;
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, SOMAXCONN) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &salen))
		wp_die(prog, "listen on 127.0.0.1: %s", strerror(errno));

	if (posix_memalign((void **)&cl, 64, pairs * sizeof(*cl)))
		wp_die(prog, "out of memory");
	memset(cl, 0, pairs * sizeof(*cl));
	sv = calloc(pairs, sizeof(*sv));
	h = calloc(LLH_NBUCKETS, sizeof(*h));
	if (!sv || !h)
		wp_die(prog, "out of memory");

	/* Connect and accept one pair at a time: pair i is cl[i] <-> sv[i]. */
	for (i = 0; i < pairs; i++) {
		cl[i].fd = socket(AF_INET, SOCK_STREAM, 0);
		if (cl[i].fd < 0 ||
		    connect(cl[i].fd, (struct sockaddr *)&sa, sizeof(sa)))
			wp_die(prog, "connect 127.0.0.1:%u: %s",
			       ntohs(sa.sin_port), strerror(errno));
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

	start = last = wp_mono_ns();
	end = start + (uint64_t)(secs * 1e9);
	for (n = 1; !count || n <= count; n++) {
		uint64_t done = 0, now, next;
		double el;

		next = start + (uint64_t)(n * interval * 1e9);
		if (next > end)
			break;
		wp_sleep_until(next);
		now = wp_mono_ns();
		memset(h, 0, LLH_NBUCKETS * sizeof(*h));
		for (i = 0; i < pairs; i++) {
			struct client *c = &cl[i];
			uint64_t d;

			for (k = 0; k < LLH_NBUCKETS; k++) {
				uint64_t v = __atomic_load_n(&c->hist[k],
							     __ATOMIC_RELAXED);
				h[k] += v - c->prev[k];
				c->prev[k] = v;
			}
			d = __atomic_load_n(&c->done, __ATOMIC_RELAXED);
			done += d - c->prev_done;
			c->prev_done = d;
		}
		el = (double)(now - last) / 1e9;
		last = now;
		wp_line(label, "tps", "%.1f", (double)done / el);
		if (llh_total(h)) {
			wp_line(label, "p50_us", "%.2f",
				llh_percentile(h, 0.50) / 1000);
			wp_line(label, "p99_us", "%.2f",
				llh_percentile(h, 0.99) / 1000);
		}
		if (!nohist) {
			printf("%.3f %s hist ", wp_real_s(), label);
			llh_print(stdout, h);
			putchar('\n');
		}
		fflush(stdout);
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
