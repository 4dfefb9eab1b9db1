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
 *   libuv http-server HOST PORT SIZE      (HTTP/1.1 keep-alive: 200 and
 *                                          SIZE bytes of body to every
 *                                          request; see http_parse)
 */
#include <ctype.h>
#include <signal.h>
#include <strings.h>
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

/* HTTP server: a minimal HTTP/1.1 keep-alive responder. A request ends at
 * its headers' "\r\n\r\n" plus its Content-Length body (skipped);
 * requests may arrive pipelined or split anywhere, and are answered in
 * order, a read's answers in one write. A request without keep-alive
 * (Connection: close, or HTTP/1.0 without Connection: keep-alive) gets
 * its answer and the connection is closed after it; one that does not
 * parse, or whose headers pass HTTP_MAX_HEAD, gets 400 and a close. */
#define HTTP_MAX_HEAD 65536
#define HTTP_BATCH 64
static uv_buf_t http_full, http_full_close, http_head, http_head_close;
static uv_buf_t http_bad = {"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 66};

typedef struct {
	uv_tcp_t tcp;
	char *buf; /* unparsed bytes */
	size_t len, cap;
	size_t body_left; /* request body bytes still to skip */
	int closing;
} http_conn;

typedef struct {
	uv_write_t req;
	int close;
} http_write;

static uv_buf_t http_answer(size_t size, int keep, int head) {
	char hdr[160];
	int n = snprintf(hdr, sizeof hdr, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %zu\r\n%s\r\n", size,
	                 keep ? "" : "Connection: close\r\n");
	size_t total = n + (head ? 0 : size);
	char *b = malloc(total);
	memcpy(b, hdr, n);
	for (size_t i = 0; !head && i < size; i++)
		b[n + i] = 'a' + i % 26;
	return uv_buf_init(b, total);
}

static void http_closed(uv_handle_t *h) {
	http_conn *c = (http_conn *)h;
	free(c->buf);
	free(c);
}
static void http_close(http_conn *c) {
	if (!c->closing) {
		c->closing = 1;
		uv_close((uv_handle_t *)&c->tcp, http_closed);
	}
}
static void http_written(uv_write_t *req, int status) {
	http_write *w = (http_write *)req;
	if (w->close || status < 0)
		http_close((http_conn *)req->handle);
	free(w);
}

/* header_value returns the value of header name (with its colon) in
 * the head [h, end), NULL if absent, its length in *n. */
static const char *header_value(const char *h, const char *end, const char *name, size_t *n) {
	size_t nl = strlen(name);
	for (const char *l = memchr(h, '\n', end - h); l && l + 1 < end; l = memchr(l + 1, '\n', end - l - 1)) {
		const char *p = l + 1;
		if ((size_t)(end - p) > nl && !strncasecmp(p, name, nl)) {
			p += nl;
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			const char *e = memchr(p, '\r', end - p);
			*n = (e ? e : end) - p;
			return p;
		}
	}
	return NULL;
}

/* http_parse answers the complete requests at the front of the head
 * [h, end) (its "\r\n\r\n" included): it returns the answer, sets
 * *body to its Content-Length and *keep to keep-alive, or returns a
 * buffer of length 0 for a request that does not parse. */
static uv_buf_t http_parse(const char *h, const char *end, size_t *body, int *keep) {
	uv_buf_t none = {NULL, 0};
	const char *sp = memchr(h, ' ', end - h);
	const char *eol = memchr(h, '\r', end - h);
	if (!sp || !eol || sp > eol || eol - h < 14 || memcmp(eol - 8, "HTTP/1.", 7))
		return none;
	int head = sp - h == 4 && !memcmp(h, "HEAD", 4);
	size_t n;
	const char *v = header_value(h, end, "content-length:", &n);
	*body = 0;
	if (v) {
		if (n == 0)
			return none;
		for (size_t i = 0; i < n; i++) {
			if (!isdigit((unsigned char)v[i]) || *body > ((size_t)-1) / 10 - 10)
				return none;
			*body = *body * 10 + (v[i] - '0');
		}
	}
	*keep = eol[-1] == '1'; /* HTTP/1.1 keeps alive unless told otherwise */
	if ((v = header_value(h, end, "connection:", &n)) != NULL) {
		if (n == 5 && !strncasecmp(v, "close", 5))
			*keep = 0;
		else if (n == 10 && !strncasecmp(v, "keep-alive", 10))
			*keep = 1;
	}
	if (head)
		return *keep ? http_head : http_head_close;
	return *keep ? http_full : http_full_close;
}

/* http_feed answers what c's buffer holds of whole requests, in one
 * write, and keeps the rest (a partial request) for the next read. */
static void http_feed(http_conn *c) {
	uv_buf_t out[HTTP_BATCH];
	int nout = 0, close = 0;
	size_t off = 0;
	while (!close && nout < HTTP_BATCH) {
		if (c->body_left > 0) {
			size_t skip = c->len - off < c->body_left ? c->len - off : c->body_left;
			off += skip;
			c->body_left -= skip;
			if (c->body_left > 0)
				break;
		}
		char *start = c->buf + off, *e = NULL;
		for (char *p = start; p + 3 < c->buf + c->len; p++) {
			p = memchr(p, '\r', c->buf + c->len - p);
			if (!p || p + 3 >= c->buf + c->len)
				break;
			if (!memcmp(p, "\r\n\r\n", 4)) {
				e = p + 4;
				break;
			}
		}
		if (!e) {
			if (c->len - off > HTTP_MAX_HEAD)
				out[nout++] = http_bad, close = 1;
			break;
		}
		int keep;
		uv_buf_t a = http_parse(start, e, &c->body_left, &keep);
		if (a.len == 0)
			a = http_bad, keep = 0;
		out[nout++] = a;
		close = !keep;
		off = e - c->buf;
	}
	memmove(c->buf, c->buf + off, c->len - off);
	c->len -= off;
	if (nout > 0) {
		http_write *w = malloc(sizeof *w);
		w->close = close;
		if (uv_write(&w->req, (uv_stream_t *)&c->tcp, out, nout, http_written) < 0) {
			free(w);
			http_close(c);
			return;
		}
	}
	if (close)
		uv_read_stop((uv_stream_t *)&c->tcp);
	else if (nout == HTTP_BATCH)
		http_feed(c); /* more whole requests than one write takes */
}

static void http_alloc(uv_handle_t *h, size_t size, uv_buf_t *buf) {
	http_conn *c = (http_conn *)h;
	if (c->cap - c->len < 65536) {
		c->cap = c->len + 65536;
		c->buf = realloc(c->buf, c->cap);
	}
	*buf = uv_buf_init(c->buf + c->len, c->cap - c->len);
}
static void http_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
	http_conn *c = (http_conn *)s;
	if (nread < 0) {
		http_close(c);
		return;
	}
	c->len += nread;
	if (nread > 0)
		http_feed(c);
}
static void http_conn_cb(uv_stream_t *server, int status) {
	if (status < 0)
		return;
	http_conn *c = calloc(1, sizeof *c);
	uv_tcp_init(loop, &c->tcp);
	if (uv_accept(server, (uv_stream_t *)&c->tcp) == 0) {
		uv_tcp_nodelay(&c->tcp, 1);
		uv_read_start((uv_stream_t *)&c->tcp, http_alloc, http_read);
	} else {
		http_close(c);
	}
}

