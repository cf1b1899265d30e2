"""The ``generate`` command: plan every QA sample, render each distinct image once, write the dataset.

Unit of work = one structure (all its tasks): its scene is built once and all its
views are rendered back to back. Each finished structure leaves ``parts/<id>.jsonl``
(written atomically, last), so a killed run, run again, redoes only unfinished
structures; images already on disk with their sidecar are not rendered again. The
merged ``annotations.jsonl`` is rebuilt from the parts, sorted by id, so it is
byte-identical however the work was split.
"""
from __future__ import annotations

import collections
import hashlib
import json
import sys
import time
from pathlib import Path

from ..core.errors import InputError
from ..core.loader import StructureSource, discover, load_structure
from ..core.scene_plan import RenderSpec, shown_structure
from ..core.style import style_hash
from .output import dumps, file_sha256, inside, write_json_atomic, write_text_atomic
from .shards import take_shard

PARTS_DIR = "parts"


def _image_path(spec: RenderSpec) -> str:
    return f"images/{spec.key()}.png"


def record_of(sample) -> dict:
    """The QA record of the dataset contract; render specs become image paths."""
    options = sample.options
    if options and isinstance(options[0], RenderSpec):
        options = [_image_path(o) for o in options]
    return {
        "id": sample.id, "task": sample.task, "split": sample.split, "structure": sample.structure,
        "question": sample.question, "images": [_image_path(s) for s in sample.images],
        "options": options, "answer": sample.answer, "program": sample.program, "seed": sample.seed,
    }


def _all_specs(samples) -> dict[str, RenderSpec]:
    specs: dict[str, RenderSpec] = {}
    for s in samples:
        for spec in list(s.images) + [o for o in (s.options or []) if isinstance(o, RenderSpec)]:
            specs.setdefault(spec.key(), spec)
    return specs


def render_specs(structure, specs: dict[str, RenderSpec], out: Path, device: str) -> tuple[int, float, str]:
    """Render the specs not yet on disk; one scene per shown residue set. Returns (n, seconds, device)."""
    todo = {k: s for k, s in specs.items()
            if not (inside(out, f"images/{k}.png").exists() and inside(out, f"images/{k}.json").exists())}
    if not todo:
        return 0, 0.0, ""
    from ..render.renderer import SceneRenderer  # bpy only when something must be rendered
    from .render_job import render_annotated

    groups = collections.defaultdict(list)
    for key in sorted(todo):
        spec = todo[key]
        groups[(spec.residues, json.dumps(spec.style, sort_keys=True))].append(spec)
    seconds, device_used = 0.0, ""
    shown_cache: dict = {}      # the shown atoms of one (parts, residues) selection, computed once
    for (_residues, _style), group in sorted(groups.items(), key=lambda kv: str(kv[0][0])):
        first = group[0]
        scene_atoms = shown_structure(structure, first.style, ("protein", "ligand"), first.residues)
        renderer = SceneRenderer(scene_atoms, first.style, device)
        device_used = renderer.device
        try:
            for spec in group:
                sel = (spec.parts, spec.residues, _style)
                if sel not in shown_cache:
                    shown_cache[sel] = shown_structure(structure, spec.style, spec.parts, spec.residues)
                shown = shown_cache[sel]
                mats, _ = spec.matrices(shown)
                seconds += render_annotated(renderer, shown, spec, mats, out)[1]
        finally:
            renderer.close()
    return len(todo), seconds, device_used


def process_structure(source: StructureSource, tasks, style, out: Path, split_mode: str, seed: int,
                      device: str, render: bool = True, ligand: str | None = None) -> dict:
    """Plan + render one structure; write its part files. Returns a summary."""
    from ..core.tasks import plan_samples, split_for

    t0 = time.perf_counter()
    part = inside(out, f"{PARTS_DIR}/{source.id}.jsonl")
    failures: list[dict] = []
    samples = []
    try:
        structure = load_structure(source, ligand)
    except InputError as exc:
        failures.append({"structure": source.id, "task": None, "sample": None, "where": str(exc.path),
                         "why": exc.problem})
        structure = None
    if structure is not None:
        split = split_for(source.id, seed) if split_mode == "auto" else split_mode
        for task in tasks:
            try:
                got, failed = plan_samples(task, structure, style, split, seed)
            except InputError as exc:
                got, failed = [], [{"structure": source.id, "task": task.name, "sample": None,
                                    "why": str(exc)}]
            samples += got
            failures += failed
    n_rendered, seconds, device_used = 0, 0.0, ""
    if samples and render:
        try:
            n_rendered, seconds, device_used = render_specs(structure, _all_specs(samples), out, device)
        except Exception as exc:  # a render that fails must not take the batch down with it
            failures.append({"structure": source.id, "task": None, "sample": None,
                             "why": f"render failed: {type(exc).__name__}: {exc}"})
            samples = []
    records = sorted((record_of(s) for s in samples), key=lambda r: r["id"])
    write_text_atomic(part.with_suffix(".failures.jsonl"), "".join(dumps(f) + "\n" for f in failures))
    # The records file is written last: its presence marks the structure as done.
    write_text_atomic(part, "".join(dumps(r) + "\n" for r in records))
    return {"structure": source.id, "records": len(records), "failures": len(failures),
            "images_rendered": n_rendered, "render_seconds": round(seconds, 2), "device": device_used,
            "seconds": round(time.perf_counter() - t0, 2)}


