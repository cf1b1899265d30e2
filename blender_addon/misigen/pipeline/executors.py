"""Executors: where the per-structure work units (``pipeline/unit.py``) run. Every executor
calls ``run_unit`` in a process that owns Blender, fed by its own planners (``planners.Feed``:
``--planners`` processes, or a helper thread), so the annotations are byte-identical whichever
one ran them:

- ``InProcess``: the units one after another in this process (short runs, tests);
- ``WorkerPool``: N worker processes on this machine (``--workers N``), each started the
  way this process was (PyPI ``bpy`` or a Blender binary), pinned to one GPU when there are
  several, holding a few units ahead so its planners stay busy, and replaced after a bounded
  number of structures so memory stays flat; a worker that dies is replaced, the unit it was
  on retried and the units it held handed out again;
- ``RayExecutor``: the units as Ray tasks on a local Ray instance or an existing cluster,
  one GPU (or a fraction) reserved per task where GPUs exist, failed tasks retried; without
  a shared disk the files are returned to the driver and written there.
"""
from __future__ import annotations

import collections
import os
import secrets
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..core.structure.preload import preload_rdkit
from .output import OutputError
from .planners import Feed, planners_for, usable_cores
from .run_folder import PARTS_DIR, TOKEN_PREFIX, store_files, write_failure_part
from .unit import RunContext, crash_summary, run_unit

ADDON_ROOT = str(Path(__file__).resolve().parents[2])     # the folder holding the misigen package
DEFAULT_STRUCTURES_PER_WORKER = 25


# ------------------------------------------------------------------ executors
class InProcess:
    """Units one after another in this process, planned by ``planners`` processes (0: a helper
    thread) while the ones before render."""
    name = "in-process"

    def __init__(self, planners: int = 0):
        self.planners = planners

    def run(self, units, ctx: RunContext, on_result) -> None:
        units = list(units)
        with Feed(ctx, self.planners) as feed:
            for sid in units:
                feed.add(sid)
            for sid in units:
                on_result(run_unit(sid, ctx, feed))


def _blender_binary() -> str:
    """The Blender executable when running inside a Blender install (not PyPI bpy)."""
    bpy = sys.modules.get("bpy")
    path = getattr(getattr(bpy, "app", None), "binary_path", "") if bpy else ""
    return path if path and Path(path).exists() and Path(path).resolve() != Path(sys.executable).resolve() else ""


def worker_command() -> list:
    """How to start a worker the same way this process was started."""
    code = (f"import sys; sys.path.insert(0, {ADDON_ROOT!r}); "
            "from misigen.pipeline.executors import worker_main; sys.exit(worker_main())")
    binary = _blender_binary()
    if binary:
        return [binary, "-b", "--factory-startup", "--python-exit-code", "1", "--python-expr", code]
    return [sys.executable, "-c", code]


def worker_main() -> int:
    """A local worker: receive the context and its planner count, then units (a few ahead of the
    one it renders, for its planners), until told to stop or the driver goes."""
    from multiprocessing.connection import Connection

    from . import signals

    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is the driver's to handle; it sends SIGTERM
    signals.install((signal.SIGTERM,))
    signals.set_hint("")
    preload_rdkit()
    conn = Connection(int(os.environ["MISIGEN_WORKER_FD"]))
    feed = None
    try:
        conn.send(("ready", os.getpid()))
        _kind, ctx, planners = conn.recv()
        feed = Feed(ctx, planners)
        held: collections.deque = collections.deque()
        while True:
            if not held or conn.poll():               # units sent meanwhile start planning at once
                msg = conn.recv()
                if msg[0] != "unit":
                    return 0
                held.append(msg[1])
                feed.add(msg[1])
                continue
            sid = held.popleft()
            try:
                conn.send(("result", sid, run_unit(sid, ctx, feed)))
            except OutputError as exc:
                conn.send(("fatal", exc.path, exc.problem))
                return 1
    except (EOFError, OSError, BrokenPipeError):
        return 0          # the driver went away: stop quietly (finished files are complete)
    except KeyboardInterrupt:
        return signals.EXIT_INTERRUPTED   # SIGTERM: the unit is abandoned, its temp files gone
    finally:
        if feed is not None:
            feed.close()


@dataclass
class _Slot:
    index: int
    proc: subprocess.Popen
    conn: object
    units: collections.deque = field(default_factory=collections.deque)   # sent, not yet done, in order
    sent: int = 0
    ready: bool = False


