"""Planners that keep one renderer fed: the shape of a GPU farm's data loaders.

Planning costs tens of milliseconds of CPU per image (reading, planners, the sidecars behind
rationales and levels); a GPU renders one in about as long. So the process that owns Blender gets
a ``Feed``: planners (``--planners N`` processes, or one helper thread) plan its units one task at
a time (``unit.plan_task``) and hand each over as a ``PlannedTask``, values only: the records and
sidecars already encoded, the scenes' atoms, cameras and poses. The Blender process only renders
and writes (with planning processes, not even the images' files).

With planning processes they also finish the images (``Feed.finishing``): the renderer hands each
raw render over as a ``rendering.ImageFinish`` (its labels, style, font file and sidecar bytes) and
goes on; an idle planner takes images to finish before its next task (labels drawn, PNG encoded,
sidecar written last, as the rendering process would); the unit waits for all of its images before
its records are written. So the rendering process keeps only Blender's calls and the feed's
messages (on a GPU, its one Blender process stays free to feed the GPU). An image whose planner
died is finished again by another, or by the renderer when none is left; the drawing is the same
code (``render.overlay``, no Blender), so the files are the same in every process.

Which task goes where (``Schedule.next_for``): a planner keeps to its own unit (its structures read and
sidecars made once); an idle one starts the next unit, up to ``ahead`` units not yet rendered;
with none to start, it helps with the last tasks of the earliest unit already read. So the first
unit renders as its tasks come in, and the last ones are not left to one planner. The renderer asks
for units in its order (``planned``); what planning gives depends only on the unit and task, so
the files are the same however the tasks were spread.
"""
from __future__ import annotations

import collections
import contextlib
import itertools
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field

from . import signals, unit
from .output import OutputError
from .unit import PlannedTask

PLANNER_FD_ENV = "MISIGEN_PLANNER_FD"
PLANNER_PATH_ENV = "MISIGEN_PLANNER_PATH"
RESTARTS_PER_PLANNER = 2             # a planner process that dies is replaced this many times
# A planner is one core's worth of work on small arrays (atoms × 3): numpy's BLAS threads there
# only spin, and with several planners they take the cores the others need.
ONE_THREAD_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def usable_cores() -> int:
    """The cores this process may run on (affinity, as a batch scheduler or container sets it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def planners_for(request, gpu: bool, cores: int | None = None) -> int:
    """Planning processes for one process that renders: ``request`` (a count; 0 = one helper
    thread of that process), or for ``auto``: a helper thread when Cycles renders on the CPU or
    nothing is rendered (Cycles already uses every core; planning overlaps its renders), and every
    core but the renderer's own when it renders on a GPU (``cores``: those it has)."""
    if request is None or request == "auto":
        return max(1, (cores or usable_cores()) - 1) if gpu and os.name == "posix" else 0
    n = int(request)
    if n < 0:
        raise ValueError(f"--planners must be auto or a count ≥ 0, not {request!r}")
    if n and os.name != "posix":
        raise ValueError("--planners N > 0 needs Linux or macOS; --planners 0 plans on a helper thread")
    return n


class PlannerError(RuntimeError):
    """The planning processes cannot run (they die as they start)."""


@dataclass
class _Unit:
    """A unit claimed by a planner and not yet released by the renderer."""
    pending: collections.deque                 # task indices not yet handed to a planner
    total: int
    ticket: int
    got: list = field(default_factory=list)    # PlannedTasks not yet taken by the renderer
    received: int = 0
    readable: bool = False                     # task 0 came back and read the structure
    complete: bool = False


