"""The work unit of ``generate``: one structure with all its tasks, planned, rendered (its
scene built once, its views back to back) and written as its parts; and its summary.

A unit is (structure id, ``RunContext``). The context is picklable and the same for every unit
of a run; it carries the run's suite (loaded once per process: pickled, a ``Suite`` is loaded
again where it arrives) and the run's whole catalog (every structure after ``--limit``, before
sharding, sorted by id) so a unit may load partner structures.

Planning is pure core and is done one task at a time (``plan_task``): a planner (a thread or
a process, ``planners.Feed``) hands each task over as a ``PlannedTask``, which holds only values
(records and sidecars already encoded, the scenes' atoms, cameras and poses), and the process that
owns Blender renders it (``run_unit``). Every executor calls ``run_unit``, so the annotations
are byte-identical whichever one ran them and however planning was split.
"""
from __future__ import annotations

import collections
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core.errors import InputError
from ..core.failures import Failure
from ..core.structure.loader import StructureSource, load_structure
from ..core.tasks.suite import Suite
from .output import OutputError, dumps, fatal_output_error
from .progress import stage
from .rendering import RenderCounts, all_specs, finish_images, merge_scenes, plan_scenes, render_scenes
from .run_folder import PARTS_DIR, jsonl, write_failure_part, write_parts


@dataclass(frozen=True)
class RunContext:
    """Everything a work unit needs besides its structure id (picklable, one per run)."""
    catalog: dict                 # structure id -> StructureSource, the whole run, sorted by id
    suite: Suite                  # the selected tasks, in suite order, narrowed to --level
    style: dict
    seed: int
    split: str                    # auto | train | test
    device: str                   # --device request
    out: str                      # output folder
    render: bool = True
    token: str = ""               # marks the output folder, so a remote worker can tell if it sees it
    ligands: dict = field(default_factory=dict)   # structure id -> ligand selector (PDB/mmCIF inputs)


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
    rendered: RenderCounts = RenderCounts()
    plan_seconds: float = 0.0
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
    rendered: RenderCounts = RenderCounts()
    plan_seconds: float = 0.0
    devices: set = field(default_factory=set)

    def add(self, summary: UnitSummary) -> None:
        if summary.status == "done":
            self.done += 1
        else:
            self.failed += 1
        self.records += summary.records
        self.samples_failed += summary.samples_failed
        self.rendered += summary.rendered
        self.plan_seconds += summary.plan_seconds
        if summary.rendered.device:
            self.devices.add(summary.rendered.device)


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


class UnitPlanning:
    """One structure's planning in one process: the structures it read, its partner catalog and the
    sidecars it made, kept while its tasks are planned one by one (``samples_of``). Reading the
    structure is done here: an unreadable one raises ``InputError``.

    ``catalog`` (id -> StructureSource, the whole run) is where a task pairing this structure
    with another of the run (T5) finds its partner; ``ligands`` (id -> ligand selector) says which
    HETATM ligand each PDB/mmCIF input uses.
    """

    def __init__(self, source: StructureSource, suite: Suite, style, split_mode: str, seed: int, catalog=None,
                 ligands: dict | None = None):
        from ..core.tasks import split_for
        from ..core.teaching import SidecarCache

        stage(f"{source.id}: loading and planning")
        ligands = ligands or {}
        self.source, self.tasks, self.style, self.seed = source, list(suite.tasks), style, seed
        self.structure = load_cached(source, ligands.get(source.id))
        self.loaded = {source.id: self.structure}
        fraction = suite.settings.test_fraction
        self.split = split_for(source.split_key or source.id, seed, fraction) if split_mode == "auto" else split_mode
        self.partners = run_partners(catalog or {source.id: source}, split_mode, seed, fraction, self.loaded,
                                     ligands)
        # sidecars are pure core: rationale, difficulty and the level filter come before any render
        self.cache = SidecarCache(self.loaded)
        self.handed: set = set()          # images already in a PlannedTask of this unit from here

    def samples_of(self, index: int) -> tuple[list, list]:
        """Plan task ``index`` with its rationales and levels: (samples, Failures). A spec's
        ``levels`` (``--level`` sets it on every task: ``Suite.with_levels``) drops questions here."""
        from ..core.teaching import plan_and_enrich

        task = self.tasks[index]
        try:
            return plan_and_enrich(task, self.structure, self.style, self.split, self.seed, self.partners,
                                   self.cache)
        except InputError as exc:
            return [], [Failure(self.source.id, str(exc), task=task.name)]

    def planned_task(self, index: int, render: bool) -> "PlannedTask":
        """Task ``index`` planned and encoded for the process that renders: its records as JSON lines,
        and (``render``) the scenes of its images not handed over before, with their sidecars."""
        t0 = time.perf_counter()
        samples, failures = self.samples_of(index) if index < len(self.tasks) else ([], [])
        scenes = ()
        if render:
            specs = [spec for key, spec in all_specs(samples).items() if key not in self.handed]
            self.handed.update(spec.key() for spec in specs)
            scenes = plan_scenes(self.loaded, specs, self.cache.of)
        records = tuple((rec["id"], dumps(rec)) for rec in (s.as_record() for s in samples))
        notes = tuple(ligand_notes(self.source.id, self.structure)) if index == 0 else ()
        return PlannedTask(self.source.id, index, records, tuple(failures), scenes, time.perf_counter() - t0,
                           notes=notes)


