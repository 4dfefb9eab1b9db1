# Stream and subprocess scenarios under CPython's asyncio, for the
# differential check of loopbench's streams (streams.go in this package,
# streams_diff_test.go at the root). It reads a JSON list of scenario
# names on stdin, runs each in a new event loop over real sockets and
# pipes, and writes a JSON list of their traces: one list of strings per
# scenario, each entry a result ("read hel") or an exception by its class
# name and fields ("IncompleteReadError partial=c expected=5").
import asyncio
import json
import socket
import sys

SNDBUF = 64 << 10  # the drain scenario's socket send buffer
BIG = 2 << 20  # more than that buffer and the peer's receive buffer hold


def fmt_exc(e):
    name = type(e).__name__
    if isinstance(e, asyncio.IncompleteReadError):
        exp = "None" if e.expected is None else str(e.expected)
        return "%s partial=%s expected=%s" % (name, e.partial.decode(), exp)
    if isinstance(e, asyncio.LimitOverrunError):
        return "%s consumed=%d" % (name, e.consumed)
    return name


async def call(trace, label, aw):
    """Awaits aw and records its result, or its exception, under label."""
    try:
        v = await aw
    except Exception as e:  # the class is the result
        trace.append("%s %s" % (label, fmt_exc(e)))
        return None
    if isinstance(v, bytes):
        trace.append("%s %s" % (label, v.decode()))
    else:
        trace.append("%s %s" % (label, v))
    return v


async def pair(serve, **kw):
    """A server running serve(reader, writer) and a client's streams."""
    server = await asyncio.start_server(serve, "127.0.0.1", 0, **kw.get("server", {}))
    port = server.sockets[0].getsockname()[1]
    r, w = await asyncio.open_connection("127.0.0.1", port, **kw.get("client", {}))
    return server, r, w


async def finish(server, w):
    w.close()
    await w.wait_closed()
    server.close()
    await server.wait_closed()


async def partial_reads(trace):
    go = asyncio.Event()
    done = asyncio.Event()

    async def serve(r, w):
        w.write(b"hello")
        await go.wait()
        w.write(b"world")
        w.write_eof()
        await done.wait()
        w.close()

    server, r, w = await pair(serve)
    await call(trace, "read3", r.read(3))
    await call(trace, "read100", r.read(100))
    go.set()
    await call(trace, "read100", r.read(100))
    await call(trace, "read100", r.read(100))
    await call(trace, "read-1", r.read(-1))
    trace.append("at_eof %s" % r.at_eof())
    done.set()
    await finish(server, w)


async def readuntil_chunks(trace):
    async def serve(r, w):
        for chunk in (b"ab", b"c\r", b"\nde"):
            w.write(chunk)
            await w.drain()
            await asyncio.sleep(0.005)  # separate segments; the result does not depend on them
        w.close()

    server, r, w = await pair(serve)
    await call(trace, "readuntil", r.readuntil(b"\r\n"))
    await call(trace, "readuntil", r.readuntil(b"\r\n"))
    await call(trace, "readuntil", r.readuntil(b"\r\n"))
    await finish(server, w)


async def readuntil_limit(trace):
    go = asyncio.Event()
    served = asyncio.get_running_loop().create_future()

    async def serve(r, w):
        res = []
        await call(res, "server readuntil", r.readuntil(b";"))
        served.set_result(res)
        w.write(b"0123456789;")
        await go.wait()
        w.write(b"0123456789\nrest\nok\n")
        w.write_eof()

    server, r, w = await pair(serve, server={"limit": 4}, client={"limit": 8})
    w.write(b"abcdefgh;")
    trace.extend(await served)
    await call(trace, "readuntil", r.readuntil(b";"))
    await call(trace, "readline", r.readline())
    go.set()
    await call(trace, "readline", r.readline())
    await call(trace, "readline", r.readline())
    await call(trace, "readline", r.readline())
    await call(trace, "readline", r.readline())
    await finish(server, w)


async def readexactly_eof(trace):
    async def serve(r, w):
        w.write(b"abc")
        w.close()

    server, r, w = await pair(serve)
    await call(trace, "readexactly2", r.readexactly(2))
    await call(trace, "readexactly5", r.readexactly(5))
    await call(trace, "readexactly1", r.readexactly(1))
    await call(trace, "readexactly0", r.readexactly(0))
    await call(trace, "read10", r.read(10))
    trace.append("at_eof %s" % r.at_eof())
    await finish(server, w)