class Schedule:
    """Which task each planner plans next, and what came back (no threads or processes: a Feed
    holds it under its lock). A planner is anything with a ``home`` attribute (its unit)."""

    def __init__(self, tasks: int, ahead: int):
        self.tasks, self.ahead = max(1, tasks), max(1, ahead)
        self.waiting: collections.deque = collections.deque()      # added, not yet claimed
        self.units: dict[str, _Unit] = {}                          # claimed, not yet released
        self.added: set = set()
        self._tickets = itertools.count(1)

    def add(self, structure_id: str) -> None:
        if structure_id not in self.added:
            self.added.add(structure_id)
            self.waiting.append(structure_id)

    def release(self, structure_id: str) -> None:
        self.units.pop(structure_id, None)
        self.added.discard(structure_id)
        if structure_id in self.waiting:
            self.waiting.remove(structure_id)

    def next_for(self, planner) -> tuple | None:
        """(structure id, task index, ticket) for ``planner``: the next task of its own unit; else
        task 0 of the next unit, while fewer than ``ahead`` are claimed; else the last task not
        handed out of the earliest unit whose structure was read; else None."""
        state = self.units.get(planner.home)
        if state is not None and state.pending and not state.complete:
            return planner.home, state.pending.popleft(), state.ticket
        if self.waiting and len(self.units) < self.ahead:
            sid = self.waiting.popleft()
            state = self.units[sid] = _Unit(collections.deque(range(1, self.tasks)), self.tasks, next(self._tickets))
            planner.home = sid
            return sid, 0, state.ticket
        for sid, state in self.units.items():          # in the order the units were claimed
            if state.readable and state.pending and not state.complete:
                return sid, state.pending.pop(), state.ticket
        return None

    def accept(self, ticket: int, planned: PlannedTask) -> None:
        """One planned task in; a task of a unit released or ended meanwhile is dropped."""
        state = self.units.get(planned.unit)
        if state is None or state.ticket != ticket or state.complete:
            return
        state.got.append(planned)
        state.received += 1
        if planned.index == 0:
            state.readable = not (planned.unreadable or planned.crash)
        if planned.unreadable or planned.crash or state.received == state.total:
            state.complete = True
            state.pending.clear()

    def take(self, structure_id: str) -> tuple[list, bool] | None:
        """(the unit's planned tasks not yet taken, whether it is complete); None: nothing yet."""
        if structure_id not in self.added:
            raise KeyError(f"{structure_id}: not added to this feed")
        state = self.units.get(structure_id)
        if state is None or not (state.got or state.complete):
            return None
        batch, state.got = state.got, []
        return batch, state.complete


