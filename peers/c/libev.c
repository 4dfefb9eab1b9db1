/* libev running loopbench's workloads in their shapes; prints Go
 * benchmark lines. Usage:
 *
 *   libev version
 *   libev callsoon-inflight W TARGET_MS   (W ev_idle watchers: every
 *                                          iteration runs them all)
 *   libev callsoon-chain TARGET_MS        (one idle watcher, one idle fd)
 *   libev cold-fire K TARGET_MS
 *   libev cold-cancel K TARGET_MS
 *   libev iochain epoll|poll P A TARGET_MS  (libevent's bench.c,
 *                                          ev_run(EVRUN_ONCE|EVRUN_NOWAIT))
 */
#include <ev.h>

#include "peer.h"

static struct ev_loop *loop;
static long left, fired, count, writes, k;
static double m_cpu, m_sched;

/* callbacks: w idle watchers, each run once an iteration */
static ev_idle *idles;
static long nidle;
static void idle_cb(struct ev_loop *l, ev_idle *w, int revents) {
	if (--left <= 0)
		ev_break(l, EVBREAK_ALL);
}
static double run_idles(long n) {
	left = n;
	double t0 = wall_ns();
	ev_run(loop, 0);
	return wall_ns() - t0;
}

static void io_nop(struct ev_loop *l, ev_io *w, int revents) {}

/* timers from cold */
static void fire_cb(struct ev_loop *l, ev_timer *w, int revents) {
	if (++fired == k)
		ev_break(l, EVBREAK_ALL);
}
static double run_cold_fire(long n) {
	double wall = 0;
	m_cpu = m_sched = 0;
	for (long r = 0; r < n; r++) {
		struct ev_loop *l = ev_loop_new(EVFLAG_AUTO);
		rng_seed(21);
		fired = 0;
		double c0 = cpu_ns(), w0 = wall_ns();
		ev_timer *ts = malloc(k * sizeof *ts);
		for (long i = 0; i < k; i++) {
			ev_timer_init(&ts[i], fire_cb, cold_delay(), 0.);
			ev_timer_start(l, &ts[i]);
		}
		m_sched += wall_ns() - w0;
		ev_run(l, 0);
		m_cpu += cpu_ns() - c0;
		wall += wall_ns() - w0;
		free(ts);
		ev_loop_destroy(l);
	}
	return wall;
}
static double run_cold_cancel(long n) {
	double wall = 0;
	m_sched = 0;
	for (long r = 0; r < n; r++) {
		struct ev_loop *l = ev_loop_new(EVFLAG_AUTO);
		double w0 = wall_ns();
		ev_timer *ts = malloc(k * sizeof *ts);
		for (long i = 0; i < k; i++) {
			ev_timer_init(&ts[i], fire_cb, 10., 0.);
			ev_timer_start(l, &ts[i]);
		}
		m_sched += wall_ns() - w0;
		for (long i = 0; i < k; i++)
			ev_timer_stop(l, &ts[i]);
		ev_run(l, EVRUN_NOWAIT);
		wall += wall_ns() - w0;
		free(ts);
		ev_loop_destroy(l);
	}
	return wall;
}

/* bench.c */
static int *fds;
static long pairs, active;
static ev_io *ios;
static void read_cb(struct ev_loop *l, ev_io *w, int revents) {
	long i = w - ios;
	char ch;
	if (recv(w->fd, &ch, 1, 0) == 1)
		count++;
	if (writes > 0) {
		long next = (i + 1) % pairs;
		if (send(fds[2 * next + 1], "e", 1, 0) == 1) {
			writes--;
			fired++;
		}
	}
}
static double run_chain(long n) {
	long space = pairs / active > 0 ? pairs / active : 1;
	count = fired = 0;
	writes = n;
	double t0 = wall_ns();
	for (long i = 0; i < active; i++, fired++)
		send(fds[2 * ((i * space) % pairs) + 1], "e", 1, 0);
	while (count != fired)
		ev_run(loop, EVRUN_ONCE | EVRUN_NOWAIT);
	return wall_ns() - t0;
}

int main(int argc, char **argv) {
	if (argc < 2)
		die("usage: libev WORKLOAD ARGS... TARGET_MS");
	const char *w = argv[1];
	if (!strcmp(w, "version")) {
		printf("libev %d.%d\n", ev_version_major(), ev_version_minor());
		return 0;
	}
	double target = arg_target(argc, argv), ns;
	if (!strcmp(w, "callsoon-inflight") || !strcmp(w, "callsoon-chain")) {
		int chain = !strcmp(w, "callsoon-chain");
		nidle = chain ? 1 : arg_int(argc, argv, 2, "W");
		loop = ev_loop_new(EVFLAG_AUTO);
		idles = calloc(nidle, sizeof *idles);
		for (long i = 0; i < nidle; i++) {
			ev_idle_init(&idles[i], idle_cb);
			ev_idle_start(loop, &idles[i]);
		}
		int sp[2];
		ev_io io;
		if (chain) {
			socketpairs(sp, 1);
			ev_io_init(&io, io_nop, sp[0], EV_READ);
			ev_io_start(loop, &io);
		}
		long n = grow(run_idles, target, &ns);
		if (chain)
			printf("BenchmarkCallSoon/impl=libev/mode=chain %ld %.17g ns/op\n", n, ns / n);
		else
			printf("BenchmarkCallSoon/impl=libev/mode=inflight/w=%ld %ld %.17g ns/op\n", nidle, n, ns / n);
	} else if (!strcmp(w, "cold-fire")) {
		k = arg_int(argc, argv, 2, "K");
		long n = grow(run_cold_fire, target, &ns);
		printf("BenchmarkTimers/impl=libev/op=cold-fire/k=%ld %ld %.17g ns/op %.17g cpu-ns/timer %.17g schedule-ns/timer\n", k, n, ns / n, m_cpu / n / k, m_sched / n / k);
	} else if (!strcmp(w, "cold-cancel")) {
		k = arg_int(argc, argv, 2, "K");
		long n = grow(run_cold_cancel, target, &ns);
		printf("BenchmarkTimers/impl=libev/op=cold-cancel/k=%ld %ld %.17g ns/op %.17g ns/timer %.17g schedule-ns/timer\n", k, n, ns / n, ns / n / k, m_sched / n / k);
	} else if (!strcmp(w, "iochain")) {
		if (argc != 6)
			die("usage: libev iochain epoll|poll P A TARGET_MS");
		unsigned backend = !strcmp(argv[2], "poll") ? EVBACKEND_POLL : !strcmp(argv[2], "epoll") ? EVBACKEND_EPOLL : 0;
		if (!backend)
			die("backend: want epoll or poll");
		pairs = arg_int(argc, argv, 3, "P");
		active = arg_int(argc, argv, 4, "A");
		loop = ev_loop_new(backend);
		if (!loop)
			die("libev has no such backend here");
		fds = malloc(2 * pairs * sizeof *fds);
		ios = malloc(pairs * sizeof *ios);
		socketpairs(fds, pairs);
		for (long i = 0; i < pairs; i++) {
			ev_io_init(&ios[i], read_cb, fds[2 * i], EV_READ);
			ev_io_start(loop, &ios[i]);
		}
		long n = grow(run_chain, target, &ns);
		printf("BenchmarkIOChain/impl=libev/selector=%s/p=%ld/a=%ld/mode=once %ld %.17g ns/op %.17g us/write\n", argv[2], pairs, active, n, ns / n, ns / n / 1e3);
	} else {
		die("unknown workload");
	}
	return 0;
}