def merge(out: Path, meta: dict) -> dict:
    """Rebuild annotations.jsonl, failures.jsonl and manifest.json from every finished part."""
    from ..core.tasks import answer_distribution

    parts_dir = inside(out, PARTS_DIR)
    records, failures = [], []
    for part in sorted(parts_dir.glob("*.jsonl")):
        if part.name.endswith(".failures.jsonl"):
            failures += [json.loads(l) for l in part.read_text().splitlines() if l.strip()]
        else:
            records += [json.loads(l) for l in part.read_text().splitlines() if l.strip()]
    records.sort(key=lambda r: r["id"])
    failures.sort(key=lambda f: dumps(f))
    write_text_atomic(inside(out, "annotations.jsonl"), "".join(dumps(r) + "\n" for r in records))
    write_text_atomic(inside(out, "failures.jsonl"), "".join(dumps(f) + "\n" for f in failures))
    images = {p for r in records for p in r["images"]} | \
        {p for r in records for p in (r["options"] or []) if str(p).startswith("images/")}
    counts = collections.Counter((r["task"], r["split"]) for r in records)
    manifest = dict(meta)
    manifest.update({
        "counts": {"records": len(records), "images": len(images), "failures": len(failures),
                   "images_per_qa": round(len(images) / len(records), 3) if records else 0.0,
                   "per_task_split": {f"{t}/{s}": n for (t, s), n in sorted(counts.items())}},
        "answer_distribution": answer_distribution(records),
        "annotations_sha256": file_sha256(inside(out, "annotations.jsonl")),
    })
    write_json_atomic(inside(out, "manifest.json"), manifest, indent=1)
    return manifest


def run_generate(suite_path: Path, structure_paths, out: Path, style: dict, split: str = "auto",
                 task_names=None, limit=None, seed: int = 0, device: str = "auto",
                 shard=(0, 1), render: bool = True, progress: bool = True, ligands: dict | None = None,
                 default_ligand: str | None = None) -> dict:
    """``ligands``: structure id → ligand selector (``--ligands FILE``); ``default_ligand`` for the
    others (``--ligand``). Both only matter for PDB/mmCIF inputs whose ligand is a HETATM group."""
    from .. import __version__
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
    sources = sorted(discover(structure_paths), key=lambda s: s.id)
    if limit is not None:
        sources = sources[:limit]
    ligands = dict(ligands or {})
    unknown_ids = sorted(set(ligands) - {s.id for s in sources})
    if unknown_ids:
        print(f"warning: --ligands names {len(unknown_ids)} id(s) that are not among the structures: "
              f"{', '.join(unknown_ids[:10])}", file=sys.stderr)
    ligand_of = {s.id: ligands.get(s.id, default_ligand) for s in sources}
    mine = take_shard(sources, shard)
    out.mkdir(parents=True, exist_ok=True)
    done = {p.stem for p in inside(out, PARTS_DIR).glob("*.jsonl") if not p.name.endswith(".failures.jsonl")} \
        if inside(out, PARTS_DIR).exists() else set()
    todo = [s for s in mine if s.id not in done]
    from ..core.het_ligand import prefetch_templates
    prefetch_templates(todo)      # one CCD read for all HETATM ligands of this run
    summaries, devices = [], set()
    iterator = todo
    if progress:
        from tqdm import tqdm
        iterator = tqdm(todo, desc="structures", unit="structure", file=sys.stderr, disable=not todo)
    for source in iterator:
        summary = process_structure(source, tasks, style, out, split, seed, device, render,
                                    ligand_of[source.id])
        summaries.append(summary)
        if summary["device"]:
            devices.add(summary["device"])
    previous = inside(out, "manifest.json")
    if previous.exists():  # a resumed run keeps the devices that rendered the earlier images
        try:
            devices |= set(json.loads(previous.read_text()).get("device", []))
        except ValueError:
            pass
    blender = ""
    if render:
        try:
            from ..render.renderer import blender_version
            blender = blender_version()
        except ImportError:
            blender = "not available"
    meta = {
        "tool": "misigen", "version": __version__, "blender": blender, "device": sorted(devices),
        "seed": seed, "split": split, "shard": f"{shard[0]}/{shard[1]}",
        "suite": str(suite_path), "tasks": [t.name for t in tasks],
        "spec_sha256": {t.name: t.spec_hash for t in tasks},
        "style_sha256": style_hash(style),
        "inputs": {s.id: {"files": [Path(p).name for p in (s.protein, s.ligand) if p],
                          "sha256": hashlib.sha256(b"".join(file_sha256(p).encode()
                                                            for p in (s.protein, s.ligand) if p)).hexdigest(),
                          **({"ligand": ligand_of[s.id]} if ligand_of[s.id] and s.ligand is None else {})}
                   for s in sources},
        "this_run": {"structures": len(summaries), "skipped_as_done": len(mine) - len(todo),
                     "images_rendered": sum(s["images_rendered"] for s in summaries),
                     "render_seconds": round(sum(s["render_seconds"] for s in summaries), 2)},
    }
    return merge(out, meta)
