"""Replays asyncdiff schedules (JSON, a list, on stdin) under CPython's
asyncio and writes their traces (a JSON list of lists of strings) to
stdout: the counterpart of replay.go, line for line.

Time is the loop's own clock, moved only when the loop would block, by
the timeout it would block for; thread-safe calls are made by another
thread while the loop waits in select; timers with equal deadlines run in
the order they were scheduled, loopbench's documented choice, which
asyncio's heap leaves undefined (FifoTimerHandle imposes it). Nothing else
of asyncio is changed.
"""

import asyncio
import asyncio.events
import itertools
import json
import queue
import socket
import sys
import threading

UNIT = 1 / 1024  # a binary fraction: deadlines add up exactly
MAX_TRACE = 5000
MAX_RUNS = 100


class FifoTimerHandle(asyncio.events.TimerHandle):
    """A TimerHandle ordered by (deadline, scheduling order)."""

    __slots__ = ("_seq",)
    _counter = itertools.count()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._seq = next(FifoTimerHandle._counter)

    def __lt__(self, other):
        return (self._when, self._seq) < (other._when, other._seq)

    def __le__(self, other):
        return (self._when, self._seq) <= (other._when, other._seq)

    def __gt__(self, other):
        return (self._when, self._seq) > (other._when, other._seq)

    def __ge__(self, other):
        return (self._when, self._seq) >= (other._when, other._seq)


asyncio.events.TimerHandle = FifoTimerHandle  # base_events looks it up per call_at


class Blocked(Exception):
    pass


def b(x):
    return "true" if x else "false"


def state(fut):
    if fut.cancelled():
        return "cancelled"
    if fut.exception() is not None:
        return "error"
    return f"result {fut.result()}"


class Helper(threading.Thread):
    """The other thread: makes the thread-safe calls it is given."""

    def __init__(self):
        super().__init__(daemon=True)
        self.q = queue.Queue()

    def run(self):
        while True:
            loop, fns, done = self.q.get()
            for fn in fns:
                loop.call_soon_threadsafe(fn)
            done.set()


HELPER = Helper()
HELPER.start()


class Driven:
    """A new loop whose clock and select are driven (Driver in driver.go),
    and a trace capped at MAX_TRACE entries."""

    def __init__(self):
        self.loop = loop = asyncio.new_event_loop()
        loop.set_exception_handler(lambda loop, ctx: None)
        self.now = 0.0
        loop.time = lambda: self.now
        sel = loop._selector
        self.real_select = sel.select
        sel.select = self.select
        self.armed = []
        self.trace = []
        self.capped = False

    def select(self, timeout=None):
        if (timeout is None or timeout > 0) and self.armed:
            fns, self.armed = self.armed, []
            done = threading.Event()
            HELPER.q.put((self.loop, fns, done))
            done.wait()
        events = self.real_select(0)
        if not events:
            if timeout is None:
                raise Blocked()
            if timeout > 0:
                self.now += timeout
        return events

    def tr(self, text):
        if self.capped:
            return
        self.trace.append(text)
        if len(self.trace) >= MAX_TRACE:
            self.trace.append("cap")
            self.capped = True
            self.loop.stop()


