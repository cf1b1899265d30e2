"""The ``generate`` command: plan every QA sample, render each distinct image once, write the dataset.

The run, in one direction: ``prepare_run`` resolves the suite, the inputs and the run's
identity (``run_folder``) before any work; an executor (``executors``) runs the per-structure
units (``unit``), which render through ``rendering``; ``finish_run`` merges their parts into
the dataset and audits it. A killed run, run again, redoes only unfinished structures.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core.structure.duplicates import duplicate_groups, with_split_keys
from ..core.failures import Failure
from ..core.structure.loader import Discovery, discover_inputs
from ..core.structure.readers import DEFAULT_READ
from ..core.resources import demo_structures
from ..core.look.style import style_hash
from ..core.tasks.settings import plain
from ..core.tasks.suite import Suite
from ..version import __version__
from . import signals
from .dataset_card import input_notices, write_dataset_card
from .executors import DEFAULT_STRUCTURES_PER_WORKER, make_executor, new_token
from .folder_lock import lock_folder
from .output import inside, remove_stale_temps, write_json_atomic, write_text_atomic
from .progress import set_stage_sink
from .run_config import RunConfig
from .run_folder import (DISCOVERY_FAILURES, PARTS_DIR, TOKEN_PREFIX, check_same_run, done_structures, merge,
                         previous_devices, run_identity, write_failures, write_identity)
from .shards import take_shard
from .unit import RunContext, RunStats, UnitSummary


class Interrupted(Exception):
    """Ctrl-C: what finished is kept; the same command resumes."""


@dataclass
class RunSetup:
    """A run's inputs, resolved before any work: what runs here and how it is identified."""
    suite: Suite                  # the selected tasks, narrowed to --level
    sources: list                 # the catalog: every structure of the run, sorted by id
    mine: list                    # this shard's structures
    discovery: Discovery
    identity: dict
    ctx: RunContext
    unused_failures: list = field(default_factory=list)   # Failures: inputs given but not used
    duplicates: list = field(default_factory=list)        # groups of ids with byte-identical inputs


def prepare_run(config: RunConfig) -> RunSetup:
    """Load the suite, discover the inputs, fix the catalog: everything that can fail early.
    ``config.ligands`` (structure id → selector) and ``config.ligand`` (the others) only matter for
    PDB/mmCIF inputs whose ligand is a HETATM group; ``config.reading`` says which model and
    alternate locations of those files are read."""
    from ..core.tasks import load_suite
    from ..core.tasks.suite import check_resolution

    suite = load_suite(config.suite, levels=config.levels)   # spec errors stop here, before any work
    check_resolution(config.style, suite)
    if config.tasks:
        suite = suite.only(config.tasks)
    discovery = discover_inputs(config.structures, exclude=[config.out])
    sources = sorted(discovery.sources, key=lambda s: s.id)[:config.limit]
    if config.reading is not None:
        sources = [replace(s, reading=config.reading) for s in sources]
    unknown_ids = sorted(set(config.ligands) - {s.id for s in sources})
    if unknown_ids:
        print(f"warning: --ligands names {len(unknown_ids)} id(s) that are not among the structures: "
              f"{', '.join(unknown_ids[:10])}", file=sys.stderr)
    ligand_of = {s.id: config.ligands.get(s.id, config.ligand) for s in sources}
    identity = run_identity(suite.tasks, sources, ligand_of, style_hash(config.style), config.seed, config.split,
                            config.render)
    duplicates = duplicate_groups({sid: h["sha256"] for sid, h in identity["inputs"].items()})
    sources = with_split_keys(sources, duplicates)           # never split across train and test
    for group in duplicates:
        print(f"note: byte-identical inputs {' = '.join(group)}: kept in one split", file=sys.stderr)
    unused = [Failure(None, f"not used: {u.why}", where=str(u.path),
                      kind="unreadable" if u.unreadable else "unused_input" if u.structure_like
                      else "not_a_structure") for u in discovery.unused]
    ctx = RunContext(catalog={s.id: s for s in sources}, suite=suite, style=config.style, seed=config.seed,
                     split=config.split, device=config.device, out=str(config.out), render=config.render,
                     ligands={k: v for k, v in ligand_of.items() if v})
    return RunSetup(suite, sources, take_shard(sources, config.shard), discovery, identity, ctx, unused, duplicates)


def run_generate(config: RunConfig) -> dict:
    """Generate (or resume) the dataset in ``config.out``; returns the manifest (``this_run`` = this
    run's counts). With ``config.audit`` the blind-baseline audit runs at the end and its summary
    is stored in the manifest."""
    t_start = time.perf_counter()
    setup = prepare_run(config)
    # One run per folder: the lock is held to the end; shards of one array job share it (folder_lock.py).
    lock = lock_folder(config.out, shared=config.shard[1] > 1)
    try:
        return _run_locked(setup, config, lock, t_start)
    finally:
        lock.release()


