/* libuv running loopbench's workloads in their shapes; prints Go
 * benchmark lines. Usage:
 *
 *   libuv version
 *   libuv callsoon-inflight W TARGET_MS   (W uv_idle_t handles: every
 *                                          iteration runs them all)
 *   libuv callsoon-chain TARGET_MS        (one idle handle, one idle fd)
 *   libuv cold-fire K TARGET_MS
 *   libuv cold-cancel K TARGET_MS
 *   libuv iochain epoll P A TARGET_MS     (libevent's bench.c on uv_poll_t,
 *                                          uv_run(UV_RUN_NOWAIT))
 *   libuv echo-server HOST PORT           (for loopbench load)
 */
#include <signal.h>
#include <uv.h>

#include "peer.h"

static uv_loop_t *loop;
static long left, fired, count, writes, k;
static double m_sched, m_cpu;

static void idle_cb(uv_idle_t *h) {
	if (--left <= 0)
		uv_stop(h->loop);
}
static double run_idles(long n) {
	left = n;
	double t0 = wall_ns();
	uv_run(loop, UV_RUN_DEFAULT);
	return wall_ns() - t0;
}
static void poll_nop(uv_poll_t *h, int status, int events) {}

static void fire_cb(uv_timer_t *t) {
	if (++fired == k)
		uv_stop(t->loop);
}
static void close_nop(uv_handle_t *h) {}

/* timers from cold: a fresh loop per batch */
static double run_cold(long n, int cancel) {
	double wall = 0;
	m_cpu = m_sched = 0;
	for (long r = 0; r < n; r++) {
		uv_loop_t l;
		uv_loop_init(&l);
		rng_seed(21);
		fired = 0;
		double c0 = cpu_ns(), w0 = wall_ns();
		uv_timer_t *ts = malloc(k * sizeof *ts);
		for (long i = 0; i < k; i++) {
			uv_timer_init(&l, &ts[i]);
			uint64_t ms = cancel ? 10000 : (uint64_t)(cold_delay() * 1000);
			uv_timer_start(&ts[i], fire_cb, ms, 0);
		}
		m_sched += wall_ns() - w0;
		if (cancel) {
			for (long i = 0; i < k; i++)
				uv_timer_stop(&ts[i]);
			uv_run(&l, UV_RUN_NOWAIT);
		} else {
			uv_run(&l, UV_RUN_DEFAULT);
		}
		m_cpu += cpu_ns() - c0;
		wall += wall_ns() - w0;
		for (long i = 0; i < k; i++)
			uv_close((uv_handle_t *)&ts[i], close_nop);
		uv_run(&l, UV_RUN_DEFAULT);
		uv_loop_close(&l);
		free(ts);
	}
	return wall;
}
static double run_cold_fire(long n) { return run_cold(n, 0); }
static double run_cold_cancel(long n) { return run_cold(n, 1); }

/* bench.c */
static int *fds;
static long pairs, active;
static uv_poll_t *polls;
static void read_cb(uv_poll_t *h, int status, int events) {
	long i = h - polls;
	char ch;
	if (recv(fds[2 * i], &ch, 1, 0) == 1)
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
		uv_run(loop, UV_RUN_NOWAIT);
	return wall_ns() - t0;
}

/* echo server */
static void alloc_cb(uv_handle_t *h, size_t size, uv_buf_t *buf) {
	buf->base = malloc(size);
	buf->len = size;
}
typedef struct {
	uv_write_t req;
	uv_buf_t buf;
} write_req;
static void write_done(uv_write_t *req, int status) {
	write_req *w = (write_req *)req;
	free(w->buf.base);
	free(w);
}
static void on_read(uv_stream_t *c, ssize_t nread, const uv_buf_t *buf) {
	if (nread > 0) {
		write_req *w = malloc(sizeof *w);
		w->buf = uv_buf_init(buf->base, nread);
		uv_write(&w->req, c, &w->buf, 1, write_done);
		return;
	}
	free(buf->base);
	if (nread < 0)
		uv_close((uv_handle_t *)c, (uv_close_cb)free);
}
static void on_conn(uv_stream_t *server, int status) {
	if (status < 0)
		return;
	uv_tcp_t *c = malloc(sizeof *c);
	uv_tcp_init(loop, c);
	if (uv_accept(server, (uv_stream_t *)c) == 0) {
		uv_tcp_nodelay(c, 1);
		uv_read_start((uv_stream_t *)c, alloc_cb, on_read);
	} else {
		uv_close((uv_handle_t *)c, (uv_close_cb)free);
	}
}
static void on_signal(uv_signal_t *s, int sig) { uv_stop(s->loop); }

