"""The work unit of ``generate``: one structure with all its tasks, planned, rendered (its
scene built once, its views back to back) and written as its parts; and its summary.

A unit is (structure id, ``RunContext``). The context is picklable and the same for every unit
of a run; it carries the run's whole catalog (every structure after ``--limit``, before
sharding, sorted by id) so a unit may load partner structures. Every executor calls
``run_unit``, so the annotations are byte-identical whichever one ran them.
"""
from __future__ import annotations

import collections
import queue
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import InputError
from ..core.failures import Failure
from ..core.loader import StructureSource, load_structure
from ..core.tasks.common import MISI_BENCH_TEST_FRACTION
from .output import OutputError, fatal_output_error
from .progress import stage
from .rendering import all_specs, render_specs
from .run_folder import PARTS_DIR, jsonl, write_failure_part, write_parts

DEFAULT_TEST_FRACTION = MISI_BENCH_TEST_FRACTION


@dataclass(frozen=True)
class RunContext:
    """Everything a work unit needs besides its structure id (picklable, one per run)."""
    catalog: dict                 # structure id -> StructureSource, the whole run, sorted by id
    suite: str                    # suite YAML path
    tasks: tuple                  # selected task names, in suite order
    style: dict
    seed: int
    split: str                    # auto | train | test
    device: str                   # --device request
    out: str                      # output folder
    render: bool = True
    token: str = ""               # marks the output folder, so a remote worker can tell if it sees it
    ligands: dict = field(default_factory=dict)   # structure id -> ligand selector (PDB/mmCIF inputs)
    levels: tuple = ()            # --level: keep only questions of these difficulty levels (every task)


@dataclass
class UnitSummary:
    """What one unit did (for the progress bar, the run's counts and the exit code)."""
    structure: str
    status: str                   # done | failed (bad input or render failure) | crashed (a bug, a lost worker)
    records: int = 0
    failures: int = 0
    samples_failed: int = 0
    messages: list = field(default_factory=list)
    notes: list = field(default_factory=list)   # lines for the log that are not failures (which ligand copy)
    images_rendered: int = 0
    render_seconds: float = 0.0
    cycles_seconds: float = 0.0
    plan_seconds: float = 0.0
    device: str = ""
    seconds: float = 0.0
    failure: Failure | None = None   # a crashed unit's one failure line
    files: dict | None = None        # ``return_files``: relative path -> bytes, for the driver to store
    node: str = ""                   # Ray: the host that ran it


def crash_summary(structure_id: str, why: str) -> UnitSummary:
    return UnitSummary(structure_id, "crashed", failures=1, messages=[f"{structure_id}: {why}"],
                       failure=Failure(structure_id, why))


@dataclass
class RunStats:
    """Counts over the units of this run, for the progress bar, the summary and the exit code."""
    units: int = 0
    skipped: int = 0
    done: int = 0
    failed: int = 0
    records: int = 0
    samples_failed: int = 0
    images: int = 0
    render_seconds: float = 0.0
    cycles_seconds: float = 0.0
    plan_seconds: float = 0.0
    devices: set = field(default_factory=set)

    def add(self, summary: UnitSummary) -> None:
        if summary.status == "done":
            self.done += 1
        else:
            self.failed += 1
        self.records += summary.records
        self.samples_failed += summary.samples_failed
        self.images += summary.images_rendered
        self.render_seconds += summary.render_seconds
        self.cycles_seconds += summary.cycles_seconds
        self.plan_seconds += summary.plan_seconds
        if summary.device:
            self.devices.add(summary.device)


# ------------------------------------------------------------------ planning
_LOADED: collections.OrderedDict = collections.OrderedDict()    # the last structures read in this process
_LOADED_LOCK = threading.Lock()
LOADED_KEPT = 8


def _file_stamp(path) -> tuple:
    if path is None:
        return ()
    st = Path(path).stat()
    return (str(path), st.st_mtime_ns, st.st_size)