class Feed:
    """Plans units on ``planners`` processes (0: one helper thread of this process) and hands
    their planned tasks to the renderer in the order it asks (``planned``). Units are given with
    ``add``; the renderer releases each with ``done``. A context manager: leaving it stops the planners."""

    def __init__(self, ctx, planners: int = 0, ahead: int | None = None):
        self.ctx = ctx
        self.schedule = Schedule(len(ctx.suite.tasks), ahead or max(2, planners + 1))
        self._cond = threading.Condition()
        self._broken = ""
        self._closed = False
        self._restarts = RESTARTS_PER_PLANNER * planners
        self._finishes: collections.deque = collections.deque()     # _Finish items not yet handed out
        if planners == 0:
            self._planners = [_ThreadPlanner(self)]
            self._reader = None
        else:
            self._wake_r, self._wake_w = socket.socketpair()
            self._planners = [_ProcessPlanner(k) for k in range(planners)]
            self._reader = threading.Thread(target=self._read, name="misigen-feed", daemon=True)
            self._reader.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ the renderer's side
    def add(self, structure_id: str) -> None:
        with self._cond:
            self.schedule.add(structure_id)
            self._assign()

    def planned(self, structure_id: str):
        """Yield lists of the unit's PlannedTasks as they come (each task once, in any order),
        until every task is in (or task 0 says the structure cannot be read, or a task crashed)."""
        while True:
            with self._cond:
                while True:
                    if self._broken or self._closed:
                        raise PlannerError(self._broken or "the feed was closed")
                    got = self.schedule.take(structure_id)
                    if got is not None:
                        break
                    self._cond.wait()
            batch, complete = got
            if batch:
                yield batch
            if complete:
                return

    def finishing(self) -> "Finishing | None":
        """Where the renderer hands its images to be finished (labels drawn, PNG and sidecar
        written): this feed's planning processes, before their planning; None with a helper
        thread (the rendering process finishes them on its own helper threads)."""
        return None if self._reader is None else Finishing(self)

    def done(self, structure_id: str) -> None:
        """The renderer is finished with this unit: its place goes to the next."""
        with self._cond:
            self.schedule.release(structure_id)
            self._assign()

    def close(self) -> None:
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        if self._reader is not None:
            self._wake()
            self._reader.join(timeout=5)
            self._wake_w.close()
        for p in list(self._planners):
            p.stop()
        with self._cond:                      # what they were finishing is done by whoever waits for it
            for p in self._planners:
                self._requeue(p)
            self._cond.notify_all()

    def _unattended(self) -> bool:
        """No planning process will take a finish handed to this feed (the lock is held)."""
        return bool(self._broken or self._closed or not self._planners)

    # ------------------------------------------------------------------ handing out tasks
    def _assign(self) -> None:
        """Give every idle planner its next piece of work, images to finish first (the lock is held)."""
        if self._closed:
            return
        for p in list(self._planners):
            if p.ready and p.busy is None and p in self._planners:
                if self._finishes:
                    item = p.busy = self._finishes.popleft()
                    item.doer = p
                    sent = p.send_finish(item.request)
                else:
                    item = self.schedule.next_for(p)
                    if item is None:
                        continue
                    p.busy = item
                    sent = p.send(item)
                if not sent:
                    self._lost(p)

    def _requeue(self, p) -> None:
        """The image ``p`` was finishing goes back to the front of the queue (``p`` has ended)."""
        item = p.busy
        if isinstance(item, _Finish):
            p.busy, item.doer = None, None
            self._finishes.appendleft(item)

    def _finished(self, p, error) -> None:
        with self._cond:
            item, p.busy = p.busy, None
            if isinstance(item, _Finish):
                item.owner.open.remove(item)
                if error is not None:
                    item.owner.errors.append(_rebuilt(error, item.request))
            self._assign()
            self._cond.notify_all()

    def _received(self, p, ticket: int, planned: PlannedTask) -> None:
        with self._cond:
            p.busy = None
            self.schedule.accept(ticket, planned)
            self._assign()
            self._cond.notify_all()

    def _lost(self, p) -> None:
        """A planner process died (the lock is held): the task it had fails its unit; it is
        replaced while restarts are left."""
        if p not in self._planners:
            return                            # seen already
        self._planners.remove(p)
        code = p.exit_code()
        if isinstance(p.busy, _Finish):           # finished again: by another planner, or by whoever waits
            p.stop()
            self._requeue(p)
        if p.busy is not None:
            sid, index, ticket = p.busy
            p.busy = None
            self.schedule.accept(ticket, PlannedTask(sid, index, crash=f"planning process died (exit code {code}) "
                                                                       f"while planning it"))
        p.stop()
        if self._closed:
            return
        if self._restarts > 0:
            self._restarts -= 1
            self._planners.append(_ProcessPlanner(p.index))
            self._wake()                      # the reader waits on the new one too
        elif not self._planners:
            self._broken = (f"planning processes keep dying (last exit code {code}); "
                            f"--planners 0 plans in the rendering process")
        self._assign()
        self._cond.notify_all()

    # ------------------------------------------------------------------ planner processes
    def _wake(self) -> None:
        with contextlib.suppress(OSError):    # a reader that stopped reads no more
            self._wake_w.send(b"x")

    def _read(self) -> None:
        """The reader thread: receive what the planner processes send (Blender's thread renders meanwhile)."""
        try:
            self._read_until_closed()
        except Exception as exc:  # noqa: BLE001 - the renderer waiting on this feed must hear of it
            with self._cond:
                self._broken = f"the feed stopped: {type(exc).__name__}: {exc}"
                self._cond.notify_all()
        finally:
            self._wake_r.close()

    def _read_until_closed(self) -> None:
        from multiprocessing.connection import wait

        while True:
            with self._cond:
                if self._closed:
                    break
                conns = {p.conn: p for p in self._planners}
            ready = wait([*conns, self._wake_r])
            if self._wake_r in ready:
                self._wake_r.recv(64)
            for conn in ready:
                p = conns.get(conn)
                if p is None:
                    continue
                try:
                    msg = conn.recv()
                except (EOFError, OSError):
                    with self._cond:
                        self._lost(p)
                    continue
                if msg[0] == "ready":
                    self._started(p)
                elif msg[0] == "planned":
                    self._received(p, msg[1], msg[2])
                elif msg[0] == "finished":
                    self._finished(p, msg[1])

    def _started(self, p) -> None:
        try:
            p.conn.send(("context", self.ctx))
        except OSError:
            with self._cond:
                self._lost(p)
            return
        with self._cond:
            p.ready = True
            self._assign()


