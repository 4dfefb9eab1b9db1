/* libevent running loopbench's workloads in their shapes; prints Go
 * benchmark lines. Usage:
 *
 *   libevent version
 *   libevent cold-fire K TARGET_MS
 *   libevent cold-cancel K TARGET_MS
 *   libevent iochain epoll|poll P A TARGET_MS  (its own bench.c:
 *                          event_base_loop(EVLOOP_ONCE|EVLOOP_NONBLOCK))
 *
 * libevent has no callback for the next iteration (event_active runs the
 * callback in the current one), so the callback workloads are not run.
 */
#include <event2/event.h>

#include "peer.h"

static long fired, count, writes, k, pairs, active;
static double m_sched, m_cpu;
static struct event_base *base;

static void fire_cb(evutil_socket_t fd, short what, void *arg) {
	if (++fired == k)
		event_base_loopbreak((struct event_base *)arg);
}

static struct timeval tv_of(double s) {
	struct timeval tv = {(time_t)s, (suseconds_t)((s - (time_t)s) * 1e6)};
	return tv;
}

static double run_cold(long n, int cancel) {
	double wall = 0;
	m_cpu = m_sched = 0;
	for (long r = 0; r < n; r++) {
		struct event_base *b = event_base_new();
		rng_seed(21);
		fired = 0;
		double c0 = cpu_ns(), w0 = wall_ns();
		struct event *evs = malloc(k * event_get_struct_event_size());
		for (long i = 0; i < k; i++) {
			struct event *ev = (struct event *)((char *)evs + i * event_get_struct_event_size());
			event_assign(ev, b, -1, 0, fire_cb, b);
			struct timeval tv = tv_of(cancel ? 10.0 : cold_delay());
			event_add(ev, &tv);
		}
		m_sched += wall_ns() - w0;
		if (cancel) {
			for (long i = 0; i < k; i++)
				event_del((struct event *)((char *)evs + i * event_get_struct_event_size()));
			event_base_loop(b, EVLOOP_NONBLOCK);
		} else {
			event_base_dispatch(b);
		}
		m_cpu += cpu_ns() - c0;
		wall += wall_ns() - w0;
		free(evs);
		event_base_free(b);
	}
	return wall;
}
static double run_cold_fire(long n) { return run_cold(n, 0); }
static double run_cold_cancel(long n) { return run_cold(n, 1); }

/* bench.c */
static int *fds;
static struct event **evs;
static void read_cb(evutil_socket_t fd, short what, void *arg) {
	long i = (long)arg;
	char ch;
	if (recv(fd, &ch, 1, 0) == 1)
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
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	return wall_ns() - t0;
}

int main(int argc, char **argv) {
	if (argc < 2)
		die("usage: libevent WORKLOAD ARGS... TARGET_MS");
	const char *w = argv[1];
	if (!strcmp(w, "version")) {
		printf("libevent %s\n", event_get_version());
		return 0;
	}
	double target = arg_target(argc, argv), ns;
	if (!strcmp(w, "cold-fire")) {
		k = arg_int(argc, argv, 2, "K");
		long n = grow(run_cold_fire, target, &ns);
		printf("BenchmarkTimers/impl=libevent/op=cold-fire/k=%ld %ld %.17g ns/op %.17g cpu-ns/timer %.17g schedule-ns/timer\n", k, n, ns / n, m_cpu / n / k, m_sched / n / k);
	} else if (!strcmp(w, "cold-cancel")) {
		k = arg_int(argc, argv, 2, "K");
		long n = grow(run_cold_cancel, target, &ns);
		printf("BenchmarkTimers/impl=libevent/op=cold-cancel/k=%ld %ld %.17g ns/op %.17g ns/timer %.17g schedule-ns/timer\n", k, n, ns / n, ns / n / k, m_sched / n / k);
	} else if (!strcmp(w, "iochain")) {
		if (argc != 6)
			die("usage: libevent iochain epoll|poll P A TARGET_MS");
		struct event_config *cfg = event_config_new();
		const char *avoid[] = {"epoll", "poll", "select", "devpoll", "kqueue", "evport", "win32"};
		for (size_t i = 0; i < sizeof avoid / sizeof *avoid; i++)
			if (strcmp(avoid[i], argv[2]))
				event_config_avoid_method(cfg, avoid[i]);
		base = event_base_new_with_config(cfg);
		if (!base || strcmp(event_base_get_method(base), argv[2]))
			die("libevent has no such backend here");
		pairs = arg_int(argc, argv, 3, "P");
		active = arg_int(argc, argv, 4, "A");
		fds = malloc(2 * pairs * sizeof *fds);
		evs = malloc(pairs * sizeof *evs);
		socketpairs(fds, pairs);
		for (long i = 0; i < pairs; i++) {
			evs[i] = event_new(base, fds[2 * i], EV_READ | EV_PERSIST, read_cb, (void *)i);
			event_add(evs[i], NULL);
		}
		long n = grow(run_chain, target, &ns);
		printf("BenchmarkIOChain/impl=libevent/selector=%s/p=%ld/a=%ld/mode=once %ld %.17g ns/op %.17g us/write\n", argv[2], pairs, active, n, ns / n, ns / n / 1e3);
	} else {
		die("unknown workload (libevent runs cold-fire, cold-cancel and iochain)");
	}
	return 0;
}