def plan_structure(source: StructureSource, suite: Suite, style, split_mode: str, seed: int, catalog=None,
                   ligands: dict | None = None):
    """Load one structure and plan the samples of all ``suite``'s tasks in this process: ({id: Structure} of it and the
    partners it loaded, samples, Failures, {render key: sidecar} of every image planned); the dict
    is empty when the structure itself could not be read (``UnitPlanning``)."""
    try:
        planning = UnitPlanning(source, suite, style, split_mode, seed, catalog, ligands)
    except InputError as exc:
        return {}, [], [Failure(source.id, exc.problem, where=str(exc.path))], {}
    samples, failures = [], []
    for index in range(len(planning.tasks)):
        got, failed = planning.samples_of(index)
        samples += got
        failures += failed
    return planning.loaded, samples, failures, planning.cache.by_key


@dataclass(frozen=True)
class PlannedTask:
    """One task of one unit planned: what a planner hands to the process that renders. Values only
    (it may cross a process boundary): records encoded, sidecars encoded inside the scenes' ImageJobs."""
    unit: str                      # the structure id
    index: int                     # the task's place in the run's task list
    records: tuple = ()            # (sample id, JSON line) of each sample kept, in planning order
    failures: tuple = ()           # Failures, in planning order
    scenes: tuple = ()             # PlannedScenes of its images not in an earlier task's (none: not rendering)
    seconds: float = 0.0           # planning time
    notes: tuple = ()              # the unit's log notes (task 0 only)
    unreadable: bool = False       # the structure could not be read: ``failures`` says why (task 0 only)
    crash: str = ""                # planning raised: the unit's one failure line


def plan_task(structure_id: str, index: int, ctx: "RunContext", states: collections.OrderedDict) -> PlannedTask:
    """Task ``index`` of one unit, planned in this process; ``states`` (structure id -> UnitPlanning)
    keeps the units this planner works on, so their structures are read and sidecars made once."""
    t0 = time.perf_counter()
    try:
        planning = states.get(structure_id)
        if planning is None:
            source = ctx.catalog[structure_id]
            try:
                planning = UnitPlanning(source, ctx.suite, ctx.style, ctx.split, ctx.seed, ctx.catalog,
                                        ctx.ligands)
            except InputError as exc:
                if index:             # task 0 read it: a file changed meanwhile
                    raise
                return PlannedTask(structure_id, 0, failures=(Failure(structure_id, exc.problem,
                                                                      where=str(exc.path)),),
                                   seconds=time.perf_counter() - t0, unreadable=True)
            states[structure_id] = planning
            while len(states) > PLANNED_KEPT:
                states.popitem(last=False)
        states.move_to_end(structure_id)
        return planning.planned_task(index, ctx.render)
    except Exception as exc:  # a bug in one unit must not take the batch down; the rerun retries it
        return PlannedTask(structure_id, index, seconds=time.perf_counter() - t0,
                           crash=f"unit failed: {type(exc).__name__}: {exc}")


PLANNED_KEPT = 3                   # units a planner keeps planning state of (its own and one it helps)


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


