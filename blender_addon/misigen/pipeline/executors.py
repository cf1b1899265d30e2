"""Executors: where the per-structure work units (``pipeline/unit.py``) run. Every executor
calls ``run_unit``, so the annotations are byte-identical whichever one ran them:

- ``InProcess``: the units one after another in this process (short runs, tests);
- ``WorkerPool``: N worker processes on this machine (``--workers N``), each started the
  way this process was (PyPI ``bpy`` or a Blender binary), pinned to one GPU when there are
  several, and replaced after a bounded number of structures so memory stays flat; a worker
  that dies is replaced and its unit retried;
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
from dataclasses import dataclass
from pathlib import Path

from ..core.preload import preload_rdkit
from .output import OutputError
from .run_folder import PARTS_DIR, TOKEN_PREFIX, store_files, write_failure_part
from .unit import RunContext, crash_summary, run_unit, run_units_planning_ahead

ADDON_ROOT = str(Path(__file__).resolve().parents[2])     # the folder holding the misigen package
DEFAULT_STRUCTURES_PER_WORKER = 25


# ------------------------------------------------------------------ executors
class InProcess:
    """Units one after another in this process, each planned while the one before renders."""
    name = "in-process"

    def run(self, units, ctx: RunContext, on_result) -> None:
        for summary in run_units_planning_ahead(units, ctx):
            on_result(summary)


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
    """A local worker: receive the context, then units, until told to stop or the driver goes."""
    from multiprocessing.connection import Connection

    from . import signals

    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is the driver's to handle; it sends SIGTERM
    signals.install((signal.SIGTERM,))
    signals.set_hint("")
    preload_rdkit()
    conn = Connection(int(os.environ["MISIGEN_WORKER_FD"]))
    ctx = None
    try:
        conn.send(("ready", os.getpid()))
        while True:
            msg = conn.recv()
            if msg[0] == "context":
                ctx = msg[1]
            elif msg[0] == "unit":
                try:
                    conn.send(("result", msg[1], run_unit(msg[1], ctx)))
                except OutputError as exc:
                    conn.send(("fatal", exc.path, exc.problem))
                    return 1
            else:
                return 0
    except (EOFError, OSError, BrokenPipeError):
        return 0          # the driver went away: stop quietly (finished files are complete)
    except KeyboardInterrupt:
        return signals.EXIT_INTERRUPTED   # SIGTERM: the unit is abandoned, its temp files gone


@dataclass
class _Slot:
    index: int
    proc: subprocess.Popen
    conn: object
    unit: str | None = None
    done: int = 0
    ready: bool = False


class WorkerPool:
    """N worker processes on this machine; each does at most ``per_worker`` units, then is replaced."""
    name = "worker pool"

    def __init__(self, workers: int, per_worker: int = DEFAULT_STRUCTURES_PER_WORKER, gpus: int = 0,
                 retries: int = 1):
        if os.name != "posix":
            raise ValueError("--workers N > 1 needs Linux or macOS; use --shard i/N or --executor ray")
        self.workers, self.per_worker, self.gpus, self.retries = int(workers), int(per_worker), int(gpus), retries
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
            conn.send(("context", ctx))
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
            """A worker died (or cannot be reached): replace it; retry its unit or record the failure."""
            slots.pop(s.index, None)
            self._stop(s, kill=True)
            unit, s.unit = s.unit, None
            if unit is None:
                return
            if attempts[unit] <= self.retries:
                queue.appendleft(unit)
                return
            why = (f"worker process died (exit code {s.proc.returncode}) while working on it, "
                   f"{attempts[unit]} time(s)")
            summary = crash_summary(unit, why)
            write_failure_part(Path(ctx.out), summary.failure)
            on_result(summary)

        try:
            while queue or slots:
                for k in range(self.workers):
                    if k not in slots and queue:
                        slots[k] = self._start(k, ctx)
                    s = slots.get(k)
                    if s is None or s.unit is not None:
                        continue
                    if not queue:
                        self._stop(slots.pop(k))            # nothing left for it
                        continue
                    s.unit = queue.popleft()
                    attempts[s.unit] += 1
                    try:
                        s.conn.send(("unit", s.unit))
                    except OSError:
                        lost(s)
                if not slots:
                    continue
                busy = {s.conn: s for s in slots.values()}
                for conn in wait(list(busy)):
                    s = busy[conn]
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
                    s.unit, s.done = None, s.done + 1
                    on_result(msg[2])
                    if s.done >= self.per_worker:           # replaced: bounded memory per process
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
                 local_cpus: int | None = None):
        if transfer not in ("auto", "disk", "driver"):
            raise ValueError(f"--ray-transfer must be auto, disk or driver, not {transfer!r}")
        import importlib.util
        if importlib.util.find_spec("ray") is None:       # said before any work, not after planning
            raise ValueError('--executor ray needs Ray: pip install "ray>=2.9" (or the misigen[ray] extra)')
        self.address, self.gpus_per_task, self.cpus_per_task = address, gpus_per_task, cpus_per_task
        self.retries, self.per_worker, self.transfer, self.local_cpus = retries, per_worker, transfer, local_cpus
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
            remote = ray.remote(max_retries=self.retries, max_calls=self.per_worker, **self.resources)(_ray_unit)
            ctx_ref = ray.put(ctx)
            pending = {remote.remote(sid, ctx_ref, self.transfer): sid for sid in units}
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


def _ray_unit(structure_id: str, ctx: RunContext, transfer: str) -> dict:
    """A Ray task: write in place when this node sees the output folder, else return the files."""
    preload_rdkit()
    shared = transfer == "disk" or (transfer == "auto" and bool(ctx.token) and
                                    (Path(ctx.out) / PARTS_DIR / f"{TOKEN_PREFIX}{ctx.token}").exists())
    summary = run_unit(structure_id, ctx, return_files=not shared)
    summary.node = socket.gethostname()
    return summary


def new_token() -> str:
    return secrets.token_hex(8)


def make_executor(kind: str = "local", workers: int = 1, units: int = 0, gpus: int = 0,
                  per_worker: int = DEFAULT_STRUCTURES_PER_WORKER, **ray_options):
    """The executor for ``--executor`` / ``--workers``: one worker on a short run stays in-process."""
    if kind == "ray":
        return RayExecutor(per_worker=per_worker, **ray_options)
    if kind != "local":
        raise ValueError(f"--executor must be local or ray, not {kind!r}")
    if workers <= 1 and units <= per_worker:
        return InProcess()
    return WorkerPool(workers, per_worker, gpus)
