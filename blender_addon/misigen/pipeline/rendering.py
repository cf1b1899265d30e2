"""Rendering planned views: one scene per group of renders that share it, each image written
with its sidecar annotation. ``generate``, ``generate --dry-run``, the ``render`` command and
``api.render_sample`` all render through ``render_group``.
"""
from __future__ import annotations

import collections
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..core.scene_plan import RenderSpec, annotate, shown_structure
from . import signals
from .output import fatal_output_error, inside, write_json_atomic
from .progress import stage

SCENE_PARTS = ("protein", "ligand")       # a scene holds both parts; a render hides what it omits


def open_renderer(shown_atoms, style: dict, device: str = "auto"):
    """A Blender scene of ``shown_atoms``; use as a context manager (the scene is removed on exit)."""
    from ..render.renderer import SceneRenderer  # bpy only when something is rendered
    return SceneRenderer(shown_atoms, style, device)


def render_annotated(renderer, shown, spec: RenderSpec, mats: dict, out: Path, **extra) -> tuple[Path, float]:
    """Render one spec to ``out/images/<key>.png`` and write its sidecar (with ``extra`` keys).

    The one place that pairs an image with its annotation. Returns the PNG path and the
    render seconds.
    """
    sidecar = annotate(shown, spec, mats)
    sidecar.update(extra)
    png = inside(out, f"images/{spec.key()}.png")
    png.parent.mkdir(parents=True, exist_ok=True)
    # A stop signal waits for the image and its sidecar (or cuts the render short: signals.py).
    with signals.rendering(cleanup=lambda: signals.remove_hidden_named_after(png)):
        try:
            seconds = renderer.render(spec.camera, mats, png, sidecar["labels"], spec.parts)
            write_json_atomic(png.with_suffix(".json"), sidecar)
        except OSError as exc:            # a full disk stops the run; the image's temp files go
            signals.remove_hidden_named_after(png)
            raise (fatal_output_error(png, exc) or exc) from None
    return png, seconds


@dataclass
class GroupRendered:
    """What one ``render_group`` call did."""
    device: str = ""
    build_seconds: float = 0.0                         # building the scene
    images: list = field(default_factory=list)         # PNG paths, in spec order
    seconds: list = field(default_factory=list)        # per image: the render call
    wall_seconds: list = field(default_factory=list)   # per image: posing, render, sidecar
    cycles_seconds: float = 0.0                        # Cycles alone, the whole group


def render_group(structure, specs: list, out: Path, device: str, extra: list | None = None,
                 shown_cache: dict | None = None) -> GroupRendered:
    """Open one renderer for ``specs`` (same structure, residue set and style: one scene),
    render each to ``out/images`` with its sidecar (``extra[i]``: more sidecar keys), close it.
    ``shown_cache`` keeps the shown atoms of each selection across groups."""
    first = specs[0]
    shown_cache = {} if shown_cache is None else shown_cache
    style_key = json.dumps(first.style, sort_keys=True)
    done = GroupRendered()
    t0 = time.perf_counter()
    scene_atoms = shown_structure(structure, first.style, SCENE_PARTS, first.residues)
    stage(f"{structure.id}: building the scene ({scene_atoms.n_atoms} atoms)")
    renderer = open_renderer(scene_atoms, first.style, device)
    done.build_seconds, done.device = time.perf_counter() - t0, renderer.device
    try:
        for i, spec in enumerate(specs):
            stage(f"{structure.id}: rendering {i + 1}/{len(specs)}")
            t1 = time.perf_counter()
            sel = (structure.id, spec.parts, spec.residues, style_key)
            if sel not in shown_cache:
                shown_cache[sel] = shown_structure(structure, spec.style, spec.parts, spec.residues)
            shown = shown_cache[sel]
            png, seconds = render_annotated(renderer, shown, spec, spec.matrices(shown)[0], out,
                                            **(extra[i] if extra else {}))
            done.images.append(png)
            done.seconds.append(seconds)
            done.wall_seconds.append(time.perf_counter() - t1)
    finally:
        done.device = renderer.device
        done.cycles_seconds = renderer.cycles_seconds
        renderer.close()
    return done


def all_specs(samples) -> dict[str, RenderSpec]:
    """Every distinct render of ``samples`` by key (an image shared by several samples once)."""
    specs: dict[str, RenderSpec] = {}
    for s in samples:
        for spec in s.render_specs():
            specs.setdefault(spec.key(), spec)
    return specs


def render_specs(structures: dict, specs: dict[str, RenderSpec], out: Path, device: str) -> dict:
    """Render the specs not yet on disk; one scene per (structure, shown residue set, style).
    ``structures``: structure id → Structure (a sample may show a partner complex).

    Returns {"images", "seconds" (whole render calls), "cycles_seconds" (Cycles alone), "device"}.
    """
    todo = {k: s for k, s in specs.items()
            if not (inside(out, f"images/{k}.png").exists() and inside(out, f"images/{k}.json").exists())}
    done = {"images": len(todo), "seconds": 0.0, "cycles_seconds": 0.0, "device": ""}
    groups = collections.defaultdict(list)
    for key in sorted(todo):
        spec = todo[key]
        groups[(spec.structure_id, spec.residues, json.dumps(spec.style, sort_keys=True))].append(spec)
    shown_cache: dict = {}      # the shown atoms of one (structure, parts, residues) selection, computed once
    for (sid, _residues, _style), group in sorted(groups.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        rendered = render_group(structures[sid], group, out, device, shown_cache=shown_cache)
        done["device"] = rendered.device
        done["seconds"] += sum(rendered.seconds)
        done["cycles_seconds"] += rendered.cycles_seconds
    return done


def render_sample(structure, sample, out: str | Path, device: str = "auto", others: dict | None = None) -> dict:
    """Render a sample's images and option images (each with its sidecar) into ``out/images``
    and write its record to ``out/samples/<id>.json``; images already there are kept.
    ``others``: id → Structure of the other complexes a sample shows (T5's partner)."""
    out = Path(out)
    specs = {s.key(): s for s in sample.render_specs()}
    done = render_specs({structure.id: structure, **(others or {})}, specs, out, device)
    rec = sample.as_record()
    record_path = inside(out, f"samples/{sample.id}.json")
    record_path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(record_path, rec, indent=1)
    return {"record": record_path, "images": [out / p for p in rec["images"]], "rendered": done["images"],
            "seconds": done["seconds"], "device": done["device"]}