async def drain_nonreading(trace):
    go = asyncio.Event()
    got = asyncio.get_running_loop().create_future()

    async def serve(r, w):
        await go.wait()
        got.set_result(len(await r.read(-1)))
        w.close()

    server, r, w = await pair(serve)
    w.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SNDBUF)
    w.write(b"d" * BIG)
    drain = asyncio.ensure_future(w.drain())
    for _ in range(20):
        await asyncio.sleep(0)
    trace.append("drain done before the peer reads %s" % drain.done())
    go.set()
    await call(trace, "drain", drain)
    w.close()
    await call(trace, "peer got", got)
    await finish(server, w)


async def write_eof(trace):
    async def serve(r, w):
        res = await r.read(-1)
        w.write(b"ack:" + res)
        w.close()

    server, r, w = await pair(serve)
    trace.append("can_write_eof %s" % w.can_write_eof())
    w.write(b"data")
    w.write_eof()
    try:
        w.write(b"more")
        trace.append("write after write_eof ok")
    except Exception as e:
        trace.append("write after write_eof %s" % fmt_exc(e))
    await call(trace, "read-1", r.read(-1))
    await finish(server, w)

    p = await asyncio.create_subprocess_exec(
        "cat", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    trace.append("stdin can_write_eof %s" % p.stdin.can_write_eof())
    p.stdin.write(b"xyz")
    p.stdin.write_eof()
    await call(trace, "cat read-1", p.stdout.read(-1))
    await call(trace, "cat wait", p.wait())


class Recorder(asyncio.SubprocessProtocol):
    def __init__(self, lost):
        self.events = []
        self.lost = lost

    def pipe_connection_lost(self, fd, exc):
        self.events.append("pipe %d lost %s" % (fd, "None" if exc is None else fmt_exc(exc)))

    def process_exited(self):
        self.events.append("exited")

    def connection_lost(self, exc):
        self.lost.set_result(exc)


async def kill_open_pipes(trace):
    loop = asyncio.get_running_loop()
    lost = loop.create_future()
    tr, proto = await loop.subprocess_exec(lambda: Recorder(lost), "sleep", "30")
    tr.kill()
    await call(trace, "connection_lost", lost)
    trace.extend(sorted(proto.events))
    trace.append("returncode %s" % tr.get_returncode())
    tr.close()

    p = await asyncio.create_subprocess_exec(
        "cat", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    p.kill()
    await call(trace, "cat wait", p.wait())
    await call(trace, "cat read-1", p.stdout.read(-1))
    await call(trace, "cat stdin wait_closed", p.stdin.wait_closed())
    trace.append("cat stdin is_closing %s" % p.stdin.is_closing())


async def communicate_after_exit(trace):
    big = b"x" * (1 << 20)
    for cmd in ("echo gone", "exec 0<&-; echo stdin closed; sleep 0.2"):
        p = await asyncio.create_subprocess_exec(
            "sh", "-c", cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        await call(trace, "readline", p.stdout.readline())
        if cmd == "echo gone":
            await call(trace, "wait", p.wait())
        out, err = await p.communicate(big)
        trace.append("communicate %s %s" % (out.decode(), err))
        trace.append("returncode %s" % p.returncode)


async def pipe_limit(trace):
    p = await asyncio.create_subprocess_exec(
        "printf", "0123456789abcdef;", stdout=asyncio.subprocess.PIPE, limit=8)
    await call(trace, "readuntil", p.stdout.readuntil(b";"))
    out, _ = await p.communicate()
    trace.append("communicate %s" % out.decode())
    trace.append("returncode %s" % p.returncode)


async def second_reader(trace):
    go = asyncio.Event()

    async def serve(r, w):
        await go.wait()
        w.write(b"x")
        w.close()

    server, r, w = await pair(serve)
    first = asyncio.ensure_future(r.read(10))
    await asyncio.sleep(0)
    await call(trace, "second read", r.read(10))
    go.set()
    await call(trace, "first read", first)
    await finish(server, w)


async def stdin_broken(trace):
    p = await asyncio.create_subprocess_exec(
        "head", "-c", "10", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    p.stdin.write(b"y" * (1 << 20))
    await call(trace, "drain", p.stdin.drain())
    await call(trace, "read-1", p.stdout.read(-1))
    await call(trace, "wait", p.wait())


SCENARIOS = {f.__name__: f for f in (
    partial_reads, readuntil_chunks, readuntil_limit, readexactly_eof,
    drain_nonreading, write_eof, kill_open_pipes, communicate_after_exit,
    pipe_limit, second_reader, stdin_broken,
)}


def run(name):
    trace = []

    async def main():
        await asyncio.wait_for(SCENARIOS[name](trace), 60)

    asyncio.run(main())
    return trace


if __name__ == "__main__":
    names = json.load(sys.stdin)
    json.dump([run(n) for n in names], sys.stdout)
