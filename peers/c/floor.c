/* cfloor: the floor a load generator is measured against. One thread, one
 * epoll set, non-blocking TCP connections to an echo server, one write and
 * one read per request, waits in epoll_pwait2 with nanosecond timeouts
 * (epoll_wait in whole milliseconds on a kernel without it). Linux only.
 *
 *   cfloor version
 *   cfloor echo-client HOST PORT SIZE CONNS RATE DURATION_MS [SLACK_NS]
 *       RATE 0: closed loop, each connection sends its next request when
 *       the answer to the last is read whole. RATE > 0: open loop, request
 *       i due at start + i/RATE on connection i % CONNS, its send time
 *       fixed in advance; requests pipeline on a connection whose answers
 *       are late, and latency counts from the intended send time
 *       (coordinated omission corrected). After DURATION_MS no request is
 *       sent; answers are awaited up to 2 s more, those missing count as
 *       errors. The thread's timer slack is set to SLACK_NS, 1 ns unless
 *       given (loopbench's generator's; Linux's default is 50 us), and the
 *       slack in force is read back into the line's name (slack=1ns).
 *   cfloor sleep WAIT_NS COUNT
 *       the machine's wake-up floor: COUNT clock_nanosleep calls to an
 *       absolute CLOCK_MONOTONIC deadline WAIT_NS ahead, timer slack 1 ns.
 *   cfloor spin WAIT_NS COUNT
 *       the machine's spin floor: COUNT busy waits, reading the clock until
 *       a deadline WAIT_NS ahead has passed. Late only when the CPU was
 *       taken away at the deadline (by the kernel or the hypervisor): the
 *       best a generator that spins before its sends can do.
 *
 * Each prints one Go benchmark line (the units are documented in
 * peers/floor.go). */
#define _GNU_SOURCE
#include "peer.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

typedef long long ns_t;

static ns_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ns_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* samples is a growable array of ns values, sorted to read percentiles. */
typedef struct {
	ns_t *v;
	long n, cap;
} samples;

static void add(samples *s, ns_t x) {
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		if (!s->v)
			die("out of memory");
	}
	s->v[s->n++] = x < 0 ? 0 : x;
}

static int cmp_ns(const void *a, const void *b) {
	ns_t x = *(const ns_t *)a, y = *(const ns_t *)b;
	return x < y ? -1 : x > y;
}

/* pct is the q-quantile (0..1) of s, sorted, by the nearest rank. */
static double pct(samples *s, double q) {
	if (!s->n)
		return 0;
	long i = (long)(q * s->n + 0.999999) - 1;
	if (i < 0)
		i = 0;
	if (i >= s->n)
		i = s->n - 1;
	return (double)s->v[i];
}

/* --- waiting ------------------------------------------------------------ */

static int epfd, coarse;

/* wait_until waits for events up to the absolute deadline (-1: none). */
static int wait_until(struct epoll_event *evs, int max, ns_t deadline) {
	for (;;) {
		ns_t d = deadline < 0 ? -1 : deadline - now_ns();
		if (deadline >= 0 && d < 0)
			d = 0;
		int n;
		if (!coarse) {
			struct timespec ts = {d / 1000000000LL, d % 1000000000LL};
			n = syscall(SYS_epoll_pwait2, epfd, evs, max, d < 0 ? NULL : &ts, NULL, 0);
			if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
				coarse = 1;
				continue;
			}
		} else {
			n = epoll_wait(epfd, evs, max, d < 0 ? -1 : (int)((d + 999999) / 1000000));
		}
		if (n >= 0 || errno != EINTR)
			return n;
	}
}

/* --- the echo client ---------------------------------------------------- */

typedef struct {
	int fd, dead;
	long want;         /* bytes to write before the pending requests are all out */
	long got;          /* bytes of the current answer read */
	long head, n, cap; /* ring of intended send times of requests awaiting an answer */
	ns_t *due;
} conn;

static conn *conns;
static long nconns, size;
static char *wbuf, *rbuf;
static samples lat, lag;
static long sent, answered, errors;
static unsigned long slack; /* the timer slack in force, ns */

static int dial(const char *host, const char *port) {
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
	if (getaddrinfo(host, port, &hints, &ai))
		die("cannot resolve the server's address");
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) < 0)
		die("cannot connect to the echo server");
	freeaddrinfo(ai);
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

static void watch(conn *c, int out) {
	struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = c};
	epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

static void fail(conn *c) {
	if (c->dead)
		return;
	c->dead = 1;
	errors += c->n;
	c->n = 0;
	epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
}

