// SPDX-License-Identifier: GPL-2.0
/*
 * chat - a VolanoMark-like chat server and client over TCP loopback.
 *
 * R rooms of U users.  The process forks: the child is the chat server,
 * the parent runs the U x R client connections and reports.  Each
 * connection has a reader and a writer thread on both sides, as
 * VolanoMark's Java server and client do (4 threads per user).
 *
 * A room is a token ring with one message in flight: the user holding the
 * token sends a message; the server's reader thread for that connection
 * hands it to the writer thread of every other member of the room, which
 * send it; when the last of the other members has received it, the token
 * passes to the next user of the room.  Score, as VolanoMark's: messages
 * sent plus messages received by the clients, per second.
 *
 * Output, every interval: "<time> <label> msgs_per_s <value>".
 * Only 127.0.0.1 is used; the listening port is ephemeral.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "wpcommon.h"

enum { M_HELLO = 1, M_ACK = 2, M_CHAT = 3 };
#define QCAP 8

static const char *prog = "chat";
static unsigned int nrooms = 1, nusers = 20;
static unsigned int msgsz = 100;

static const struct wp_uopt own[] = {
	{ 'r', &nrooms, 1, 1024 },
	{ 'u', &nusers, 2, 1024 },
	{ 's', &msgsz, 16, 65536 },
	{ 0 }
};

static int stop;

struct hdr {
	uint32_t type, room, user, seq;
};

/* Receive one message into @msg and decode its header into @h. */
static int recv_msg(int fd, char *msg, struct hdr *h)
{
	if (wp_xfer(fd, msg, msgsz, 0))
		return -1;
	memcpy(h, msg, sizeof(*h));
	return 0;
}

static long futex(int *uaddr, int op, int val, const struct timespec *to)
{
	return syscall(SYS_futex, uaddr, op, val, to, NULL, 0);
}

static void spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	if (pthread_create(t, &attr, fn, arg))
		wp_die(prog, "pthread_create: too many threads?");
	pthread_attr_destroy(&attr);
}

/* ------------------------------------------------------------ server -- */

struct sconn {
	int fd;
	pthread_t rd, wr;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned int head, count;
	int closed;
	char *q;			/* QCAP messages of msgsz bytes */
};

static struct sconn **members;		/* [room * nusers + user] */

static void enqueue(struct sconn *c, const char *msg)
{
	pthread_mutex_lock(&c->mu);
	while (c->count == QCAP && !c->closed)
		pthread_cond_wait(&c->cv, &c->mu);
	if (!c->closed) {
		memcpy(c->q + ((c->head + c->count) % QCAP) * msgsz, msg,
		       msgsz);
		c->count++;
		pthread_cond_broadcast(&c->cv);
	}
	pthread_mutex_unlock(&c->mu);
}

