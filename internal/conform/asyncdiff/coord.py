# Replays coordination schedules (JSON, a list, on stdin) under CPython's
# asyncio and writes their traces to stdout: the counterpart of
# coordreplay.go, line for line. It runs appended to replay.py (whose
# Driven, FifoTimerHandle, UNIT and MAX_RUNS it uses), with the argument
# "coord".
#
# loopbench follows the asyncio of Python 3.13 where older ones differ;
# on them this script imposes 3.13's behaviour (and nothing else):
# Condition.wait passes on a notification it got when it is cancelled
# (3.13); a Semaphore waiter leaving wakes as many waiters as there are
# permits, not one (3.13); timeout turns the cancellation into TimeoutError unless the
# task has more cancellations than when it entered (3.12; 3.11 requires
# none); wait_for is a timeout around the await, in the awaiting task
# (3.12); Task.uncancel bringing the count to zero withdraws a
# cancellation not delivered yet (3.13); a TaskGroup withdraws the cancellation of its task that a
# failing child requested while the group waited for its children, and
# delivers again one from elsewhere that the wait swallowed (3.13). And
# everywhere it imposes loopbench's own choice where asyncio leaves the
# order undefined: a TaskGroup cancels its tasks in creation order.

import asyncio
import collections
import json
import sys


async def _condition_wait_313(self):
    """asyncio.Condition.wait of Python 3.13."""
    if not self.locked():
        raise RuntimeError("cannot wait on un-acquired lock")
    self.release()
    try:
        try:
            fut = self._get_loop().create_future()
            self._waiters.append(fut)
            try:
                await fut
                return True
            finally:
                self._waiters.remove(fut)
        finally:
            err = None
            while True:
                try:
                    await self.acquire()
                    break
                except asyncio.CancelledError as e:
                    err = e
            if err is not None:
                try:
                    raise err
                finally:
                    err = None
    except BaseException:
        self._notify(1)
        raise


def _condition_notify_313(self, n):
    idx = 0
    for fut in self._waiters:
        if idx >= n:
            break
        if not fut.done():
            idx += 1
            fut.set_result(False)


async def _semaphore_acquire_313(self):
    """asyncio.Semaphore.acquire of Python 3.13."""
    if not self.locked():
        self._value -= 1
        return True
    if self._waiters is None:
        self._waiters = collections.deque()
    fut = self._get_loop().create_future()
    self._waiters.append(fut)
    try:
        try:
            await fut
        finally:
            self._waiters.remove(fut)
    except asyncio.CancelledError:
        if fut.done() and not fut.cancelled():
            self._value += 1
        raise
    finally:
        while self._value > 0:
            if not self._wake_up_next():
                break
    return True


def _semaphore_wake_up_next_313(self):
    if not self._waiters:
        return False
    for fut in self._waiters:
        if not fut.done():
            self._value -= 1
            fut.set_result(True)
            return True
    return False


if sys.version_info < (3, 13):
    asyncio.Condition.wait = _condition_wait_313
    asyncio.Condition._notify = _condition_notify_313
    asyncio.Semaphore.acquire = _semaphore_acquire_313
    asyncio.Semaphore._wake_up_next = _semaphore_wake_up_next_313


if sys.version_info < (3, 12):
    from asyncio import timeouts as _timeouts

    _timeout_aenter_311 = _timeouts.Timeout.__aenter__

    async def _timeout_aenter_312(self):
        self._cancelling = asyncio.current_task().cancelling()
        return await _timeout_aenter_311(self)

    async def _timeout_aexit_312(self, exc_type, exc_val, exc_tb):
        """asyncio.Timeout.__aexit__ of Python 3.12."""
        if self._timeout_handler is not None:
            self._timeout_handler.cancel()
            self._timeout_handler = None
        if self._state is _timeouts._State.EXPIRING:
            self._state = _timeouts._State.EXPIRED
            if self._task.uncancel() <= self._cancelling and exc_type is asyncio.CancelledError:
                raise TimeoutError from exc_val
        elif self._state is _timeouts._State.ENTERED:
            self._state = _timeouts._State.EXITED
        return None

    _timeouts.Timeout.__aenter__ = _timeout_aenter_312
    _timeouts.Timeout.__aexit__ = _timeout_aexit_312


class Task313(asyncio.tasks._PyTask):
    """asyncio's Task (its Python implementation, whose state a subclass
    can reach) with 3.13's uncancel: the call that brings the count to
    zero also withdraws a cancellation not delivered yet."""

    def uncancel(self):
        if self._num_cancels_requested > 0:
            self._num_cancels_requested -= 1
            if self._num_cancels_requested == 0:
                self._must_cancel = False
        return self._num_cancels_requested