/* flush writes what c owes; it watches for writability while it cannot. */
static void flush(conn *c) {
	while (c->want > 0) {
		ssize_t w = write(c->fd, wbuf, c->want < size ? c->want : size);
		if (w < 0) {
			if (errno == EAGAIN) {
				watch(c, 1);
				return;
			}
			fail(c);
			return;
		}
		c->want -= w;
	}
	watch(c, 0);
}

/* send_req sends one request on c, intended at due. */
static void send_req(conn *c, ns_t due, ns_t now) {
	if (c->dead) {
		errors++;
		return;
	}
	if (c->n == c->cap) { /* grow the ring, unwrapped */
		ns_t *d = malloc(2 * c->cap * sizeof *d);
		if (!d)
			die("out of memory");
		for (long i = 0; i < c->n; i++)
			d[i] = c->due[(c->head + i) % c->cap];
		free(c->due);
		c->due = d;
		c->head = 0;
		c->cap *= 2;
	}
	c->due[(c->head + c->n++) % c->cap] = due;
	sent++;
	add(&lag, now - due);
	int idle = c->want == 0;
	c->want += size;
	if (idle)
		flush(c);
}

/* on_read reads c's answers; it returns how many it completed. */
static long on_read(conn *c, ns_t *now) {
	long done = 0;
	for (;;) {
		ssize_t r = read(c->fd, rbuf, size);
		if (r <= 0) {
			if (r < 0 && errno == EAGAIN)
				return done;
			fail(c);
			return done;
		}
		*now = now_ns();
		for (c->got += r; c->got >= size && c->n > 0; c->got -= size) {
			add(&lat, *now - c->due[c->head]);
			c->head = (c->head + 1) % c->cap;
			c->n--;
			answered++;
			done++;
		}
	}
}

static long in_flight(void) {
	long n = 0;
	for (long i = 0; i < nconns; i++)
		n += conns[i].n;
	return n;
}

/* set_slack sets the thread's timer slack to ns and reads back the slack in
 * force into slack. */
static void set_slack(long ns) {
	if (prctl(PR_SET_TIMERSLACK, (unsigned long)ns, 0, 0, 0))
		die("prctl(PR_SET_TIMERSLACK) failed");
	int got = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	if (got < 0)
		die("prctl(PR_GET_TIMERSLACK) failed");
	slack = (unsigned long)got;
}

/* open_conns parses echo-client's arguments into size, nconns, *rate and
 * *dur, sets the timer slack, and connects. */
static void open_conns(int argc, char **argv, double *rate, ns_t *dur) {
	if (argc != 8 && argc != 9)
		die("usage: cfloor echo-client HOST PORT SIZE CONNS RATE DURATION_MS [SLACK_NS]");
	set_slack(argc == 9 ? arg_int(argc, argv, 8, "SLACK_NS: want a positive count") : 1);
	size = arg_int(argc, argv, 4, "SIZE: want a positive byte count");
	nconns = arg_int(argc, argv, 5, "CONNS: want a positive count");
	*rate = strtod(argv[6], NULL);
	*dur = (ns_t)arg_int(argc, argv, 7, "DURATION_MS: want a positive count") * 1000000LL;
	if (*rate < 0)
		die("RATE: want req/s, or 0 for a closed loop");
	wbuf = malloc(size);
	rbuf = malloc(size);
	memset(wbuf, 'x', size);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	conns = calloc(nconns, sizeof *conns);
	for (long i = 0; i < nconns; i++) {
		conn *c = &conns[i];
		c->fd = dial(argv[2], argv[3]);
		c->cap = 4;
		c->due = malloc(c->cap * sizeof *c->due);
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
		epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev);
	}
}

/* print_client prints the load's line: took is its wall time, cpu its CPU. */
static void print_client(double rate, ns_t dur, ns_t took, double cpu) {
	qsort(lat.v, lat.n, sizeof *lat.v, cmp_ns);
	qsort(lag.v, lag.n, sizeof *lag.v, cmp_ns);
	long n = answered ? answered : 1;
	printf("BenchmarkEchoClient/impl=cfloor/mode=%s/size=%ld/conns=%ld/slack=%luns %ld %.17g ns/op %.17g req/s %ld requests %ld answered %ld errors "
	       "%.17g cpu-ns/req %.17g p50-ns %.17g p90-ns %.17g p99-ns %.17g p99.9-ns %.17g max-ns %.17g lag-p50-ns %.17g lag-p99-ns\n",
	       rate > 0 ? "open" : "closed", size, nconns, slack, n, (double)took / n, answered / (dur / 1e9), sent, answered, errors,
	       cpu / n, pct(&lat, .5), pct(&lat, .9), pct(&lat, .99), pct(&lat, .999), pct(&lat, 1), pct(&lag, .5), pct(&lag, .99));
}