static void close_queue(struct sconn *c)
{
	pthread_mutex_lock(&c->mu);
	c->closed = 1;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

static void *srv_writer(void *arg)
{
	struct sconn *c = arg;
	char *msg = malloc(msgsz);

	if (!msg)
		return NULL;
	for (;;) {
		pthread_mutex_lock(&c->mu);
		while (!c->count && !c->closed)
			pthread_cond_wait(&c->cv, &c->mu);
		if (!c->count) {
			pthread_mutex_unlock(&c->mu);
			break;
		}
		memcpy(msg, c->q + c->head * msgsz, msgsz);
		c->head = (c->head + 1) % QCAP;
		c->count--;
		pthread_cond_broadcast(&c->cv);
		pthread_mutex_unlock(&c->mu);
		if (wp_xfer(c->fd, msg, msgsz, 1))
			break;
	}
	/* A dead peer: let enqueuers of this connection stop waiting. */
	close_queue(c);
	free(msg);
	return NULL;
}

static void *srv_reader(void *arg)
{
	struct sconn *c = arg;
	char *msg = malloc(msgsz);
	struct hdr h;
	unsigned int u;

	if (!msg)
		return NULL;
	if (recv_msg(c->fd, msg, &h) || h.type != M_HELLO ||
	    h.room >= nrooms || h.user >= nusers)
		goto out;
	__atomic_store_n(&members[h.room * nusers + h.user], c,
			 __ATOMIC_RELEASE);
	h.type = M_ACK;
	memcpy(msg, &h, sizeof(h));
	enqueue(c, msg);

	while (!recv_msg(c->fd, msg, &h)) {
		struct sconn **room;

		if (h.type != M_CHAT || h.room >= nrooms)
			break;
		room = &members[h.room * nusers];
		for (u = 0; u < nusers; u++) {
			struct sconn *m = __atomic_load_n(&room[u],
							  __ATOMIC_ACQUIRE);
			if (u != h.user && m)
				enqueue(m, msg);
		}
	}
out:
	free(msg);
	return NULL;
}

static void server(int lfd, unsigned int secs)
{
	unsigned int n = nrooms * nusers, i;
	struct sconn *c = calloc(n, sizeof(*c));

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm(secs + 60);
	members = calloc(n, sizeof(*members));
	if (!c || !members)
		wp_die(prog, "server: out of memory");
	for (i = 0; i < n; i++) {
		c[i].fd = accept(lfd, NULL, NULL);
		if (c[i].fd < 0)
			wp_die(prog, "server: accept: %s", strerror(errno));
		wp_nodelay(c[i].fd);
		pthread_mutex_init(&c[i].mu, NULL);
		pthread_cond_init(&c[i].cv, NULL);
		c[i].q = malloc(QCAP * msgsz);
		if (!c[i].q)
			wp_die(prog, "server: out of memory");
		spawn(&c[i].wr, srv_writer, &c[i]);
		spawn(&c[i].rd, srv_reader, &c[i]);
	}
	close(lfd);
	/* Clients shut their sockets down at the end: readers see EOF. */
	for (i = 0; i < n; i++)
		pthread_join(c[i].rd, NULL);
	for (i = 0; i < n; i++)
		close_queue(&c[i]);
	for (i = 0; i < n; i++) {
		pthread_join(c[i].wr, NULL);
		close(c[i].fd);
	}
	_exit(0);
}

/* ------------------------------------------------------------ client -- */

struct croom;

struct cconn {
	int fd;
	int token;			/* futex word: 1 = may send */
	unsigned int user;
	struct croom *room;
	pthread_t rd, wr;
	uint64_t sent, recvd;
} __attribute__((aligned(64)));

struct croom {
	int left;			/* receipts still due for this msg */
	unsigned int id;
	uint32_t seq;
	struct cconn *users;
} __attribute__((aligned(64)));

static int acked;

static void give_token(struct cconn *c)
{
	__atomic_store_n(&c->token, 1, __ATOMIC_RELEASE);
	futex(&c->token, FUTEX_WAKE_PRIVATE, 1, NULL);
}

static void *cli_writer(void *arg)
{
	struct cconn *c = arg;
	char *msg = calloc(1, msgsz);
	struct timespec to = { 0, 100 * 1000 * 1000 };
	struct hdr h;

	if (!msg)
		return NULL;
	for (;;) {
		while (!__atomic_load_n(&c->token, __ATOMIC_ACQUIRE)) {
			if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
				goto out;
			futex(&c->token, FUTEX_WAIT_PRIVATE, 0, &to);
		}
		__atomic_store_n(&c->token, 0, __ATOMIC_RELAXED);
		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			break;
		h.type = M_CHAT;
		h.room = c->room->id;
		h.user = c->user;
		h.seq = c->room->seq++;
		memcpy(msg, &h, sizeof(h));
		if (wp_xfer(c->fd, msg, msgsz, 1))
			break;
		__atomic_fetch_add(&c->sent, 1, __ATOMIC_RELAXED);
	}
out:
	free(msg);
	return NULL;
}

static void *cli_reader(void *arg)
{
	struct cconn *c = arg;
	struct croom *r = c->room;
	char *msg = malloc(msgsz);
	struct hdr h;

	if (!msg)
		return NULL;
	if (recv_msg(c->fd, msg, &h) || h.type != M_ACK)
		goto out;
	__atomic_fetch_add(&acked, 1, __ATOMIC_RELEASE);
	while (!recv_msg(c->fd, msg, &h)) {
		if (h.type != M_CHAT || h.user >= nusers)
			break;
		__atomic_fetch_add(&c->recvd, 1, __ATOMIC_RELAXED);
		if (__atomic_sub_fetch(&r->left, 1, __ATOMIC_ACQ_REL) == 0) {
			__atomic_store_n(&r->left, (int)nusers - 1,
					 __ATOMIC_RELEASE);
			give_token(&r->users[(h.user + 1) % nusers]);
		}
	}
out:
	free(msg);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-r ROOMS] [-u USERS] [-s BYTES] [-t SECONDS] [-i INTERVAL]\n"
		"       [-c COUNT] [-L LABEL]\n"
		"  -r  rooms (default 1)\n"
		"  -u  users per room, >= 2 (default 20)\n"
		"  -s  message size in bytes, >= 16 (default 100)\n"
		WP_USAGE_TIC
		"  -L  workload label printed in each line (default chat)\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int i, u, total;
	struct wp_opts o;
	struct wp_ticker tk;
	struct sockaddr_in sa;
	struct croom *rooms;
	uint64_t prev = 0, wait_end;
	double el;
	int lfd, status;
	pid_t srv;

	/* no H in the optstring: chat has no histogram */
	wp_getopt(prog, argc, argv, "r:u:s:t:i:c:L:h", own, &o, usage);
	total = nrooms * nusers;
	alarm((unsigned int)o.secs + 60);
	signal(SIGPIPE, SIG_IGN);

	lfd = wp_listen_lo(prog, &sa);

	fflush(stdout);
	srv = fork();
	if (srv < 0)
		wp_die(prog, "fork: %s", strerror(errno));
	if (srv == 0)
		server(lfd, (unsigned int)o.secs);
	close(lfd);

	if (posix_memalign((void **)&rooms, 64, nrooms * sizeof(*rooms)))
		wp_die(prog, "out of memory");
	memset(rooms, 0, nrooms * sizeof(*rooms));
	for (i = 0; i < nrooms; i++) {
		struct croom *r = &rooms[i];

		r->id = i;
		r->left = (int)nusers - 1;
		if (posix_memalign((void **)&r->users, 64,
				   nusers * sizeof(*r->users)))
			wp_die(prog, "out of memory");
		memset(r->users, 0, nusers * sizeof(*r->users));
		for (u = 0; u < nusers; u++) {
			struct cconn *c = &r->users[u];
			char *msg = calloc(1, msgsz);
			struct hdr h = { M_HELLO, i, u, 0 };

			if (!msg)
				wp_die(prog, "out of memory");
			c->user = u;
			c->room = r;
			c->fd = wp_connect_lo(prog, &sa);
			wp_nodelay(c->fd);
			memcpy(msg, &h, sizeof(h));
			if (wp_xfer(c->fd, msg, msgsz, 1))
				wp_die(prog, "hello: %s", strerror(errno));
			free(msg);
		}
	}
	for (i = 0; i < nrooms; i++) {
		for (u = 0; u < nusers; u++) {
			spawn(&rooms[i].users[u].rd, cli_reader,
			      &rooms[i].users[u]);
			spawn(&rooms[i].users[u].wr, cli_writer,
			      &rooms[i].users[u]);
		}
	}
	wait_end = wp_mono_ns() + 30ull * 1000000000ull;
	while (__atomic_load_n(&acked, __ATOMIC_ACQUIRE) < (int)total) {
		if (wp_mono_ns() > wait_end)
			wp_die(prog, "server did not acknowledge all users");
		usleep(1000);
	}
	for (i = 0; i < nrooms; i++)
		give_token(&rooms[i].users[0]);

	wp_ticker_start(&tk, &o);
	while (wp_tick(&tk, &el)) {
		uint64_t sum = 0;

		for (i = 0; i < nrooms; i++) {
			for (u = 0; u < nusers; u++) {
				struct cconn *c = &rooms[i].users[u];

				sum += __atomic_load_n(&c->sent,
						       __ATOMIC_RELAXED);
				sum += __atomic_load_n(&c->recvd,
						       __ATOMIC_RELAXED);
			}
		}
		wp_line(o.label, "msgs_per_s", "%.1f",
			(double)(sum - prev) / el);
		fflush(stdout);
		prev = sum;
	}

	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nrooms; i++)
		for (u = 0; u < nusers; u++)
			shutdown(rooms[i].users[u].fd, SHUT_RDWR);
	for (i = 0; i < nrooms; i++) {
		for (u = 0; u < nusers; u++) {
			struct cconn *c = &rooms[i].users[u];

			give_token(c);
			pthread_join(c->rd, NULL);
			pthread_join(c->wr, NULL);
			close(c->fd);
		}
		free(rooms[i].users);
	}
	free(rooms);

	wait_end = wp_mono_ns() + 5ull * 1000000000ull;
	while (waitpid(srv, &status, WNOHANG) == 0) {
		if (wp_mono_ns() > wait_end) {
			kill(srv, SIGKILL);
			waitpid(srv, &status, 0);
			break;
		}
		usleep(10000);
	}
	return 0;
}