class UnitCrashed(Exception):
    """Planning the unit raised (a bug) or its planner died: ``why`` is its one failure line."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


def run_unit(structure_id: str, ctx: RunContext, feed, return_files: bool = False) -> UnitSummary:
    """Render one structure into ``ctx.out`` as ``feed`` hands its planned tasks over (a
    ``planners.Feed`` the unit was added to), and write its parts; with ``return_files``, into a
    scratch folder whose files come back in the summary's ``files``."""
    out = Path(ctx.out)
    scratch = Path(tempfile.mkdtemp(prefix="misigen-unit-")) if return_files else None
    try:
        try:
            summary = render_unit(structure_id, ctx, feed, scratch or out)
        except OutputError:
            raise                 # the folder takes no more writes: the run stops (cli: one line, exit 1)
        except Exception as exc:  # a bug in one unit must not take the batch down; the rerun retries it
            why = exc.why if isinstance(exc, UnitCrashed) else f"unit failed: {type(exc).__name__}: {exc}"
            summary = crash_summary(structure_id, why)
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
        feed.done(structure_id)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def render_unit(structure_id: str, ctx: RunContext, feed, out: Path) -> UnitSummary:
    """Render each batch of planned tasks as the feed hands it over (tasks planned meanwhile go
    together: fewer scenes built), then write the unit's parts (``finish_unit``) once its images
    are finished (by the feed's planning processes, where it has them: ``Feed.finishing``). A
    render failure is the unit's: what is planned after it is not rendered."""
    t0 = time.perf_counter()
    tasks: dict = {}
    rendered, render_error = RenderCounts(), None
    finishing = feed.finishing() if ctx.render else None
    try:
        for batch in feed.planned(structure_id):
            for planned in batch:
                if planned.crash:
                    raise UnitCrashed(planned.crash)
                tasks[planned.index] = planned
            if ctx.render and render_error is None:
                try:
                    rendered += render_scenes(merge_scenes(sc for p in batch for sc in p.scenes), out, ctx.device,
                                              finishing)
                except Exception as exc:  # a render that fails must not take the batch down with it
                    render_error = _render_failure(out, exc)
        if finishing is not None:
            try:
                finish_images(finishing, out)
            except Exception as exc:  # as a render's
                render_error = render_error or _render_failure(out, exc)
    except BaseException:
        if finishing is not None:
            finishing.abandon()          # images not yet being finished are dropped with their temp files
        raise
    return finish_unit(structure_id, [tasks[k] for k in sorted(tasks)], out, rendered, render_error,
                       time.perf_counter() - t0)


def _render_failure(out: Path, exc: Exception) -> Exception:
    """The unit's render failure ``exc``, unless it says the folder takes no writes (then raised)."""
    if fatal_output_error(out, exc):
        raise fatal_output_error(out, exc) from None
    return exc


def finish_unit(structure_id: str, tasks: list, out: Path, rendered: RenderCounts = RenderCounts(),
                render_error: Exception | None = None, seconds: float = 0.0) -> UnitSummary:
    """Write the parts of one unit from its planned ``tasks`` (in task order) and what rendering did.

    The records part is written last and only when the structure is finished (its input
    could not be read counts as finished: a rerun would fail the same way); after a render
    failure only the failures part is written, so a rerun (e.g. on another device) retries.
    """
    failures = [f for t in tasks for f in t.failures]
    messages = [f"{structure_id}: {f.where}: {f.why}" for f in failures if f.where]
    unreadable = not tasks or tasks[0].unreadable
    lines = sorted((r for t in tasks for r in t.records), key=lambda r: r[0])
    if render_error is not None:
        why = f"render failed: {type(render_error).__name__}: {render_error}"
        failures.append(Failure(structure_id, why))
        messages.append(f"{structure_id}: {why}")
        lines = None
    write_parts(out, structure_id, None if lines is None else [line for _id, line in lines], failures)
    plan_seconds = sum(t.seconds for t in tasks)
    return UnitSummary(structure_id, "failed" if unreadable or render_error is not None else "done",
                       records=len(lines or ()), failures=len(failures),
                       samples_failed=sum(1 for f in failures if f.sample is not None), messages=messages,
                       notes=list(tasks[0].notes) if tasks else [],
                       rendered=replace(rendered, seconds=round(rendered.seconds, 3),
                                        cycles_seconds=round(rendered.cycles_seconds, 3)),
                       plan_seconds=round(plan_seconds, 3), seconds=round(plan_seconds + seconds, 3))


def process_structure(source: StructureSource, suite: Suite, style, out: Path, split_mode: str, seed: int,
                      device: str, render: bool = True, catalog=None, ligands: dict | None = None) -> UnitSummary:
    """Plan every task of ``suite`` for one structure in this process, then render them and write its
    parts (no planner: benchmarks and profiles of one unit)."""
    try:
        planning = UnitPlanning(source, suite, style, split_mode, seed, catalog, ligands)
    except InputError as exc:
        return finish_unit(source.id, [PlannedTask(source.id, 0, failures=(
            Failure(source.id, exc.problem, where=str(exc.path)),), unreadable=True)], out)
    planned = [planning.planned_task(k, render) for k in range(max(1, len(planning.tasks)))]
    t0 = time.perf_counter()
    rendered, error = RenderCounts(), None
    if render:
        try:
            rendered = render_scenes(merge_scenes(sc for p in planned for sc in p.scenes), out, device)
        except Exception as exc:  # as in render_unit
            if fatal_output_error(out, exc):
                raise fatal_output_error(out, exc) from None
            error = exc
    return finish_unit(source.id, planned, out, rendered, error, time.perf_counter() - t0)