static int echo_server(const char *host, int port) {
	loop = uv_default_loop();
	uv_tcp_t server;
	struct sockaddr_in addr;
	uv_tcp_init(loop, &server);
	if (uv_ip4_addr(host, port, &addr) || uv_tcp_bind(&server, (const struct sockaddr *)&addr, 0) ||
	    uv_listen((uv_stream_t *)&server, 128, on_conn))
		die("libuv echo-server: cannot listen there");
	struct sockaddr_in bound;
	int len = sizeof bound;
	uv_tcp_getsockname(&server, (struct sockaddr *)&bound, &len);
	printf("listening on %s:%d (libuv)\n", host, ntohs(bound.sin_port));
	fflush(stdout);
	uv_signal_t sigint, sigterm;
	uv_signal_init(loop, &sigint);
	uv_signal_start(&sigint, on_signal, SIGINT);
	uv_signal_init(loop, &sigterm);
	uv_signal_start(&sigterm, on_signal, SIGTERM);
	uv_run(loop, UV_RUN_DEFAULT);
	return 0;
}

int main(int argc, char **argv) {
	if (argc < 2)
		die("usage: libuv WORKLOAD ARGS... [TARGET_MS]");
	const char *w = argv[1];
	if (!strcmp(w, "version")) {
		printf("libuv %s\n", uv_version_string());
		return 0;
	}
	if (!strcmp(w, "echo-server")) {
		if (argc != 4)
			die("usage: libuv echo-server HOST PORT");
		return echo_server(argv[2], atoi(argv[3]));
	}
	double target = arg_target(argc, argv), ns;
	if (!strcmp(w, "callsoon-inflight") || !strcmp(w, "callsoon-chain")) {
		int chain = !strcmp(w, "callsoon-chain");
		long nidle = chain ? 1 : arg_int(argc, argv, 2, "W");
		loop = uv_default_loop();
		uv_idle_t *idles = calloc(nidle, sizeof *idles);
		for (long i = 0; i < nidle; i++) {
			uv_idle_init(loop, &idles[i]);
			uv_idle_start(&idles[i], idle_cb);
		}
		int sp[2];
		uv_poll_t p;
		if (chain) {
			socketpairs(sp, 1);
			uv_poll_init(loop, &p, sp[0]);
			uv_poll_start(&p, UV_READABLE, poll_nop);
		}
		long n = grow(run_idles, target, &ns);
		if (chain)
			printf("BenchmarkCallSoon/impl=libuv/mode=chain %ld %.17g ns/op\n", n, ns / n);
		else
			printf("BenchmarkCallSoon/impl=libuv/mode=inflight/w=%ld %ld %.17g ns/op\n", nidle, n, ns / n);
	} else if (!strcmp(w, "cold-fire")) {
		k = arg_int(argc, argv, 2, "K");
		long n = grow(run_cold_fire, target, &ns);
		printf("BenchmarkTimers/impl=libuv/op=cold-fire/k=%ld %ld %.17g ns/op %.17g cpu-ns/timer %.17g schedule-ns/timer\n", k, n, ns / n, m_cpu / n / k, m_sched / n / k);
	} else if (!strcmp(w, "cold-cancel")) {
		k = arg_int(argc, argv, 2, "K");
		long n = grow(run_cold_cancel, target, &ns);
		printf("BenchmarkTimers/impl=libuv/op=cold-cancel/k=%ld %ld %.17g ns/op %.17g ns/timer %.17g schedule-ns/timer\n", k, n, ns / n, ns / n / k, m_sched / n / k);
	} else if (!strcmp(w, "iochain")) {
		if (argc != 6 || strcmp(argv[2], "epoll"))
			die("usage: libuv iochain epoll P A TARGET_MS (libuv's Linux backend is epoll)");
		pairs = arg_int(argc, argv, 3, "P");
		active = arg_int(argc, argv, 4, "A");
		loop = uv_default_loop();
		fds = malloc(2 * pairs * sizeof *fds);
		polls = malloc(pairs * sizeof *polls);
		socketpairs(fds, pairs);
		for (long i = 0; i < pairs; i++) {
			uv_poll_init(loop, &polls[i], fds[2 * i]);
			uv_poll_start(&polls[i], UV_READABLE, read_cb);
		}
		long n = grow(run_chain, target, &ns);
		printf("BenchmarkIOChain/impl=libuv/selector=epoll/p=%ld/a=%ld/mode=once %ld %.17g ns/op %.17g us/write\n", pairs, active, n, ns / n, ns / n / 1e3);
	} else {
		die("unknown workload");
	}
	return 0;
}