class Replay(Driven):
    def __init__(self, s):
        super().__init__()
        self.s = s
        self.handles = {}
        self.cbs = {}
        self.insts = [[] for _ in s["tasks"] or []]
        self.order = []
        self.names = {}
        self.a, self.b = socket.socketpair()
        self.a.setblocking(False)
        self.b.setblocking(False)
        self.ended = False

    def run(self):
        loop, s = self.loop, self.s
        try:
            self.futs = [loop.create_future() for _ in range(s["futures"])]
            loop.call_at(s["end"] * UNIT, self.end)
            self.do(s["init"] or [])
            runs = 0
            while not self.ended and not self.capped and runs < MAX_RUNS:
                try:
                    loop.run_forever()
                except Blocked:
                    self.tr("error")
                    return self.trace
                self.tr("run returned")
                runs += 1
            if not self.capped:
                self.cleanup()
            loop.remove_reader(self.a.fileno())
            loop.remove_writer(self.a.fileno())
            return self.trace
        finally:
            self.a.close()
            self.b.close()
            loop.close()

    def end(self):
        self.tr("end")
        self.ended = True
        self.loop.stop()

    def cleanup(self):
        self.armed = []
        self.tr("cleanup")
        for _ in range(10):
            left = [t for t in self.order if not t.done()]
            if not left:
                return
            for t in left:
                self.tr(f"cancel {self.names[t]} {b(t.cancel())}")
            for _ in range(3):
                self.loop.stop()
                self.loop.run_forever()

    def node(self, k):
        return lambda: self.run_node(k)

    def run_node(self, k):
        if self.capped:
            return
        self.tr(f"n{k}")
        self.do(self.s["nodes"][k] or [])

    def do(self, acts):
        for a in acts:
            self.act(a)

    def last(self, p):
        return self.insts[p][-1] if self.insts[p] else None

    def act(self, a):
        loop, op, A, B = self.loop, a["op"], a["a"], a["b"]
        fd = self.a.fileno()
        if op == "soon":
            self.handles[a["id"]] = loop.call_soon(self.node(A))
        elif op == "later":
            self.handles[a["id"]] = loop.call_later(B * UNIT, self.node(A))
        elif op == "at":
            self.handles[a["id"]] = loop.call_at(B * UNIT, self.node(A))
        elif op == "cancel":
            h = self.handles.get(A)
            if h is not None:
                h.cancel()
            self.tr(f"cancel h{A} {b(h is not None)}")
        elif op == "stop":
            self.tr("stop")
            loop.stop()
        elif op == "ts":
            self.armed.append(self.node(A))
        elif op == "add_reader":
            loop.add_reader(fd, self.node(A))
        elif op == "remove_reader":
            self.tr(f"remove_reader {b(loop.remove_reader(fd))}")
        elif op == "add_writer":
            loop.add_writer(fd, self.node(A))
        elif op == "remove_writer":
            self.tr(f"remove_writer {b(loop.remove_writer(fd))}")
        elif op == "send":
            self.b.send(bytes(A))
        elif op == "recv":
            try:
                self.tr(f"recv {len(self.a.recv(A))}")
            except BlockingIOError:
                self.tr("recv -")
        else:
            self.future_act(a)

    def future_act(self, a):
        op, A, B, ident = a["op"], a["a"], a["b"], a["id"]
        if op == "fut_cb":
            fut = self.futs[A]

            def cb(f):
                self.tr(f"f{A} cb{ident} {state(f)}")
                self.run_node(B)

            fut.add_done_callback(cb)
            self.cbs[ident] = (fut, cb)
        elif op == "fut_rm":
            reg = self.cbs.get(A)
            self.tr(f"rm cb{A} {b(reg is not None and reg[0].remove_done_callback(reg[1]) > 0)}")
        elif op == "set_result":
            try:
                self.futs[A].set_result(B)
                self.tr(f"set f{A} ok")
            except asyncio.InvalidStateError:
                self.tr(f"set f{A} invalid")
        elif op == "fut_cancel":
            self.tr(f"cancel f{A} {b(self.futs[A].cancel())}")
        elif op == "create_task":
            self.create_task(A)
        elif op == "task_cancel":
            t = self.last(A)
            if t is not None:
                self.tr(f"cancel {self.names[t]} {b(t.cancel())}")
            else:
                self.tr(f"cancel t{A} none")
        elif op == "task_cb":
            t = self.last(A)
            if t is None:
                self.tr(f"task_cb t{A} none")
                return
            name = self.names[t]

            def tcb(f):
                self.tr(f"{name} cb{ident} {state(f)}")
                self.run_node(B)

            t.add_done_callback(tcb)
        else:
            raise ValueError(f"unknown op {op}")

    def create_task(self, p):
        n = len(self.insts[p]) + 1
        name = f"t{p}.{n}"
        t = self.loop.create_task(self.run_prog(name, self.s["tasks"][p], p * 100 + n))
        self.insts[p].append(t)
        self.order.append(t)
        self.names[t] = name
        self.tr(f"create {name}")

    async def run_prog(self, name, prog, value):
        self.tr(f"{name} start")
        for st in prog["steps"] or []:
            op, A = st["op"], st["a"]
            try:
                if op == "await_fut":
                    what = f"await f{A}"
                    out = f"result {await self.futs[A]}"
                elif op == "await_task":
                    target = self.last(A)
                    if target is None:
                        self.tr(f"{name} await t{A} none")
                        continue
                    what = f"await {self.names[target]}"
                    out = f"result {await target}"
                else:
                    what = f"sleep {A}"
                    await asyncio.sleep(A * UNIT)
                    out = "ok"
                self.tr(f"{name} {what}: {out}")
            except asyncio.CancelledError:
                self.tr(f"{name} {what}: cancelled")
                if not prog["catch"]:
                    self.tr(f"{name} raise")
                    raise
        self.tr(f"{name} return")
        return value


def main():
    schedules = json.load(sys.stdin)
    out = []
    for s in schedules:
        try:
            out.append(Replay(s).run())
        except Exception as e:  # a schedule that breaks the replayer shows in its trace
            out.append([f"python error: {type(e).__name__}: {e}"])
    json.dump(out, sys.stdout)


if __name__ == "__main__" and sys.argv[1:] != ["coord"]:  # coord.py follows this script
    main()
