#!/usr/bin/env python3
"""asyncio and uvloop running loopbench's workloads, in their shapes.

Each run prints one Go benchmark line, so that its result lands in the
same benchfmt file as loopbench's and every tool reads it:

    BenchmarkTimers/impl=uvloop/op=cold-fire/k=100000 1 1.1e+08 ns/op 6170 cpu-ns/timer ...

The same code runs on asyncio.new_event_loop() and uvloop.new_event_loop().
Usage:

    peer.py LOOP callsoon-inflight W [-t SECONDS]
    peer.py LOOP callsoon-chain [-t SECONDS]
    peer.py LOOP cold-fire K [-t SECONDS]
    peer.py LOOP cold-cancel K [-t SECONDS]
    peer.py LOOP iochain SELECTOR P A [-t SECONDS]
    peer.py LOOP echo-server HOST PORT [CERT KEY]
    peer.py LOOP http-server HOST PORT SIZE
    peer.py LOOP version

LOOP is asyncio or uvloop; SELECTOR is epoll or poll (uvloop: epoll).
echo-server with CERT and KEY (PEM files) serves TLS with Python's ssl,
asyncio's create_server(ssl=) on either loop. http-server is an HTTP/1.1
keep-alive server answering every request with 200 and SIZE bytes of body,
as vmbench's: an asyncio.Protocol feeding httptools.HttpRequestParser,
writing each response in on_message_complete (needs httptools).
"""

import argparse
import asyncio
import random
import selectors
import signal
import socket
import ssl
import sys
import time


def new_loop(kind, selector="epoll"):
    if kind == "uvloop":
        import uvloop

        if selector != "epoll":
            sys.exit("uvloop runs on libuv, whose Linux backend is epoll")
        return uvloop.new_event_loop()
    if selector == "poll":
        return asyncio.SelectorEventLoop(selectors.PollSelector())
    if selector != "epoll":
        sys.exit("selector %r: want epoll or poll" % selector)
    return asyncio.SelectorEventLoop(selectors.EpollSelector())


def grow(run, target):
    """Runs run(n) with a growing n, as go test does, until one run takes
    at least target seconds; returns n and that run's result, whose first
    element is its measured seconds."""
    n = 1
    while True:
        res = run(n)
        if res[0] >= target or n >= 10**9:
            return n, res
        per = max(res[0] / n, 1e-9)
        n = min(100 * n, max(n + 1, int(target / per * 1.2)))


def callsoon_inflight(kind, w, target):
    loop = new_loop(kind)

    def run(n):
        state = {"left": n, "done": False}

        def cb():
            if state["done"]:
                return
            state["left"] -= 1
            if state["left"] <= 0:
                state["done"] = True
                loop.stop()
                return
            loop.call_soon(cb)

        for _ in range(min(w, n)):
            loop.call_soon(cb)
        t0 = time.perf_counter()
        loop.run_forever()
        return (time.perf_counter() - t0,)

    n, (secs,) = grow(run, target)
    loop.close()
    print("BenchmarkCallSoon/impl=%s/mode=inflight/w=%d %d %.17g ns/op" % (kind, w, n, secs * 1e9 / n))


def callsoon_chain(kind, target):
    loop = new_loop(kind)
    a, b = socket.socketpair()
    loop.add_reader(a.fileno(), lambda: None)  # one idle fd watched

    def run(n):
        state = {"left": n}

        def cb():
            state["left"] -= 1
            if state["left"] > 0:
                loop.call_soon(cb)
            else:
                loop.stop()

        loop.call_soon(cb)
        t0 = time.perf_counter()
        loop.run_forever()
        return (time.perf_counter() - t0,)

    n, (secs,) = grow(run, target)
    loop.remove_reader(a.fileno())
    loop.close()
    a.close()
    b.close()
    print("BenchmarkCallSoon/impl=%s/mode=chain %d %.17g ns/op" % (kind, n, secs * 1e9 / n))


