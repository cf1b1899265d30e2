"""The ``generate`` command: plan every QA sample, render each distinct image once, write the dataset.

Unit of work = one structure (all its tasks): its scene is built once and all its
views are rendered back to back. Each finished structure leaves ``parts/<id>.jsonl``
(written atomically, last), so a killed run, run again, redoes only unfinished
structures; images already on disk with their sidecar are not rendered again. The
merged ``annotations.jsonl`` is rebuilt from the parts, sorted by id, so it is
byte-identical however the work was split (executors: ``pipeline/executors.py``).
"""
from __future__ import annotations

import collections
import hashlib
import json
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core.errors import InputError
from ..core.loader import Discovery, StructureSource, discover_inputs, load_structure
from ..core.scene_plan import RenderSpec, shown_structure
from ..core.style import style_hash
from .dataset_card import input_notices, write_dataset_card
from .executors import TOKEN_PREFIX, RunContext, make_executor, new_token, remember_tasks
from .output import dumps, file_sha256, inside, write_json_atomic, write_text_atomic
from .shards import take_shard

PARTS_DIR = "parts"
RUN_FILE = f"{PARTS_DIR}/_run.json"                          # what this folder is a run of
DISCOVERY_FAILURES = f"{PARTS_DIR}/_discovery.failures.jsonl"  # inputs given but not used
# A folder holds one run: these must match to resume into it or to merge shard folders.
IDENTITY_KEYS = ("seed", "split", "tasks", "spec_sha256", "style_sha256", "inputs", "render")


class Interrupted(Exception):
    """Ctrl-C: what finished is kept; the same command resumes."""


def _all_specs(samples) -> dict[str, RenderSpec]:
    specs: dict[str, RenderSpec] = {}
    for s in samples:
        for spec in s.render_specs():
            specs.setdefault(spec.key(), spec)
    return specs