def task_313(loop, coro, **kwargs):
    return Task313(coro, loop=loop, **kwargs)


async def wait_for_312(aw, timeout):
    """asyncio.wait_for of Python 3.12, for a timeout > 0."""
    async with asyncio.timeout(timeout):
        return await aw


class TaskGroup(asyncio.TaskGroup):
    """asyncio.TaskGroup cancelling its tasks in the order they were
    created, loopbench's choice (asyncio's go in the order of a set), and,
    before Python 3.13, ending as 3.13's __aexit__ does."""

    def __init__(self):
        super().__init__()
        self._created = []

    def create_task(self, coro, **kwargs):
        t = super().create_task(coro, **kwargs)
        self._created.append(t)
        return t

    def _abort(self):
        self._aborting = True
        for t in self._created:
            if not t.done():
                t.cancel()

    async def __aexit__(self, et, exc, tb):
        if sys.version_info >= (3, 13):
            return await super().__aexit__(et, exc, tb)
        early = self._parent_cancel_requested  # older ones withdraw only this
        try:
            return await super().__aexit__(et, exc, tb)
        except BaseExceptionGroup:
            task = self._parent_task
            if self._parent_cancel_requested and not early:
                task.uncancel()
            if task.cancelling():
                task.uncancel()
                task.cancel()
            raise


class Fail(ValueError):
    pass


