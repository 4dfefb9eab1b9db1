/* Shared helpers of the C peer programs: clocks, CPU time, a seeded
 * generator, and the Go benchmark lines every program prints, so that its
 * results land in the same benchfmt file as loopbench's. */
#ifndef PEER_H
#define PEER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* wall_ns is the monotonic clock in ns. */
static inline double wall_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* cpu_ns is the process's user plus system CPU time in ns. */
static inline double cpu_ns(void) {
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

/* rng is xorshift64*, seeded per workload. */
static uint64_t rng_state = 88172645463325252ULL;
static inline void rng_seed(uint64_t s) { rng_state = s ? s : 88172645463325252ULL; }
static inline uint64_t rng_next(void) {
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}
/* rng_below returns a value in [0, n). */
static inline uint64_t rng_below(uint64_t n) { return rng_next() % n; }

/* die reports a failure on stderr and exits 1. */
static inline void die(const char *what) {
	fprintf(stderr, "%s\n", what);
	exit(1);
}

/* arg_int reads argv[i] as a positive count. */
static inline long arg_int(int argc, char **argv, int i, const char *name) {
	if (i >= argc)
		die(name);
	long v = strtol(argv[i], NULL, 10);
	if (v <= 0)
		die(name);
	return v;
}

#endif

/* The measured part of a workload: it runs n operations and returns the
 * wall time they took, in ns; its extra metrics go to the globals below. */
typedef double (*run_fn)(long n);

/* grow runs f with a growing n, as go test does, until one run takes at
 * least target_ns, and returns that n; *ns is that run's time. */
static inline long grow(run_fn f, double target_ns, double *ns) {
	long n = 1;
	for (;;) {
		double e = f(n);
		if (e >= target_ns || n >= 1000000000L) {
			*ns = e;
			return n;
		}
		double per = e / n > 1 ? e / n : 1;
		long next = (long)(target_ns / per * 1.2);
		if (next < n + 1)
			next = n + 1;
		if (next > 100 * n)
			next = 100 * n;
		n = next;
	}
}

/* arg_target reads the last argument, the measurement's target in ms. */
static inline double arg_target(int argc, char **argv) {
	double ms = argc > 1 ? strtod(argv[argc - 1], NULL) : 0;
	if (ms <= 0)
		die("the last argument is the target time of a measurement, in ms");
	return ms * 1e6;
}

/* cold_delay is the i-th from-cold delay, uniform in [0, 100 ms), in s. */
static inline double cold_delay(void) { return rng_below(100000000) / 1e9; }

/* socketpairs opens p non-blocking socket pairs into fds[2p]. */
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
static inline void socketpairs(int *fds, long p) {
	for (long i = 0; i < p; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, &fds[2 * i]) < 0)
			die("socketpair failed (too many open files?)");
		fcntl(fds[2 * i], F_SETFL, O_NONBLOCK);
		fcntl(fds[2 * i + 1], F_SETFL, O_NONBLOCK);
	}
}