@dataclass(eq=False)
class _Finish:
    """One image handed to a feed to finish."""
    owner: "Finishing"
    request: object                 # rendering.ImageFinish
    doer: object = None             # the planner finishing it; None while queued (or done here)


class Finishing:
    """The images of one unit that its feed's planning processes finish (``Feed.finishing``):
    the renderer hands each over as it is rendered and goes on; ``wait`` before the unit's records
    are written. Images no planning process can take (they all ended) are finished by ``wait``."""

    def __init__(self, feed: Feed):
        self.feed = feed
        self.open: list = []        # _Finish items handed over and not yet finished
        self.errors: list = []

    def submit(self, request) -> None:
        """Hand one image over (a ``rendering.ImageFinish``)."""
        with self.feed._cond:
            item = _Finish(self, request)
            self.open.append(item)
            self.feed._finishes.append(item)
            self.feed._assign()

    def wait(self) -> None:
        """Return once every image handed over is finished; the first error of one is raised."""
        cond = self.feed._cond
        while True:
            with cond:
                while not (here := self._take_queued(only_unattended=True)):
                    if not self.open:
                        errors, self.errors = self.errors, []
                        if errors:
                            raise errors[0]
                        return
                    cond.wait()
            for item in here:
                try:
                    item.request.run()
                except Exception as exc:  # noqa: BLE001 - raised as a planning process's error would be
                    self.errors.append(exc)
                with cond:
                    self.open.remove(item)

    def abandon(self) -> None:
        """The unit stops (an error, a signal): images not being finished are dropped with their
        temp files; those a planning process is finishing are waited for. Raises nothing."""
        cond = self.feed._cond
        with cond:
            while True:
                for item in self._take_queued(only_unattended=False):
                    self.open.remove(item)
                    signals.remove_hidden_named_after(item.request.image.png)
                if not self.open:
                    break
                cond.wait()
            self.errors = []

    def halt(self) -> None:
        """The process is cut short (signals.py): its planning processes are killed at once (they
        write no more) and the temp files of the images handed over go. No lock: another thread may hold it."""
        for p in list(self.feed._planners):
            p.kill()
        for item in list(self.open):
            signals.remove_hidden_named_after(item.request.image.png)

    def _take_queued(self, only_unattended: bool) -> list:
        """This unit's items no planner has taken, out of the feed's queue (the lock is held)."""
        if only_unattended and not self.feed._unattended():
            return []
        mine = [item for item in self.feed._finishes if item.owner is self]
        for item in mine:
            self.feed._finishes.remove(item)
        return mine


def _portable(exc: Exception) -> tuple:
    """An error finishing an image, as values the rendering process rebuilds (``_rebuilt``)."""
    if isinstance(exc, OutputError):
        return "output", exc.path, exc.problem
    if isinstance(exc, OSError):
        return "os", exc.errno, exc.strerror or str(exc), exc.filename
    return "other", f"{type(exc).__name__}: {exc}"


def _rebuilt(error: tuple, request) -> Exception:
    """The error as the rendering process would have raised it: an OSError (a full disk stops the
    run), else the image's render failure."""
    if error[0] == "output":
        return OutputError(error[1], OSError(None, error[2]))
    if error[0] == "os":
        return OSError(error[1], error[2], error[3])
    return RuntimeError(f"finishing {os.path.basename(request.image.png)} in a planning process: {error[1]}")