class WorkerPool:
    """N worker processes on this machine; each holds ``1 + max(1, planners)`` units at a time
    (the one it renders and those its planners work on) and does at most ``per_worker``, then is
    replaced."""
    name = "worker pool"

    def __init__(self, workers: int, per_worker: int = DEFAULT_STRUCTURES_PER_WORKER, gpus: int = 0,
                 retries: int = 1, planners: int = 0):
        if os.name != "posix":
            raise ValueError("--workers N > 1 needs Linux or macOS; use --shard i/N or --executor ray")
        self.workers, self.per_worker, self.gpus, self.retries = int(workers), int(per_worker), int(gpus), retries
        self.planners = int(planners)
        self.hold = 1 + max(1, self.planners)
        self.started = 0

    def _start(self, index: int, ctx: RunContext) -> _Slot:
        from multiprocessing.connection import Connection

        mine, theirs = socket.socketpair()
        env = dict(os.environ, MISIGEN_WORKER_FD=str(theirs.fileno()))
        if self.gpus > 1:
            env["MISIGEN_GPU_INDEX"] = str(index % self.gpus)   # one GPU per worker
        proc = subprocess.Popen(worker_command(), env=env, pass_fds=(theirs.fileno(),),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        theirs.close()                 # only the child holds its end: its exit shows as EOF here
        conn = Connection(mine.detach())
        try:
            conn.send(("context", ctx, self.planners))
        except OSError:
            pass                       # it died at once: its first receive shows EOF and it is replaced
        self.started += 1
        return _Slot(index, proc, conn)

    @staticmethod
    def _stop(slot: _Slot, kill: bool = False) -> None:
        try:
            if kill:              # SIGTERM first: a worker mid-render removes its temp files (signals.py)
                slot.proc.terminate()
            else:
                slot.conn.send(("stop",))
        except OSError:
            pass
        try:
            slot.proc.wait(timeout=5 if kill else 60)
        except subprocess.TimeoutExpired:          # a worker that does not stop when asked
            slot.proc.kill()
            slot.proc.wait()
        slot.conn.close()

    def run(self, units, ctx: RunContext, on_result) -> None:
        from multiprocessing.connection import wait

        queue = collections.deque(units)
        attempts: collections.Counter = collections.Counter()
        slots: dict[int, _Slot] = {}

        def lost(s: _Slot) -> None:
            """A worker died (or cannot be reached): replace it. The unit it was on is retried (or its
            failure recorded); the units it held and had not started go back, uncounted."""
            slots.pop(s.index, None)
            self._stop(s, kill=True)
            held, s.units = list(s.units), collections.deque()
            if not held:
                return
            for sid in held[1:]:
                attempts[sid] -= 1
            queue.extendleft(reversed(held[1:]))
            unit = held[0]
            if attempts[unit] <= self.retries:
                queue.appendleft(unit)
                return
            why = (f"worker process died (exit code {s.proc.returncode}) while working on it, "
                   f"{attempts[unit]} time(s)")
            summary = crash_summary(unit, why)
            write_failure_part(Path(ctx.out), summary.failure)
            on_result(summary)

        def top_up(k: int) -> None:
            """Start worker k if needed and send it units until it holds ``hold`` (or its quota)."""
            if k not in slots and queue:
                slots[k] = self._start(k, ctx)
            s = slots.get(k)
            if s is None:
                return
            if not queue and not s.units:
                self._stop(slots.pop(k))            # nothing left for it
                return
            while queue and len(s.units) < self.hold and s.sent < self.per_worker:
                sid = queue.popleft()
                s.units.append(sid)
                s.sent += 1
                attempts[sid] += 1
                try:
                    s.conn.send(("unit", sid))
                except OSError:
                    lost(s)
                    return

        try:
            while queue or slots:
                for k in range(self.workers):
                    top_up(k)
                if not slots:
                    continue
                busy = {s.conn: s for s in slots.values()}
                for conn in wait(list(busy)):
                    s = busy[conn]
                    if slots.get(s.index) is not s:
                        continue                            # lost meanwhile
                    try:
                        msg = conn.recv()
                    except (EOFError, OSError):
                        lost(s)
                        continue
                    if msg[0] == "ready":
                        s.ready = True
                        continue
                    if msg[0] == "fatal":                   # the output folder takes no more writes
                        raise OutputError(msg[1], OSError(0, msg[2]))
                    s.units.remove(msg[1])
                    on_result(msg[2])
                    if s.sent >= self.per_worker and not s.units:   # replaced: bounded memory per process
                        self._stop(slots.pop(s.index))
        except BaseException:
            for s in slots.values():
                self._stop(s, kill=True)
            raise


class RayExecutor:
    """The units as Ray tasks (local instance by default, or ``address``)."""
    name = "ray"

    def __init__(self, address: str | None = None, gpus_per_task: float | None = None,
                 cpus_per_task: float | None = None, retries: int = 2,
                 per_worker: int = DEFAULT_STRUCTURES_PER_WORKER, transfer: str = "auto",
                 local_cpus: int | None = None, planners="auto"):
        if transfer not in ("auto", "disk", "driver"):
            raise ValueError(f"--ray-transfer must be auto, disk or driver, not {transfer!r}")
        import importlib.util
        if importlib.util.find_spec("ray") is None:       # said before any work, not after planning
            raise ValueError('--executor ray needs Ray: pip install "ray>=2.9" (or the misigen[ray] extra)')
        self.address, self.gpus_per_task, self.cpus_per_task = address, gpus_per_task, cpus_per_task
        self.retries, self.per_worker, self.transfer, self.local_cpus = retries, per_worker, transfer, local_cpus
        self.planners_request = planners
        self.planners = 0
        self.resources: dict = {}

    def _init(self):
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")    # no usage reports leave this machine
        try:
            import ray
        except ImportError:
            raise ValueError('--executor ray needs Ray: pip install "ray>=2.9" (or the misigen[ray] extra)') from None
        if ray.is_initialized():
            return ray, False
        env = {"env_vars": {"PYTHONPATH": os.pathsep.join(
            [ADDON_ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}}
        if self.address:
            ray.init(address=self.address, runtime_env=env, log_to_driver=True)
        else:
            ray.init(num_cpus=self.local_cpus, include_dashboard=False, _node_ip_address="127.0.0.1",
                     runtime_env=env, log_to_driver=True)
        return ray, True

    def _task_resources(self, ray) -> dict:
        total = ray.cluster_resources()
        gpus = self.gpus_per_task if self.gpus_per_task is not None else (1.0 if total.get("GPU", 0) >= 1 else 0.0)
        if self.cpus_per_task is not None:
            cpus = self.cpus_per_task
        else:
            # Cycles uses every core of a node: two tasks per node keep it busy while one of them
            # plans or writes. GPU tasks need a single core each.
            node_cpus = [n["Resources"].get("CPU", 1) for n in ray.nodes() if n.get("Alive")] or [1]
            cpus = 1.0 if gpus else max(1.0, float(min(node_cpus) // 2))
        return {"num_cpus": cpus, "num_gpus": gpus}

    def run(self, units, ctx: RunContext, on_result) -> None:
        ray, started = self._init()
        pending: dict = {}
        try:
            self.resources = self._task_resources(ray)
            if ctx.render and ctx.device not in ("auto", "cpu") and not ray.cluster_resources().get("GPU"):
                from ..render.device import DeviceError
                raise DeviceError(f"--device {ctx.device}: the Ray cluster has no GPU; use --device cpu or auto")
            # a task's planners share its CPU reservation: with one CPU, a helper thread
            self.planners = planners_for(self.planners_request, self.resources["num_gpus"] > 0,
                                         max(1, int(self.resources["num_cpus"])))
            remote = ray.remote(max_retries=self.retries, max_calls=self.per_worker, **self.resources)(_ray_unit)
            ctx_ref = ray.put(ctx)
            pending = {remote.remote(sid, ctx_ref, self.transfer, self.planners): sid for sid in units}
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    sid = pending.pop(ref)
                    try:
                        summary = ray.get(ref)
                    except Exception as exc:  # the task failed after its retries (node lost, crash)
                        summary = crash_summary(sid, f"ray task failed after {self.retries} retries: "
                                                     f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}")
                        write_failure_part(Path(ctx.out), summary.failure)
                    files, summary.files = summary.files, None
                    if files:
                        store_files(Path(ctx.out), files)
                    on_result(summary)
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
        finally:
            if started:
                ray.shutdown()


_RAY_FEEDS: dict = {}        # (run token, planners) -> Feed: a Ray worker process keeps its planners across tasks


def _ray_unit(structure_id: str, ctx: RunContext, transfer: str, planners: int = 0) -> dict:
    """A Ray task: write in place when this node sees the output folder, else return the files.
    Its unit's tasks are spread over ``planners`` planning processes (0: a helper thread), started
    once per Ray worker process and run."""
    preload_rdkit()
    shared = transfer == "disk" or (transfer == "auto" and bool(ctx.token) and
                                    (Path(ctx.out) / PARTS_DIR / f"{TOKEN_PREFIX}{ctx.token}").exists())
    key = (ctx.token, ctx.out, planners)
    if key not in _RAY_FEEDS:
        for old in _RAY_FEEDS.values():         # another run's
            old.close()
        _RAY_FEEDS.clear()
        _RAY_FEEDS[key] = Feed(ctx, planners)
    feed = _RAY_FEEDS[key]
    feed.add(structure_id)
    summary = run_unit(structure_id, ctx, feed, return_files=not shared)
    summary.node = socket.gethostname()
    return summary


def new_token() -> str:
    return secrets.token_hex(8)


def make_executor(kind: str = "local", workers: int = 1, units: int = 0, gpus: int = 0,
                  per_worker: int = DEFAULT_STRUCTURES_PER_WORKER, planners="auto", **ray_options):
    """The executor for ``--executor`` / ``--workers`` / ``--planners``: one worker on a short run
    stays in-process. ``planners``: a count per rendering process, or auto (``planners_for``: on
    a GPU, each worker's share of the cores less one)."""
    if kind == "ray":
        return RayExecutor(per_worker=per_worker, planners=planners, **ray_options)
    if kind != "local":
        raise ValueError(f"--executor must be local or ray, not {kind!r}")
    if workers <= 1 and units <= per_worker:
        return InProcess(planners_for(planners, gpus > 0))
    return WorkerPool(workers, per_worker, gpus,
                      planners=planners_for(planners, gpus > 0, max(1, usable_cores() // max(1, workers))))
