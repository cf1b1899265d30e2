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
from .dataset_card import input_notices, write_dataset_card
from .output import dumps, file_sha256, inside, write_json_atomic, write_text_atomic
from .shards import take_shard

PARTS_DIR = "parts"


def _all_specs(samples) -> dict[str, RenderSpec]:
    specs: dict[str, RenderSpec] = {}
    for s in samples:
        for spec in s.render_specs():
            specs.setdefault(spec.key(), spec)
    return specs


def render_specs(structures: dict, specs: dict[str, RenderSpec], out: Path, device: str) -> tuple[int, float, str]:
    """Render the specs not yet on disk; one scene per (structure, shown residue set).
    ``structures``: structure id → Structure (a sample may show a partner complex).
    Returns (n, seconds, device)."""
    todo = {k: s for k, s in specs.items()
            if not (inside(out, f"images/{k}.png").exists() and inside(out, f"images/{k}.json").exists())}
    if not todo:
        return 0, 0.0, ""
    from ..render.renderer import SceneRenderer  # bpy only when something must be rendered
    from .render_job import render_annotated

    groups = collections.defaultdict(list)
    for key in sorted(todo):
        spec = todo[key]
        groups[(spec.structure_id, spec.residues, json.dumps(spec.style, sort_keys=True))].append(spec)
    seconds, device_used = 0.0, ""
    shown_cache: dict = {}      # the shown atoms of one (structure, parts, residues) selection, computed once
    for (sid, _residues, _style), group in sorted(groups.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        structure = structures[sid]
        first = group[0]
        scene_atoms = shown_structure(structure, first.style, ("protein", "ligand"), first.residues)
        renderer = SceneRenderer(scene_atoms, first.style, device)
        device_used = renderer.device
        try:
            for spec in group:
                sel = (sid, spec.parts, spec.residues, _style)
                if sel not in shown_cache:
                    shown_cache[sel] = shown_structure(structure, spec.style, spec.parts, spec.residues)
                shown = shown_cache[sel]
                mats, _ = spec.matrices(shown)
                seconds += render_annotated(renderer, shown, spec, mats, out)[1]
        finally:
            renderer.close()
    return len(todo), seconds, device_used


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


def process_structure(source: StructureSource, tasks, style, out: Path, split_mode: str, seed: int,
                      device: str, render: bool = True, ligand: str | None = None,
                      catalog: dict | None = None, ligands: dict | None = None) -> dict:
    """Plan + render one structure; write its part files. Returns a summary.

    ``ligand``: this structure's ligand selector (PDB/mmCIF HETATM inputs). ``catalog``: every
    structure of the run (id → StructureSource, sorted, before sharding) and ``ligands`` their
    selectors, so tasks that pair complexes (T5) load the same partner however the work is split."""
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
    loaded = {source.id: structure} if structure is not None else {}
    if structure is not None:
        test_fraction = tasks[0].suite.get("test_fraction", 490 / 3993) if tasks else 490 / 3993
        split = split_for(source.id, seed, test_fraction) if split_mode == "auto" else split_mode
        partners = partner_catalog(catalog or {source.id: source}, split_mode, seed, test_fraction, loaded,
                                   ligands)
        for task in tasks:
            try:
                got, failed = plan_samples(task, structure, style, split, seed, partners)
            except InputError as exc:
                got, failed = [], [{"structure": source.id, "task": task.name, "sample": None,
                                    "why": str(exc)}]
            samples += got
            failures += failed
    n_rendered, seconds, device_used = 0, 0.0, ""
    if samples and render:
        try:
            n_rendered, seconds, device_used = render_specs(loaded, _all_specs(samples), out, device)
        except Exception as exc:  # a render that fails must not take the batch down with it
            failures.append({"structure": source.id, "task": None, "sample": None,
                             "why": f"render failed: {type(exc).__name__}: {exc}"})
            samples = []
    records = sorted((s.as_record() for s in samples), key=lambda r: r["id"])
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
    write_dataset_card(out, manifest)
    return manifest


def run_generate(suite_path: Path, structure_paths, out: Path, style: dict, split: str = "auto",
                 task_names=None, limit=None, seed: int = 0, device: str = "auto",
                 shard=(0, 1), render: bool = True, progress: bool = True, ligands: dict | None = None,
                 default_ligand: str | None = None, audit: bool = True) -> dict:
    """``ligands``: structure id → ligand selector (``--ligands FILE``); ``default_ligand`` for the
    others (``--ligand``). Both only matter for PDB/mmCIF inputs whose ligand is a HETATM group.
    ``audit``: run the blind-baseline audit at the end and store its summary in the manifest."""
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
    catalog = {s.id: s for s in sources}
    for source in iterator:
        summary = process_structure(source, tasks, style, out, split, seed, device, render,
                                    ligand_of[source.id], catalog=catalog, ligands=ligand_of)
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
        "input_notices": input_notices(structure_paths),
        "inputs": {s.id: {"files": [Path(p).name for p in (s.protein, s.ligand) if p],
                          "sha256": hashlib.sha256(b"".join(file_sha256(p).encode()
                                                            for p in (s.protein, s.ligand) if p)).hexdigest(),
                          **({"ligand": ligand_of[s.id]} if ligand_of[s.id] and s.ligand is None else {})}
                   for s in sources},
        "audit_settings": tasks[0].suite.get("audit", {}) if tasks else {},
        "this_run": {"structures": len(summaries), "skipped_as_done": len(mine) - len(todo),
                     "images_rendered": sum(s["images_rendered"] for s in summaries),
                     "render_seconds": round(sum(s["render_seconds"] for s in summaries), 2)},
    }
    manifest = merge(out, meta)
    if audit and manifest["counts"]["records"]:
        from .audit import audit_dataset, audit_summary
        manifest["audit"] = audit_summary(audit_dataset(out, meta["audit_settings"]))
        write_json_atomic(inside(out, "manifest.json"), manifest, indent=1)
        write_dataset_card(out, manifest)
    return manifest