def render_specs(structures: dict, specs: dict[str, RenderSpec], out: Path, device: str) -> dict:
    """Render the specs not yet on disk; one scene per (structure, shown residue set).
    ``structures``: structure id → Structure (a sample may show a partner complex).

    Returns {"images", "seconds" (whole render calls), "cycles_seconds" (Cycles alone), "device"}.
    """
    todo = {k: s for k, s in specs.items()
            if not (inside(out, f"images/{k}.png").exists() and inside(out, f"images/{k}.json").exists())}
    done = {"images": len(todo), "seconds": 0.0, "cycles_seconds": 0.0, "device": ""}
    if not todo:
        return done
    from ..render.renderer import SceneRenderer  # bpy only when something must be rendered
    from .render_job import render_annotated

    groups = collections.defaultdict(list)
    for key in sorted(todo):
        spec = todo[key]
        groups[(spec.structure_id, spec.residues, json.dumps(spec.style, sort_keys=True))].append(spec)
    shown_cache: dict = {}      # the shown atoms of one (structure, parts, residues) selection, computed once
    for (sid, _residues, _style), group in sorted(groups.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        structure = structures[sid]
        first = group[0]
        scene_atoms = shown_structure(structure, first.style, ("protein", "ligand"), first.residues)
        renderer = SceneRenderer(scene_atoms, first.style, device)
        done["device"] = renderer.device
        try:
            for spec in group:
                sel = (sid, spec.parts, spec.residues, _style)
                if sel not in shown_cache:
                    shown_cache[sel] = shown_structure(structure, spec.style, spec.parts, spec.residues)
                shown = shown_cache[sel]
                mats, _ = spec.matrices(shown)
                done["seconds"] += render_annotated(renderer, shown, spec, mats, out)[1]
        finally:
            done["cycles_seconds"] += renderer.cycles_seconds
            renderer.close()
    return done


def partner_catalog(catalog: dict, split_mode: str, seed: int, test_fraction: float, loaded: dict,
                    ligands: dict | None = None):
    """The run's structures by split, with a loader (each with its own ligand selector) that keeps
    what it loads in ``loaded``."""
    from ..core.tasks import PartnerCatalog, split_for

    splits = {sid: (split_for(sid, seed, test_fraction) if split_mode == "auto" else split_mode) for sid in catalog}

    def load(sid):
        if sid not in loaded:
            loaded[sid] = load_structure(catalog[sid], (ligands or {}).get(sid))
        return loaded[sid]
    return PartnerCatalog(splits, load)


def plan_structure(source: StructureSource, tasks, style, split_mode: str, seed: int, catalog=None,
                   ligands: dict | None = None):
    """Load one structure and plan all its samples: ({id: Structure} of it and the partners it loaded,
    samples, failure records); the dict is empty when the structure itself could not be read.

    ``catalog`` (id -> StructureSource, the whole run) is where a task pairing this structure
    with another of the run (T5) finds its partner; ``ligands`` (id -> ligand selector) says which
    HETATM ligand each PDB/mmCIF input uses.
    """
    from ..core.tasks import plan_samples, split_for

    failures: list[dict] = []
    ligands = ligands or {}
    try:
        structure = load_structure(source, ligands.get(source.id))
    except InputError as exc:
        return {}, [], [{"structure": source.id, "task": None, "sample": None, "where": str(exc.path),
                         "why": exc.problem}]
    samples = []
    loaded = {source.id: structure}
    test_fraction = tasks[0].suite.get("test_fraction", 490 / 3993) if tasks else 490 / 3993
    split = split_for(source.id, seed, test_fraction) if split_mode == "auto" else split_mode
    partners = partner_catalog(catalog or {source.id: source}, split_mode, seed, test_fraction, loaded, ligands)
    for task in tasks:
        try:
            got, failed = plan_samples(task, structure, style, split, seed, partners)
        except InputError as exc:
            got, failed = [], [{"structure": source.id, "task": task.name, "sample": None, "why": str(exc)}]
        samples += got
        failures += failed
    return loaded, samples, failures


def process_structure(source: StructureSource, tasks, style, out: Path, split_mode: str, seed: int,
                      device: str, render: bool = True, catalog=None, ligands: dict | None = None) -> dict:
    """Plan + render one structure; write its part files. Returns a summary.

    The records part is written last and only when the structure is finished (its input
    could not be read counts as finished: a rerun would fail the same way); after a render
    failure only the failures part is written, so a rerun (e.g. on another device) retries.
    """
    t0 = time.perf_counter()
    part = inside(out, f"{PARTS_DIR}/{source.id}.jsonl")
    loaded, samples, failures = plan_structure(source, tasks, style, split_mode, seed, catalog=catalog,
                                               ligands=ligands)
    messages = [f"{source.id}: {f['where']}: {f['why']}" for f in failures if f.get("where")]
    t_plan = time.perf_counter() - t0
    rendered = {"images": 0, "seconds": 0.0, "cycles_seconds": 0.0, "device": ""}
    render_failed = False
    if samples and render:
        try:
            rendered = render_specs(loaded, _all_specs(samples), out, device)
        except Exception as exc:  # a render that fails must not take the batch down with it
            why = f"render failed: {type(exc).__name__}: {exc}"
            failures.append({"structure": source.id, "task": None, "sample": None, "why": why})
            messages.append(f"{source.id}: {why}")
            render_failed, samples = True, []
    records = sorted((s.as_record() for s in samples), key=lambda r: r["id"])
    write_text_atomic(part.with_suffix(".failures.jsonl"), "".join(dumps(f) + "\n" for f in failures))
    if not render_failed:
        write_text_atomic(part, "".join(dumps(r) + "\n" for r in records))
    status = "failed" if not loaded or render_failed else "done"
    return {"structure": source.id, "status": status, "records": len(records), "failures": len(failures),
            "samples_failed": sum(1 for f in failures if f.get("sample") is not None),
            "messages": messages, "images_rendered": rendered["images"],
            "render_seconds": round(rendered["seconds"], 3), "cycles_seconds": round(rendered["cycles_seconds"], 3),
            "plan_seconds": round(t_plan, 3), "device": rendered["device"],
            "seconds": round(time.perf_counter() - t0, 3)}


# ------------------------------------------------------------------ the folder's parts
def done_structures(out: Path) -> set:
    parts = inside(out, PARTS_DIR)
    if not parts.exists():
        return set()
    return {p.stem for p in parts.glob("*.jsonl")
            if not p.name.endswith(".failures.jsonl") and not p.name.startswith(("_", "."))}


def read_parts(out: Path) -> tuple[list, list]:
    """Every record and failure line of the folder's parts."""
    records, failures = [], []
    for part in sorted(inside(out, PARTS_DIR).glob("*.jsonl")):
        if part.name.startswith("."):
            continue
        target = failures if part.name.endswith(".failures.jsonl") else records
        target += [json.loads(line) for line in part.read_text().splitlines() if line.strip()]
    return records, failures


def merge(out: Path, meta: dict) -> dict:
    """Rebuild annotations.jsonl, failures.jsonl and manifest.json from every finished part."""
    from ..core.tasks import answer_distribution

    records, failures = read_parts(out) if inside(out, PARTS_DIR).exists() else ([], [])
    records.sort(key=lambda r: r["id"])
    failures = sorted({dumps(f): f for f in failures}.values(), key=dumps)   # shards repeat run-level lines
    write_text_atomic(inside(out, "annotations.jsonl"), "".join(dumps(r) + "\n" for r in records))
    write_text_atomic(inside(out, "failures.jsonl"), "".join(dumps(f) + "\n" for f in failures))
    images = {p for r in records for p in r["images"]} | \
        {p for r in records for p in (r["options"] or []) if str(p).startswith("images/")}
    counts = collections.Counter((r["task"], r["split"]) for r in records)
    manifest = dict(meta)
    manifest.update({
        "counts": {"records": len(records), "images": len(images), "failures": len(failures),
                   "failures_by_category": dict(sorted(collections.Counter(
                       f.get("category") or ("input" if f.get("task") is None else "sample")
                       for f in failures).items())),
                   "structures": len({r["structure"] for r in records}),
                   "images_per_qa": round(len(images) / len(records), 3) if records else 0.0,
                   "per_task_split": {f"{t}/{s}": n for (t, s), n in sorted(counts.items())}},
        "answer_distribution": answer_distribution(records),
        "annotations_sha256": file_sha256(inside(out, "annotations.jsonl")),
    })
    write_json_atomic(inside(out, "manifest.json"), manifest, indent=1)
    write_dataset_card(out, manifest)
    return manifest


def input_hashes(sources, ligand_of: dict | None = None) -> dict:
    """Per input: its files, their hash and (PDB/mmCIF) the ligand selector it was run with."""
    ligand_of = ligand_of or {}
    return {s.id: {"files": [Path(p).name for p in (s.protein, s.ligand) if p],
                   "sha256": hashlib.sha256(b"".join(file_sha256(p).encode()
                                                     for p in (s.protein, s.ligand) if p)).hexdigest(),
                   **({"ligand": ligand_of[s.id]} if ligand_of.get(s.id) and s.ligand is None else {})}
            for s in sources}


def read_identity(out: Path) -> dict | None:
    path = inside(out, RUN_FILE)
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except ValueError:
        raise InputError(path, "not JSON (a damaged run folder)") from None


def identity_difference(a: dict, b: dict) -> str:
    """'' when two runs may share a folder, else which setting differs."""
    for key in IDENTITY_KEYS:
        if a.get(key) != b.get(key):
            if key == "inputs":
                ids_a, ids_b = set(a.get(key) or {}), set(b.get(key) or {})
                extra = sorted(ids_a ^ ids_b)
                changed = sorted(i for i in ids_a & ids_b if a[key][i] != b[key][i])
                return f"different inputs ({len(extra)} structure(s) not in both, {len(changed)} changed, " \
                       f"e.g. {(extra + changed)[0]})" if extra or changed else "different inputs"
            return f"a different {key} ({json.dumps(a.get(key))[:80]} vs {json.dumps(b.get(key))[:80]})"
    return ""


# ------------------------------------------------------------------ a run
@dataclass
class RunSetup:
    """A run's inputs, resolved before any work: what runs here and how it is identified."""
    tasks: list
    sources: list                 # the catalog: every structure of the run, sorted by id
    mine: list                    # this shard's structures
    discovery: Discovery
    identity: dict
    ctx: RunContext
    unused_failures: list = field(default_factory=list)


def prepare_run(suite_path: Path, structure_paths, out: Path, style: dict, split: str = "auto",
                task_names=None, limit=None, seed: int = 0, device: str = "auto", shard=(0, 1),
                render: bool = True, ligands: dict | None = None, default_ligand: str | None = None) -> RunSetup:
    """Load the suite, discover the inputs, fix the catalog: everything that can fail early.
    ``ligands``: structure id → ligand selector (``--ligands FILE``); ``default_ligand`` for the
    others (``--ligand``). Both only matter for PDB/mmCIF inputs whose ligand is a HETATM group."""
    from ..core.tasks import load_suite

    tasks = load_suite(suite_path)                       # spec errors stop here, before any work
    if task_names:
        known = {t.name for t in tasks}
        unknown = sorted(set(task_names) - known)
        if unknown:
            raise InputError(suite_path, f"unknown task(s) {', '.join(unknown)}; suite has {', '.join(sorted(known))}")
        tasks = [t for t in tasks if t.name in task_names]
    if split not in ("auto", "train", "test"):
        raise InputError("--split", f"must be auto, train or test, not {split!r}")
    if limit is not None and limit < 1:
        raise InputError("--limit", f"must be at least 1, got {limit}")
    discovery = discover_inputs(structure_paths, exclude=[out])
    sources = sorted(discovery.sources, key=lambda s: s.id)
    if limit is not None:
        sources = sources[:limit]
    ligands = dict(ligands or {})
    unknown_ids = sorted(set(ligands) - {s.id for s in sources})
    if unknown_ids:
        print(f"warning: --ligands names {len(unknown_ids)} id(s) that are not among the structures: "
              f"{', '.join(unknown_ids[:10])}", file=sys.stderr)
    ligand_of = {s.id: ligands.get(s.id, default_ligand) for s in sources}
    identity = {"seed": seed, "split": split, "tasks": [t.name for t in tasks],
                "spec_sha256": {t.name: t.spec_hash for t in tasks}, "style_sha256": style_hash(style),
                "inputs": input_hashes(sources, ligand_of), "render": bool(render)}
    unused = [{"structure": None, "task": None, "sample": None, "where": str(u.path), "why": f"not used: {u.why}",
               "kind": "unused_input" if u.structure_like else "not_a_structure"} for u in discovery.unused]
    ctx = RunContext(catalog={s.id: s for s in sources}, suite=str(suite_path), tasks=tuple(t.name for t in tasks),
                     style=style, seed=seed, split=split, device=device, out=str(out), render=render,
                     ligands={k: v for k, v in ligand_of.items() if v})
    return RunSetup(tasks, sources, take_shard(sources, shard), discovery, identity, ctx, unused)


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

    def add(self, summary: dict) -> None:
        if summary.get("status") == "done":
            self.done += 1
        else:
            self.failed += 1
        self.records += summary.get("records", 0)
        self.samples_failed += summary.get("samples_failed", 0)
        self.images += summary.get("images_rendered", 0)
        self.render_seconds += summary.get("render_seconds", 0.0)
        self.cycles_seconds += summary.get("cycles_seconds", 0.0)
        self.plan_seconds += summary.get("plan_seconds", 0.0)
        if summary.get("device"):
            self.devices.add(summary["device"])


def run_generate(suite_path: Path, structure_paths, out: Path, style: dict, split: str = "auto",
                 task_names=None, limit=None, seed: int = 0, device: str = "auto",
                 shard=(0, 1), render: bool = True, progress: bool = True, executor: str = "local",
                 workers: int = 1, gpus: int = 0, per_worker: int | None = None,
                 ray_options: dict | None = None, ligands: dict | None = None, default_ligand: str | None = None,
                 audit: bool = True) -> dict:
    """Generate (or resume) the dataset in ``out``; returns the manifest (``this_run`` = this run's counts).
    ``ligands``/``default_ligand``: see ``prepare_run``; ``audit``: run the blind-baseline audit at the
    end and store its summary in the manifest."""
    from .. import __version__
    from .executors import DEFAULT_STRUCTURES_PER_WORKER

    t_start = time.perf_counter()
    setup = prepare_run(suite_path, structure_paths, out, style, split, task_names, limit, seed, device,
                        shard, render, ligands, default_ligand)
    out = Path(out)
    previous = read_identity(out) if out.exists() else None
    if previous is not None and identity_difference(previous, setup.identity):
        raise InputError(out, f"holds a run with {identity_difference(previous, setup.identity)}; "
                              "use another --out (or delete it) to start a new dataset")
    done = done_structures(out) if out.exists() else set()
    todo = [s.id for s in setup.mine if s.id not in done]
    runner = make_executor(executor, workers, len(todo), gpus, per_worker or DEFAULT_STRUCTURES_PER_WORKER,
                           **(ray_options or {}))              # an executor that cannot run fails here
    out.mkdir(parents=True, exist_ok=True)
    if previous is None:
        write_json_atomic(inside(out, RUN_FILE), setup.identity)
    write_text_atomic(inside(out, DISCOVERY_FAILURES), "".join(dumps(f) + "\n" for f in setup.unused_failures))
    stats = RunStats(units=len(setup.mine), skipped=len(setup.mine) - len(todo))
    from ..core.het_ligand import prefetch_templates
    prefetch_templates([setup.ctx.catalog[i] for i in todo])    # one CCD read for all HETATM ligands here
    ctx = setup.ctx
    remember_tasks(ctx, setup.tasks)
    token_file = None
    if executor == "ray":
        ctx = replace(ctx, token=new_token())
        token_file = inside(out, f"{PARTS_DIR}/{TOKEN_PREFIX}{ctx.token}")
        write_text_atomic(token_file, ctx.token)
    bar = None
    if progress and todo:
        from tqdm import tqdm
        bar = tqdm(total=len(todo), desc="structures", unit="structure", file=sys.stderr, dynamic_ncols=True)

    def on_result(summary: dict) -> None:
        stats.add(summary)
        for line in summary.get("messages", []):
            (bar.write if bar else print)(f"failed: {line}", file=sys.stderr)
        if bar:
            bar.set_postfix(images=stats.images, failed=stats.failed, refresh=False)
            bar.update(1)

    try:
        if todo:
            runner.run(todo, ctx, on_result)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted: {stats.done + stats.failed} of {len(todo)} structure(s) of this run "
                          f"finished and are kept in {out}; run the same command again to resume") from None
    finally:
        if bar:
            bar.close()
        if token_file is not None:
            token_file.unlink(missing_ok=True)

    devices = set(stats.devices)
    manifest_path = inside(out, "manifest.json")
    if manifest_path.exists():  # a resumed run keeps the devices that rendered the earlier images
        try:
            devices |= set(json.loads(manifest_path.read_text()).get("device", []))
        except ValueError:
            pass
    blender = ""
    if render:
        try:
            from ..render.renderer import blender_version
            blender = blender_version()
        except ImportError:
            blender = "not available"
    wall = time.perf_counter() - t_start
    meta = {
        "tool": "misigen", "version": __version__, "blender": blender, "device": sorted(devices),
        "seed": seed, "split": split, "shard": f"{shard[0]}/{shard[1]}",
        "suite": str(suite_path), "tasks": [t.name for t in setup.tasks],
        "spec_sha256": setup.identity["spec_sha256"], "style_sha256": setup.identity["style_sha256"],
        "inputs": setup.identity["inputs"], "render": bool(render),
        "input_notices": input_notices(structure_paths),
        "audit_settings": setup.tasks[0].suite.get("audit", {}) if setup.tasks else {},
        "inputs_not_used": [{"where": f["where"], "why": f["why"], "kind": f["kind"]} for f in setup.unused_failures],
        "inputs_alternatives_skipped": len(setup.discovery.alternatives),
        "this_run": {"executor": getattr(runner, "name", executor), "workers": workers,
                     "units": stats.units, "structures": stats.done + stats.failed, "done": stats.done,
                     "failed": stats.failed, "skipped_as_done": stats.skipped, "qa_records": stats.records,
                     "samples_failed": stats.samples_failed, "images_rendered": stats.images,
                     "render_seconds": round(stats.render_seconds, 2),
                     "cycles_seconds": round(stats.cycles_seconds, 2),
                     "plan_seconds": round(stats.plan_seconds, 2), "wall_seconds": round(wall, 2),
                     "images_per_second": round(stats.images / wall, 3) if wall > 0 else 0.0},
    }
    return finish_run(out, meta, audit)


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