def cold_delays(k):
    r = random.Random(21)
    return [r.random() * 0.1 for _ in range(k)]


def cold_fire(kind, k, target):
    delays = cold_delays(k)

    def run(n):
        cpu = sched = wall = 0.0
        for _ in range(n):
            loop = new_loop(kind)
            state = {"fired": 0}

            def fire():
                state["fired"] += 1
                if state["fired"] == k:
                    loop.stop()

            c0, w0 = time.process_time(), time.perf_counter()
            for d in delays:
                loop.call_later(d, fire)
            sched += time.perf_counter() - w0
            loop.run_forever()
            cpu += time.process_time() - c0
            wall += time.perf_counter() - w0
            loop.close()
        return wall, cpu, sched

    n, (wall, cpu, sched) = grow(run, target)
    print("BenchmarkTimers/impl=%s/op=cold-fire/k=%d %d %.17g ns/op %.17g cpu-ns/timer %.17g schedule-ns/timer"
          % (kind, k, n, wall * 1e9 / n, cpu * 1e9 / (n * k), sched * 1e9 / (n * k)))


def cold_cancel(kind, k, target):
    def run(n):
        total = sched = 0.0
        for _ in range(n):
            loop = new_loop(kind)
            w0 = time.perf_counter()
            hs = [loop.call_later(10.0, int) for _ in range(k)]
            sched += time.perf_counter() - w0
            for h in hs:
                h.cancel()
            loop.stop()
            loop.run_forever()
            total += time.perf_counter() - w0
            loop.close()
        return total, sched

    n, (total, sched) = grow(run, target)
    print("BenchmarkTimers/impl=%s/op=cold-cancel/k=%d %d %.17g ns/op %.17g ns/timer %.17g schedule-ns/timer"
          % (kind, k, n, total * 1e9 / n, total * 1e9 / (n * k), sched * 1e9 / (n * k)))