static void echo_client(int argc, char **argv) {
	double rate;
	ns_t dur;
	open_conns(argc, argv, &rate, &dur);
	struct epoll_event evs[256];
	double cpu0 = cpu_ns();
	ns_t start = now_ns(), end = start + dur, now = start;
	double period = rate > 0 ? 1e9 / rate : 0;
	long next = 0; /* the next request of the open loop's schedule */
	if (rate == 0)
		for (long i = 0; i < nconns; i++)
			send_req(&conns[i], now, now);
	for (;;) {
		ns_t due = start + (ns_t)(next * period);
		if (rate > 0)
			for (; due < end && due <= now; due = start + (ns_t)(++next * period))
				send_req(&conns[next % nconns], due, now);
		int open = now < end;
		if (!open && (in_flight() == 0 || now >= end + 2000000000LL))
			break;
		ns_t deadline = !open ? end + 2000000000LL : rate > 0 && due < end ? due : end;
		int n = wait_until(evs, 256, deadline);
		if (n < 0)
			die("epoll_wait failed");
		now = now_ns();
		for (int i = 0; i < n; i++) {
			conn *c = evs[i].data.ptr;
			if (evs[i].events & EPOLLOUT)
				flush(c);
			if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
				long done = on_read(c, &now);
				if (rate == 0 && now < end)
					for (; done > 0; done--)
						send_req(c, now, now);
			}
		}
	}
	double cpu = cpu_ns() - cpu0;
	errors += in_flight();
	print_client(rate, dur, now - start, cpu);
}

/* --- the sleeper and the spinner ----------------------------------------- */

/* wake_line prints one Wakeup line: impl's COUNT waits of wait ns came back
 * late by late (sorted here), sum in all. */
static void wake_line(const char *impl, ns_t wait, long count, samples *late, double sum) {
	qsort(late->v, late->n, sizeof *late->v, cmp_ns);
	char name[32]; /* as bench's Wakeup cases: wait=200us */
	if (wait % 1000 == 0)
		snprintf(name, sizeof name, "%lldus", wait / 1000);
	else
		snprintf(name, sizeof name, "%lldns", wait);
	printf("BenchmarkWakeup/impl=%s/wait=%s %ld %.17g ns/op %.17g late-p50-ns %.17g late-p90-ns %.17g late-p99-ns %.17g late-max-ns\n",
	       impl, name, count, wait + sum / count, pct(late, .5), pct(late, .9), pct(late, .99), pct(late, 1));
	free(late->v);
}

static void sleeper(int argc, char **argv) {
	if (argc != 4)
		die("usage: cfloor sleep WAIT_NS COUNT");
	ns_t wait = arg_int(argc, argv, 2, "WAIT_NS: want a positive count");
	long count = arg_int(argc, argv, 3, "COUNT: want a positive count");
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0))
		die("prctl(PR_SET_TIMERSLACK) failed");
	samples late = {0};
	double sum = 0;
	for (long i = 0; i < count; i++) {
		ns_t due = now_ns() + wait;
		struct timespec ts = {due / 1000000000LL, due % 1000000000LL};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		ns_t l = now_ns() - due;
		sum += l;
		add(&late, l);
	}
	wake_line("cfloor", wait, count, &late, sum);
}

static void spinner(int argc, char **argv) {
	if (argc != 4)
		die("usage: cfloor spin WAIT_NS COUNT");
	ns_t wait = arg_int(argc, argv, 2, "WAIT_NS: want a positive count");
	long count = arg_int(argc, argv, 3, "COUNT: want a positive count");
	samples late = {0};
	double sum = 0;
	for (long i = 0; i < count; i++) {
		ns_t due = now_ns() + wait, t;
		while ((t = now_ns()) < due)
			;
		sum += t - due;
		add(&late, t - due);
	}
	wake_line("cfloor-spin", wait, count, &late, sum);
}

int main(int argc, char **argv) {
	if (argc < 2)
		die("usage: cfloor version | echo-client ... | sleep ... | spin ...");
	if (!strcmp(argv[1], "version")) {
		epfd = epoll_create1(EPOLL_CLOEXEC);
		struct epoll_event ev;
		wait_until(&ev, 1, now_ns());
		printf("cfloor 1 (%s)\n", coarse ? "epoll_wait, ms" : "epoll_pwait2, ns");
	} else if (!strcmp(argv[1], "echo-client")) {
		echo_client(argc, argv);
	} else if (!strcmp(argv[1], "sleep")) {
		sleeper(argc, argv);
	} else if (!strcmp(argv[1], "spin")) {
		spinner(argc, argv);
	} else {
		die("unknown workload: want version, echo-client, sleep or spin");
	}
	return 0;
}