def _run_locked(setup: RunSetup, config: RunConfig, lock, t_start: float) -> dict:
    out = config.out
    with lock.step():                # checked and written as one step: a second run sees this one's identity
        if check_same_run(out, setup.identity) is None:
            write_identity(out, setup.identity)
        write_failures(inside(out, DISCOVERY_FAILURES), setup.unused_failures)
        # temp files of killed runs; shards spare the last hour's (another shard may be writing them)
        remove_stale_temps(out, older_than=3600.0 if config.shard[1] > 1 else 0.0)
    done = done_structures(out)
    todo = [s.id for s in setup.mine if s.id not in done]
    runner = make_executor(config.executor, config.workers, len(todo), config.gpus,
                           config.per_worker or DEFAULT_STRUCTURES_PER_WORKER, config.planners,
                           **config.ray_options)              # an executor that cannot run fails here
    stats = RunStats(units=len(setup.mine), skipped=len(setup.mine) - len(todo))
    from ..core.chemistry.ligand import prefetch_templates
    prefetch_templates([setup.ctx.catalog[i] for i in todo])    # one CCD read for all HETATM ligands here
    ctx = setup.ctx
    token_file = None
    if config.executor == "ray":
        ctx = replace(ctx, token=new_token())
        token_file = inside(out, f"{PARTS_DIR}/{TOKEN_PREFIX}{ctx.token}")
        write_text_atomic(token_file, ctx.token)
    try:
        _run_units(runner, todo, ctx, stats, config.progress)
    finally:
        if token_file is not None:
            token_file.unlink(missing_ok=True)
    meta = run_meta(setup, config, stats, getattr(runner, "name", config.executor), time.perf_counter() - t_start,
                    getattr(runner, "planners", 0))
    with lock.step():                # shards sharing the folder merge one at a time; the last has every part
        return finish_run(out, meta, config.audit)


def _run_units(runner, todo: list, ctx: RunContext, stats: RunStats, progress: bool) -> None:
    """Run the units of ``todo``, counting them in ``stats``, with a bar on stderr if ``progress``."""
    bar = None
    if progress and todo:
        from tqdm import tqdm
        bar = tqdm(total=len(todo), desc="structures", unit="structure", file=sys.stderr, dynamic_ncols=True)
        set_stage_sink(lambda text: bar.set_postfix_str(text, refresh=True))   # units run in this process

    def on_result(summary: UnitSummary) -> None:
        stats.add(summary)
        for line in summary.messages:
            (bar.write if bar else print)(f"failed: {line}", file=sys.stderr)
        for line in summary.notes:
            (bar.write if bar else print)(f"note: {line}", file=sys.stderr)
        if bar:
            bar.set_postfix(images=stats.rendered.images, failed=stats.failed, refresh=False)
            bar.update(1)

    def stopped() -> str:
        return (f"interrupted: {stats.done + stats.failed} of {len(todo)} structure(s) of this run "
                f"finished and are kept in {ctx.out}; run the same command again to resume")

    signals.set_hint(stopped)            # said also when a signal cuts a render short
    try:
        if todo:
            runner.run(todo, ctx, on_result)
    except KeyboardInterrupt:
        raise Interrupted(stopped()) from None
    finally:
        set_stage_sink(None)
        if bar:
            bar.close()


def run_meta(setup: RunSetup, config: RunConfig, stats: RunStats, executor: str, wall: float,
             planners: int = 0) -> dict:
    """What the manifest says about this run besides the merged counts: its settings, inputs and timings."""
    blender = ""
    if config.render:
        try:
            from ..render.renderer import blender_version
            blender = blender_version()
        except ImportError:
            blender = "not available"
    suite = setup.suite.settings
    i, n = config.shard
    return {
        "tool": "misigen", "version": __version__, "blender": blender,
        "device": sorted(stats.devices | previous_devices(config.out)),
        "seed": config.seed, "split": config.split, "shard": f"{i}/{n}",
        "suite": str(Path(config.suite).resolve()), "tasks": list(setup.suite.task_names()),
        "suite_modules": list(suite.modules),
        "spec_sha256": setup.identity["spec_sha256"], "style_sha256": setup.identity["style_sha256"],
        "inputs": setup.identity["inputs"], "render": bool(config.render),
        "reading": (setup.sources[0].reading if setup.sources else DEFAULT_READ).as_dict(),   # one for all
        "input_notices": input_notices(config.structures),
        "audit_settings": plain(suite.audit),
        "rejection_budget": suite.rejection_budget,
        "inputs_not_used": [{"where": f.where, "why": f.why, "kind": f.kind} for f in setup.unused_failures],
        "inputs_alternatives_skipped": len(setup.discovery.alternatives),
        "duplicate_inputs": setup.duplicates,
        "this_run": {"executor": executor, "workers": config.workers,
                     "planners": planners,
                     "units": stats.units, "structures": stats.done + stats.failed, "done": stats.done,
                     "failed": stats.failed, "skipped_as_done": stats.skipped, "qa_records": stats.records,
                     "samples_failed": stats.samples_failed, "images_rendered": stats.rendered.images,
                     "render_seconds": round(stats.rendered.seconds, 2),
                     "cycles_seconds": round(stats.rendered.cycles_seconds, 2),
                     "plan_seconds": round(stats.plan_seconds, 2), "wall_seconds": round(wall, 2),
                     "images_per_second": round(stats.rendered.images / wall, 3) if wall > 0 else 0.0},
    }


def finish_run(out: Path, meta: dict, audit: bool = True) -> dict:
    """The last step of every ``generate``: merge the parts into the dataset and its manifest,
    then audit it (``audit`` command) and store the audit's summary in the manifest and card."""
    manifest = merge(out, meta)
    if audit and manifest["counts"]["records"]:
        from .audit import audit_dataset, audit_summary
        manifest["audit"] = audit_summary(audit_dataset(out, meta.get("audit_settings")))
        write_json_atomic(inside(out, "manifest.json"), manifest, indent=1)
        write_dataset_card(out, manifest)
    return manifest


# ------------------------------------------------------------------ as a library call (misigen.api)
def generate(config: RunConfig) -> dict:
    """The ``generate`` command: plan, render and write the dataset a ``RunConfig`` describes (and audit
    it); returns its manifest. The command line builds the same object from its options."""
    return run_generate(config)


def demo(out: str | Path = "demo_out", **settings) -> dict:
    """``generate`` on the bundled example complexes (test split unless ``split`` is given); ``settings``
    are ``RunConfig``'s fields."""
    settings.setdefault("split", "test")
    return run_generate(RunConfig(demo_structures(), out, **settings))