def iochain(kind, selector, p, a, target):
    """libevent's bench.c: p socketpairs, each reader reads one byte and
    writes one to the next pair, a chains in flight, the loop run one
    iteration at a time (stop(); run_forever(), bench.c's EVLOOP_ONCE)."""
    loop = new_loop(kind, selector)
    pairs = [socket.socketpair() for _ in range(p)]
    for r, w in pairs:
        r.setblocking(False)
        w.setblocking(False)
    st = {"count": 0, "fired": 0, "writes": 0}

    def reader(i):
        r, nxt = pairs[i][0], pairs[(i + 1) % p][1]

        def cb():
            try:
                if r.recv(1):
                    st["count"] += 1
            except BlockingIOError:
                pass
            if st["writes"] > 0:
                nxt.send(b"e")
                st["writes"] -= 1
                st["fired"] += 1

        return cb

    for i, (r, _) in enumerate(pairs):
        loop.add_reader(r.fileno(), reader(i))
    space = max(p // a, 1)

    def run(n):
        st["count"], st["fired"], st["writes"] = 0, 0, n
        t0 = time.perf_counter()
        for i in range(a):
            pairs[(i * space) % p][1].send(b"e")
            st["fired"] += 1
        while st["count"] != st["fired"]:
            loop.stop()
            loop.run_forever()
        return (time.perf_counter() - t0,)

    n, (secs,) = grow(run, target)
    for r, w in pairs:
        loop.remove_reader(r.fileno())
        r.close()
        w.close()
    loop.close()
    print("BenchmarkIOChain/impl=%s/selector=%s/p=%d/a=%d/mode=once %d %.17g ns/op %.17g us/write"
          % (kind, selector, p, a, n, secs * 1e9 / n, secs * 1e6 / n))


class Echo(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        self.transport.write(data)


def echo_server(kind, host, port, cert=None, key=None):
    loop = new_loop(kind)
    asyncio.set_event_loop(loop)
    ctx = None
    if cert:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(cert, key)
    server = loop.run_until_complete(loop.create_server(Echo, host, port, ssl=ctx))
    serve_until_signal(loop, server, "%s%s" % (kind, ", TLS" if ctx else ""))


class HTTP(asyncio.Protocol):
    """One connection of http-server: httptools parses, each complete
    request gets its response, built once (without the body to HEAD); a
    request that does not parse gets 400 and the connection is closed, and
    so does one that asks it."""

    def __init__(self, answers):
        import httptools

        self.answers = answers
        self.parser = httptools.HttpRequestParser(self)
        self.error = httptools.HttpParserError
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        try:
            self.parser.feed_data(data)
        except self.error:
            self.transport.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            self.transport.close()

    def on_message_complete(self):
        keep = self.parser.should_keep_alive()
        self.transport.write(self.answers[keep, self.parser.get_method() == b"HEAD"])
        if not keep:
            self.transport.close()


def http_answers(size):
    """The responses by (keep-alive, HEAD), as internal/harness/httpwire's."""
    body = bytes(ord("a") + i % 26 for i in range(size))
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n" % size
    answers = {}
    for keep in (True, False):
        h = (head + ("\r\n" if keep else "Connection: close\r\n\r\n")).encode()
        answers[keep, True], answers[keep, False] = h, h + body
    return answers


def http_server(kind, host, port, size):
    import httptools  # noqa: F401 (fail before listening)

    loop = new_loop(kind)
    asyncio.set_event_loop(loop)
    answers = http_answers(size)
    server = loop.run_until_complete(loop.create_server(lambda: HTTP(answers), host, port))
    serve_until_signal(loop, server, "%s, httptools, HTTP/1.1, %d bytes of body" % (kind, size))


def serve_until_signal(loop, server, what):
    """Says where server listens and what it is, then runs loop until
    SIGINT or SIGTERM, and closes both."""
    addr = server.sockets[0].getsockname()
    print("listening on %s:%d (%s)" % (addr[0], addr[1], what), flush=True)
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, loop.stop)
    loop.run_forever()
    server.close()
    loop.run_until_complete(server.wait_closed())
    loop.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("loop", choices=["asyncio", "uvloop"])
    ap.add_argument("workload")
    ap.add_argument("args", nargs="*")
    ap.add_argument("-t", type=float, default=0.5, help="seconds a measurement takes at least")
    o = ap.parse_args()
    if o.loop == "uvloop":
        try:
            import uvloop  # noqa: F401
        except ImportError:
            sys.exit("no uvloop module (Debian: apt install python3-uvloop)")
    args = o.args
    w = o.workload
    if w == "callsoon-inflight" and len(args) == 1:
        callsoon_inflight(o.loop, int(args[0]), o.t)
    elif w == "callsoon-chain" and not args:
        callsoon_chain(o.loop, o.t)
    elif w == "cold-fire" and len(args) == 1:
        cold_fire(o.loop, int(args[0]), o.t)
    elif w == "cold-cancel" and len(args) == 1:
        cold_cancel(o.loop, int(args[0]), o.t)
    elif w == "iochain" and len(args) == 3:
        iochain(o.loop, args[0], int(args[1]), int(args[2]), o.t)
    elif w == "echo-server" and len(args) in (2, 4):
        echo_server(o.loop, args[0], int(args[1]), *args[2:])
    elif w == "http-server" and len(args) == 3:
        try:
            import httptools  # noqa: F401
        except ImportError:
            sys.exit("no httptools module (Debian: apt install python3-httptools)")
        http_server(o.loop, args[0], int(args[1]), int(args[2]))
    elif w == "version" and not args:
        v = "Python " + sys.version.split()[0]
        if o.loop == "uvloop":
            import uvloop

            v = "uvloop %s on %s" % (uvloop.__version__, v)
        print(v)
    else:
        ap.error("unknown workload or arguments: %s %s" % (w, " ".join(args)))


if __name__ == "__main__":
    main()