def load_cached(source: StructureSource, ligand: str | None = None):
    """``load_structure``, keeping the last few read in this process: a structure is read again as
    another's partner (T5) and the next unit often needs what the one before read. Keyed by the
    files' paths, times and sizes, so a changed file is read again."""
    try:
        key = (source, ligand, _file_stamp(source.protein), _file_stamp(source.ligand))
    except OSError:
        return load_structure(source, ligand)          # the reader names the file and the problem
    with _LOADED_LOCK:
        if key in _LOADED:
            _LOADED.move_to_end(key)
            return _LOADED[key]
    structure = load_structure(source, ligand)
    with _LOADED_LOCK:
        _LOADED[key] = structure
        while len(_LOADED) > LOADED_KEPT:
            _LOADED.popitem(last=False)
    return structure


def run_partners(catalog: dict, split_mode: str, seed: int, test_fraction: float, loaded: dict,
                    ligands: dict | None = None):
    """The run's structures by split, with a loader (each with its own ligand selector) that keeps
    what it loads in ``loaded``."""
    from ..core.tasks import PartnerCatalog, split_for

    splits = {sid: (split_for(catalog[sid].split_key or sid, seed, test_fraction) if split_mode == "auto"
                    else split_mode) for sid in catalog}

    def load(sid):
        if sid not in loaded:
            loaded[sid] = load_cached(catalog[sid], (ligands or {}).get(sid))
        return loaded[sid]
    return PartnerCatalog(splits, load)


def plan_structure(source: StructureSource, tasks, style, split_mode: str, seed: int, catalog=None,
                   ligands: dict | None = None, on_task=None):
    """Load one structure and plan all its samples: ({id: Structure} of it and the partners it loaded,
    samples, Failures, {render key: sidecar} of every image planned); the dict is empty when the
    structure itself could not be read. The sidecars are the ones the renderer writes (pure core),
    so a render reuses them. ``on_task(loaded, samples, sidecars)``, if given, is called with each
    task's samples as soon as they are planned (``run_units_planning_ahead`` renders them meanwhile).

    ``catalog`` (id -> StructureSource, the whole run) is where a task pairing this structure
    with another of the run (T5) finds its partner; ``ligands`` (id -> ligand selector) says which
    HETATM ligand each PDB/mmCIF input uses.
    """
    from ..core.tasks import split_for
    from ..core.teaching import SidecarCache, plan_and_enrich

    failures: list[Failure] = []
    ligands = ligands or {}
    try:
        structure = load_cached(source, ligands.get(source.id))
    except InputError as exc:
        return {}, [], [Failure(source.id, exc.problem, where=str(exc.path))], {}
    samples = []
    loaded = {source.id: structure}
    test_fraction = tasks[0].suite.get("test_fraction", DEFAULT_TEST_FRACTION) if tasks else DEFAULT_TEST_FRACTION
    split = split_for(source.split_key or source.id, seed, test_fraction) if split_mode == "auto" else split_mode
    partners = run_partners(catalog or {source.id: source}, split_mode, seed, test_fraction, loaded, ligands)
    # sidecars are pure core: rationale, difficulty and the level filter come before any render
    cache = SidecarCache(loaded)
    for task in tasks:
        try:
            got, failed = plan_and_enrich(task, structure, style, split, seed, partners, cache)
        except InputError as exc:
            got, failed = [], [Failure(source.id, str(exc), task=task.name)]
        samples += got
        failures += failed
        if on_task is not None and got:
            on_task(loaded, got, cache.by_key)
    return loaded, samples, failures, cache.by_key


# ------------------------------------------------------------------ the unit
def ligand_notes(sid: str, structure) -> list[str]:
    """Log lines on how the ligand was chosen when the file held several copies of it."""
    copies = (structure.meta.get("ligand_copies") if structure is not None else None) or {}
    if not copies:
        return []
    chosen = structure.meta.get("ligand_id")
    others = ", ".join(f"{k} {n}" for k, n in copies.items() if k != chosen)
    return [f"{sid}: ligand {chosen} ({copies.get(chosen)} protein contacts) of {len(copies)} copies "
            f"(others: {others}); --ligand names another"]


@dataclass
class PlannedUnit:
    """One structure planned, not yet rendered (``plan_unit``); ``finish_unit`` renders and writes it."""
    source: StructureSource
    loaded: dict                   # id -> Structure: it and the partners it loaded (empty: unreadable)
    samples: list
    failures: list
    sidecars: dict                 # render key -> sidecar, computed while planning
    plan_seconds: float