class CoordReplay(Driven):
    def __init__(self, s):
        super().__init__()
        if sys.version_info < (3, 13):
            self.loop.set_task_factory(task_313)
        self.s = s
        self.lock = asyncio.Lock()
        self.sem = asyncio.Semaphore(s["sem"])
        self.bsem = asyncio.BoundedSemaphore(s["bounded"])
        self.ev = asyncio.Event()
        self.cond = asyncio.Condition()
        kind = {"lifo": asyncio.LifoQueue, "prio": asyncio.PriorityQueue}.get(s["qkind"], asyncio.Queue)
        self.q = kind(s["qmax"])
        self.bar = asyncio.Barrier(s["parties"])
        self.tasks = [None] * len(s["tasks"] or [])
        self.order = []
        self.ended = False

    def run(self):
        loop, s = self.loop, self.s
        try:
            for i, p in enumerate(s["tasks"] or []):
                loop.call_at(p["start"] * UNIT, self.start, i)
            for c in s["cancels"] or []:
                loop.call_at(c["at"] * UNIT, self.cancel, c["task"])
            loop.call_at(s["end"] * UNIT, self.end)
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
            return self.trace
        finally:
            loop.close()

    def end(self):
        self.tr("end")
        self.ended = True
        self.loop.stop()

    def cleanup(self):
        self.tr("cleanup")
        for _ in range(10):
            left = [t for t in self.order if not t.done()]
            if not left:
                return
            self.tr(f"cancel {len(left)}")
            for t in left:
                t.cancel()
            for _ in range(3):
                self.loop.stop()
                self.loop.run_forever()

    def start(self, i):
        self.tr(f"create t{i}")
        self.tasks[i] = self.loop.create_task(self.run_prog(i))
        self.order.append(self.tasks[i])

    def cancel(self, i):
        t = self.tasks[i]
        self.tr(f"cancel t{i} " + (b(t.cancel()) if t is not None else "none"))

    async def run_prog(self, i):
        name = f"t{i}"
        prog = self.s["tasks"][i]
        self.tr(f"{name} start")
        for j, st in enumerate(prog["steps"] or []):
            try:
                out = await self.step(i, f"{name}.{j}", st)
            except BaseException as e:
                out = err_name(e)
                self.tr(f"{name} {st['op']} {st['a']} {st['b']}: {out}")
                if out != "cancelled":
                    continue
                if not prog["catch"]:
                    self.tr(f"{name} raise")
                    raise
                asyncio.current_task().uncancel()
                continue
            self.tr(f"{name} {st['op']} {st['a']} {st['b']}: {out}")
        self.tr(f"{name} return")
        return i

    async def step(self, i, name, st):
        op, A, B = st["op"], st["a"], st["b"]
        if op in ("lock", "sem", "bsem"):
            return await hold({"lock": self.lock, "sem": self.sem, "bsem": self.bsem}[op], A)
        if op == "brel":
            self.bsem.release()
        elif op == "ev_wait":
            await self.ev.wait()
        elif op == "ev_set":
            self.ev.set()
        elif op == "ev_clear":
            self.ev.clear()
        elif op == "cond_wait":
            async with self.cond:
                await self.cond.wait()
        elif op == "cond_notify":
            async with self.cond:
                self.cond.notify(A)
        elif op == "cond_all":
            async with self.cond:
                self.cond.notify_all()
        elif op == "cond_waitfor":
            async with self.cond:
                await self.cond.wait_for(lambda: not self.q.empty())
        elif op == "put":
            await self.q.put(A)
        elif op == "putn":
            self.q.put_nowait(A)
        elif op == "get":
            return f"got {await self.q.get()}"
        elif op == "getn":
            return f"got {self.q.get_nowait()}"
        else:
            return await self.step2(i, name, op, A, B)
        return "ok"

    async def step2(self, i, name, op, A, B):
        if op == "barrier":
            return f"index {await self.bar.wait()}"
        if op == "abort":
            await self.bar.abort()
        elif op == "reset":
            await self.bar.reset()
        elif op == "state":
            return " ".join([b(self.lock.locked()), b(self.sem.locked()), b(self.bsem.locked()),
                             b(self.cond.locked()), b(self.ev.is_set()), str(self.q.qsize()),
                             str(self.bar.n_waiting), b(self.bar.broken)])
        elif op == "sleep":
            await asyncio.sleep(A * UNIT)
        elif op == "cancel":
            t = self.tasks[A]
            return b(t.cancel()) if t is not None else "none"
        elif op == "timeout":
            async with asyncio.timeout(A * UNIT):
                return await self.inner(B)
        elif op == "waitfor":
            child = self.child(name + ".w", self.get)
            return await wait_for_312(child, A * UNIT)
        elif op == "wait":
            async def sleeper():
                await asyncio.sleep(A * UNIT)
                return "ok"

            kids = [self.child(name + ".a", self.get), self.child(name + ".b", sleeper)]
            mode = asyncio.FIRST_COMPLETED if B == 1 else asyncio.ALL_COMPLETED
            done, pending = await asyncio.wait(kids, timeout=4 * UNIT, return_when=mode)
            return f"done {len(done)} pending {len(pending)}"
        elif op == "shield":
            t = self.tasks[A]
            if t is None or A == i:
                return "none"
            return f"result {await asyncio.shield(t)}"
        elif op == "group":
            return await self.group(name, A, B)
        else:
            raise ValueError(f"unknown coordination step {op}")
        return "ok"

    async def get(self):
        return f"got {await self.q.get()}"

    async def inner(self, which):
        if which == 0:
            return await self.get()
        if which == 1:
            return await hold(self.lock, 0)
        if which == 2:
            await self.ev.wait()
            return "ok"
        return await hold(self.sem, 0)

    async def group(self, name, A, B):
        async def sleeper():
            await asyncio.sleep(A * UNIT)
            if B == 1:
                raise Fail()
            return "ok"

        try:
            async with TaskGroup() as g:
                self.child(name + ".a", self.get, g.create_task)
                self.child(name + ".b", sleeper, g.create_task)
        except BaseExceptionGroup as e:
            if e.subgroup(Fail) is not None:
                return "ExceptionGroup"
            raise
        return "ok"

    def child(self, name, fn, create=None):
        async def body():
            try:
                out = await fn()
            except BaseException as e:
                self.tr(f"{name}: {err_name(e)}")
                raise
            self.tr(f"{name}: {out}")
            return out

        t = (create or self.loop.create_task)(body())
        self.order.append(t)
        return t


async def hold(prim, n):
    await prim.acquire()
    try:
        await asyncio.sleep(n * UNIT)
    finally:
        prim.release()
    return "ok"


def err_name(e):
    if isinstance(e, asyncio.CancelledError):
        return "cancelled"
    if isinstance(e, (TimeoutError, ValueError, RuntimeError, asyncio.BrokenBarrierError,
                      asyncio.QueueFull, asyncio.QueueEmpty)):
        return type(e).__name__ if not isinstance(e, Fail) else "ValueError"
    return f"error {type(e).__name__}: {e}"


def coord_main():
    schedules = json.load(sys.stdin)
    out = []
    for s in schedules:
        try:
            out.append(CoordReplay(s).run())
        except Exception as e:  # a schedule that breaks the replayer shows in its trace
            out.append([f"python error: {type(e).__name__}: {e}"])
    json.dump(out, sys.stdout)


if __name__ == "__main__" and sys.argv[1:] == ["coord"]:
    coord_main()
