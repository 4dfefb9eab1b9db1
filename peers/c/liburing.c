/* liburing running libevent's bench.c (loopbench's IOChain, mode=once) on
 * io_uring's poll requests, the mechanism of loopbench's uring selector:
 * a one-shot IORING_OP_POLL_ADD per reader, armed again once it fired, the
 * iteration's polls submitted in one io_uring_enter. It is the anchor of
 * what that mechanism costs with no event loop around it. Usage:
 *
 *   liburing version
 *   liburing iochain uring P A TARGET_MS   (one iteration: submit the
 *                                           fired polls again, reap the
 *                                           completions, never block)
 *
 * liburing is not an event loop: it runs no callback or timer workload.
 */
#include <liburing.h>
#include <poll.h>

#include "peer.h"

static struct io_uring ring;
static int *fds;
static long pairs, active, fired, count, writes;

/* arm submits (with the next io_uring_submit) a one-shot poll of reader i. */
static void arm(long i) {
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	if (!sqe) { /* the SQ is full: submit it first */
		io_uring_submit(&ring);
		sqe = io_uring_get_sqe(&ring);
	}
	io_uring_prep_poll_add(sqe, fds[2 * i], POLLIN);
	io_uring_sqe_set_data(sqe, (void *)(intptr_t)i);
}

/* read_cb is bench.c's read_cb for pair i. */
static void read_cb(long i) {
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

/* once is one iteration: submit the polls armed again, run the readers
 * of those that completed, and arm them again. */
static void once(void) {
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;
	io_uring_submit(&ring);
	io_uring_for_each_cqe(&ring, head, cqe) {
		long i = (long)(intptr_t)io_uring_cqe_get_data(cqe);
		seen++;
		if (cqe->res < 0)
			die("poll failed");
		read_cb(i);
		arm(i);
	}
	io_uring_cq_advance(&ring, seen);
}

static double run_chain(long n) {
	long space = pairs / active > 0 ? pairs / active : 1;
	count = fired = 0;
	writes = n;
	double t0 = wall_ns();
	for (long i = 0; i < active; i++, fired++)
		send(fds[2 * ((i * space) % pairs) + 1], "e", 1, 0);
	while (count != fired)
		once();
	return wall_ns() - t0;
}

int main(int argc, char **argv) {
	if (argc < 2)
		die("usage: liburing WORKLOAD ARGS... TARGET_MS");
	const char *w = argv[1];
	if (!strcmp(w, "version")) {
#ifdef IO_URING_VERSION_MAJOR
		printf("liburing %d.%d\n", IO_URING_VERSION_MAJOR, IO_URING_VERSION_MINOR);
#else
		printf("liburing 2.3 or older\n"); /* io_uring_version.h came with 2.4 */
#endif
		return 0;
	}
	double target = arg_target(argc, argv), ns;
	if (strcmp(w, "iochain"))
		die("unknown workload (liburing runs iochain)");
	if (argc != 6 || strcmp(argv[2], "uring"))
		die("usage: liburing iochain uring P A TARGET_MS");
	pairs = arg_int(argc, argv, 3, "P");
	active = arg_int(argc, argv, 4, "A");
	unsigned entries = 64;
	while (entries < pairs && entries < 32768)
		entries *= 2;
	struct io_uring_params p = {.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP, .cq_entries = 2 * entries};
	int err = io_uring_queue_init_params(entries, &ring, &p);
	if (err < 0) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-err));
		return 1;
	}
	fds = malloc(2 * pairs * sizeof *fds);
	socketpairs(fds, pairs);
	for (long i = 0; i < pairs; i++)
		arm(i);
	long n = grow(run_chain, target, &ns);
	printf("BenchmarkIOChain/impl=liburing/selector=uring/p=%ld/a=%ld/mode=once %ld %.17g ns/op %.17g us/write\n", pairs, active, n, ns / n, ns / n / 1e3);
	return 0;
}