def plan_unit(source: StructureSource, tasks, style, split_mode: str, seed: int, catalog=None,
              ligands: dict | None = None, on_task=None) -> PlannedUnit:
    """The planning half of a unit: pure core, so it may run on a thread while another unit renders."""
    t0 = time.perf_counter()
    stage(f"{source.id}: loading and planning")
    loaded, samples, failures, sidecars = plan_structure(source, tasks, style, split_mode, seed, catalog=catalog,
                                                         ligands=ligands, on_task=on_task)
    return PlannedUnit(source, loaded, samples, failures, sidecars, time.perf_counter() - t0)


def finish_unit(planned: PlannedUnit, out: Path, device: str, render: bool = True,
                early=None) -> UnitSummary:
    """The rendering half of a unit: render every distinct image (reusing the planned sidecars) and
    write the structure's parts. ``early``: what rendering the images planning handed over before
    it ended gave (render_specs' counts, or the exception it raised; the first unit of a run, see
    ``run_units_planning_ahead``).

    The records part is written last and only when the structure is finished (its input
    could not be read counts as finished: a rerun would fail the same way); after a render
    failure only the failures part is written, so a rerun (e.g. on another device) retries.
    """
    t0 = time.perf_counter()
    source, loaded, samples, failures = planned.source, planned.loaded, planned.samples, list(planned.failures)
    messages = [f"{source.id}: {f.where}: {f.why}" for f in failures if f.where]
    notes = ligand_notes(source.id, loaded.get(source.id))
    rendered = {"images": 0, "seconds": 0.0, "cycles_seconds": 0.0, "device": ""}
    render_failed = False
    if samples and render:
        try:
            if isinstance(early, Exception):
                raise early
            before = early
            rendered = render_specs(loaded, all_specs(samples), out, device, sidecars=planned.sidecars)
            if before is not None:
                rendered = {k: rendered[k] + before[k] for k in ("images", "seconds", "cycles_seconds")} | \
                    {"device": rendered["device"] or before["device"]}
        except Exception as exc:  # a render that fails must not take the batch down with it
            if fatal_output_error(out, exc):
                raise fatal_output_error(out, exc) from None     # … unless the folder takes no writes
            why = f"render failed: {type(exc).__name__}: {exc}"
            failures.append(Failure(source.id, why))
            messages.append(f"{source.id}: {why}")
            render_failed, samples = True, []
    records = sorted((s.as_record() for s in samples), key=lambda r: r["id"])
    write_parts(out, source.id, None if render_failed else records, failures)
    return UnitSummary(source.id, "failed" if not loaded or render_failed else "done", records=len(records),
                       failures=len(failures), samples_failed=sum(1 for f in failures if f.sample is not None),
                       messages=messages, notes=notes, images_rendered=rendered["images"],
                       render_seconds=round(rendered["seconds"], 3),
                       cycles_seconds=round(rendered["cycles_seconds"], 3),
                       plan_seconds=round(planned.plan_seconds, 3), device=rendered["device"],
                       seconds=round(planned.plan_seconds + time.perf_counter() - t0, 3))


def process_structure(source: StructureSource, tasks, style, out: Path, split_mode: str, seed: int,
                      device: str, render: bool = True, catalog=None, ligands: dict | None = None) -> UnitSummary:
    """Plan + render one structure; write its part files (``plan_unit`` then ``finish_unit``)."""
    return finish_unit(plan_unit(source, tasks, style, split_mode, seed, catalog=catalog, ligands=ligands),
                       out, device, render)


_SUITES: dict = {}


def tasks_of(ctx: RunContext):
    """The selected TaskSpecs, loaded once per process."""
    from ..core.tasks import load_suite

    key = (ctx.suite, ctx.tasks, ctx.levels)
    if key not in _SUITES:
        _SUITES[key] = with_levels([t for t in load_suite(Path(ctx.suite)) if t.name in ctx.tasks], ctx.levels)
    return _SUITES[key]


def with_levels(tasks, levels) -> list:
    """``--level``: every task keeps only questions of ``levels`` (as its spec's ``levels`` key would;
    the spec hash, hence the run's identity, changes with it)."""
    if levels:
        for t in tasks:
            t.data["levels"] = list(levels)
    return tasks


def remember_tasks(ctx: RunContext, tasks) -> None:
    """The driver already loaded the suite: units run in this process reuse it."""
    _SUITES[(ctx.suite, ctx.tasks, ctx.levels)] = list(tasks)