static void on_signal(uv_signal_t *s, int sig) { uv_stop(s->loop); }

/* serve accepts connections on host:port with on_connection until
 * SIGINT or SIGTERM; what names the server in its lines. */
static int serve(const char *host, int port, uv_connection_cb on_connection, const char *what) {
	loop = uv_default_loop();
	uv_tcp_t server;
	struct sockaddr_in addr;
	uv_tcp_init(loop, &server);
	if (uv_ip4_addr(host, port, &addr) || uv_tcp_bind(&server, (const struct sockaddr *)&addr, 0) ||
	    uv_listen((uv_stream_t *)&server, 128, on_connection)) {
		fprintf(stderr, "libuv %s: cannot listen there\n", what);
		return 1;
	}
	struct sockaddr_in bound;
	int len = sizeof bound;
	uv_tcp_getsockname(&server, (struct sockaddr *)&bound, &len);
	printf("listening on %s:%d (libuv%s)\n", host, ntohs(bound.sin_port), on_connection == on_conn ? "" : ", HTTP/1.1");
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
		return serve(argv[2], atoi(argv[3]), on_conn, w);
	}
	if (!strcmp(w, "http-server")) {
		if (argc != 5 || atol(argv[4]) < 0)
			die("usage: libuv http-server HOST PORT SIZE");
		size_t size = atol(argv[4]);
		http_full = http_answer(size, 1, 0);
		http_full_close = http_answer(size, 0, 0);
		http_head = http_answer(size, 1, 1);
		http_head_close = http_answer(size, 0, 1);
		return serve(argv[2], atoi(argv[3]), http_conn_cb, w);
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