class _ThreadPlanner:
    """Plans on one helper thread of this process (Cycles releases Python's lock while it renders)."""
    index = 0
    ready = True

    def __init__(self, feed: Feed):
        self.feed, self.busy, self.home = feed, None, None
        self.items: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="misigen-planner", daemon=True)
        self.thread.start()

    def send(self, item) -> bool:
        self.items.put(item)
        return True

    def stop(self) -> None:
        self.items.put(None)          # the task in hand is finished and dropped

    def _run(self) -> None:
        states: collections.OrderedDict = collections.OrderedDict()
        while True:
            item = self.items.get()
            if item is None or self.feed._closed:
                return
            sid, index, ticket = item
            self.feed._received(self, ticket, unit.plan_task(sid, index, self.feed.ctx, states))


class _ProcessPlanner:
    """One planning process (started the way ``planner_main`` says) and its connection."""

    def __init__(self, index: int):
        from multiprocessing.connection import Connection

        self.index, self.busy, self.home, self.ready = index, None, None, False
        mine, theirs = socket.socketpair()
        code = ("import os, sys; sys.path[:0] = os.environ['MISIGEN_PLANNER_PATH'].split(os.pathsep); "
                "from misigen.pipeline.planners import planner_main; sys.exit(planner_main())")
        env = dict(os.environ, **{PLANNER_FD_ENV: str(theirs.fileno()),
                                  PLANNER_PATH_ENV: os.pathsep.join(p for p in sys.path if p)})
        for name in ONE_THREAD_ENV:       # unless asked otherwise
            env.setdefault(name, "1")
        self.proc = subprocess.Popen([sys.executable, "-c", code], env=env, pass_fds=(theirs.fileno(),),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        theirs.close()                 # only the child holds its end: its exit shows as EOF here
        self.conn = Connection(mine.detach())

    def send(self, item) -> bool:
        return self._send(("task", *item))

    def send_finish(self, request) -> bool:
        return self._send(("finish", request))

    def _send(self, msg) -> bool:
        try:
            self.conn.send(msg)
            return True
        except OSError:
            return False

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)

    def exit_code(self):
        try:
            return self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        """What it writes it writes atomically (temp files named after the image, which whoever
        waits for the image redoes or removes): ending it at once is safe."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.conn.close()


def planner_main() -> int:
    """A planning process: receive the run's context, then plan each task it is sent and send it
    back, and finish each image it is sent (``rendering.ImageFinish``) and say so, until its
    renderer goes away (EOF, or it is no longer this process's parent)."""
    from multiprocessing.connection import Connection

    from ..core.structure.preload import preload_rdkit

    signal.signal(signal.SIGINT, signal.SIG_IGN)      # Ctrl-C is the renderer's to handle; it ends us
    _exit_with_parent()
    preload_rdkit()
    conn = Connection(int(os.environ[PLANNER_FD_ENV]))
    states: collections.OrderedDict = collections.OrderedDict()
    try:
        conn.send(("ready", os.getpid()))
        ctx = conn.recv()[1]
        while True:
            msg = conn.recv()
            if msg[0] == "finish":
                conn.send(("finished", _finish(msg[1])))
            elif msg[0] == "task":
                _kind, sid, index, ticket = msg
                conn.send(("planned", ticket, unit.plan_task(sid, index, ctx, states)))
            else:
                return 0
    except (EOFError, OSError):
        return 0


def _finish(request) -> tuple | None:
    """Finish one image; None, or the error (``_portable``)."""
    try:
        request.run()
        return None
    except Exception as exc:  # noqa: BLE001 - the rendering process raises it as its own
        return _portable(exc)


def _exit_with_parent() -> None:
    """A renderer cut short by a signal ends with ``os._exit``: its planners follow within a moment."""
    parent = os.getppid()

    def watch():
        import time
        while os.getppid() == parent:
            time.sleep(0.25)
        os._exit(0)
    threading.Thread(target=watch, name="misigen-parent-watch", daemon=True).start()