def plan_for(structure_id: str, ctx: RunContext, on_task=None) -> PlannedUnit:
    """``plan_unit`` of one structure of the run."""
    return plan_unit(ctx.catalog[structure_id], tasks_of(ctx), ctx.style, ctx.split, ctx.seed,
                     catalog=ctx.catalog, ligands=ctx.ligands, on_task=on_task)


def run_unit(structure_id: str, ctx: RunContext, return_files: bool = False, planned=None,
             early=None) -> UnitSummary:
    """Plan and render one structure into ``ctx.out`` (or, with ``return_files``, into a
    scratch folder whose files come back in the summary's ``files``). ``planned``: a future of
    its ``plan_for``, started earlier (``run_units_planning_ahead``); its errors count as the unit's;
    ``early``: a callable rendering what the plan in flight hands over (``render_handed``)."""
    out = Path(ctx.out)
    scratch = Path(tempfile.mkdtemp(prefix="misigen-unit-")) if return_files else None
    try:
        try:
            before = None
            if early is not None:            # renders while the plan goes on; a failure is the unit's
                try:
                    before = early()
                except (OutputError, KeyboardInterrupt):
                    raise
                except Exception as exc:
                    before = exc
            plan = planned.result() if planned is not None else plan_for(structure_id, ctx)
            summary = finish_unit(plan, scratch or out, ctx.device, ctx.render, early=before)
        except OutputError:
            raise                 # the folder takes no more writes: the run stops (cli: one line, exit 1)
        except Exception as exc:  # a bug in one unit must not take the batch down; the rerun retries it
            summary = crash_summary(structure_id, f"unit failed: {type(exc).__name__}: {exc}")
            if scratch is None:
                write_failure_part(out, summary.failure)
        if scratch is not None:
            summary.files = {str(p.relative_to(scratch)): p.read_bytes()
                             for p in sorted(scratch.rglob("*")) if p.is_file() and not p.name.startswith(".")}
            if summary.status == "crashed":
                summary.files[f"{PARTS_DIR}/{structure_id}.failures.jsonl"] = \
                    jsonl([summary.failure.as_dict()]).encode()
        return summary
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def run_units_planning_ahead(units, ctx: RunContext):
    """``run_unit`` of each unit in order, in this process, each unit's planning done on a helper
    thread while the unit before it renders (Cycles releases Python's lock, so on a GPU the
    planning costs the renderer nothing). The first unit has nothing before it: its images are
    rendered task by task as planning hands them over. Yields each UnitSummary. Planning is pure
    core and depends on nothing rendered, so the records are the same as one unit after the other."""
    from concurrent.futures import ThreadPoolExecutor

    units = list(units)
    if not units:
        return
    planner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="misigen-planner")
    try:
        handed: queue.Queue = queue.Queue()
        ahead = planner.submit(plan_for, units[0], ctx, (lambda *item: handed.put(item)) if ctx.render else None)
        ahead.add_done_callback(lambda _f: handed.put(None))
        early = (lambda: render_handed(handed, Path(ctx.out), ctx.device)) if ctx.render else None
        for k, sid in enumerate(units):
            current = ahead
            if k + 1 < len(units):
                ahead = planner.submit(plan_for, units[k + 1], ctx)
            yield run_unit(sid, ctx, planned=current, early=early if k == 0 else None)
    finally:
        planner.shutdown(wait=False, cancel_futures=True)    # a stop: the plan in flight is dropped


def render_handed(handed: queue.Queue, out: Path, device: str) -> dict:
    """Render each task's images as planning hands them over (None: planning ended); returns the
    summed render_specs counts."""
    total = {"images": 0, "seconds": 0.0, "cycles_seconds": 0.0, "device": ""}
    ended = False
    while not ended:
        items = [handed.get()]
        while not handed.empty():            # tasks planned meanwhile go together: fewer scenes built
            items.append(handed.get())
        ended = items[-1] is None
        items = [i for i in items if i is not None]
        if not items:
            break
        loaded, sidecars = items[-1][0], items[-1][2]
        done = render_specs(loaded, all_specs([s for item in items for s in item[1]]), out, device,
                            sidecars=sidecars)
        total = {k: total[k] + done[k] for k in ("images", "seconds", "cycles_seconds")} | \
            {"device": done["device"] or total["device"]}
    return total
