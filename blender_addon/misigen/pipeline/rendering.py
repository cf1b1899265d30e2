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


def render_annotated(renderer, shown, spec: RenderSpec, mats: dict, out: Path, name: str | None = None,
                     **extra) -> tuple[Path, float]:
    """Render one spec to ``out/images/<name>.png`` (default name: the spec's key) and write its
    sidecar beside it (with ``extra`` keys).

    The one place that pairs an image with its annotation (``render_many`` for several).
    Returns the PNG path and the render seconds.
    """
    t0 = time.perf_counter()
    png = render_many(renderer, [(shown, spec, mats, extra)], out, names=[name] if name else None)[0]
    return png, time.perf_counter() - t0


def _image_path(out: Path, spec: RenderSpec, name: str | None = None) -> Path:
    png = inside(out, f"images/{name or spec.key()}.png")
    png.parent.mkdir(parents=True, exist_ok=True)
    return png


def _sidecar(shown, spec, mats, extra, known: dict | None = None) -> dict:
    """The sidecar of one image: ``known`` (planning computed it already) or made now, with ``extra``."""
    sidecar = dict(known) if known is not None else annotate(shown, spec, mats)
    sidecar.update(extra or {})
    return sidecar


def _finish(renderer, raw: Path, png: Path, sidecar: dict, spec: RenderSpec) -> float:
    t0 = time.perf_counter()
    renderer.finish(raw, png, sidecar["labels"], spec.camera, sidecar["scale_bar"])
    write_json_atomic(png.with_suffix(".json"), sidecar)      # last: an image counts once both exist
    return time.perf_counter() - t0


def render_many(renderer, jobs, out: Path, seconds: list | None = None, on_image=None,
                names: list | None = None, sidecars: dict | None = None) -> list[Path]:
    """Render ``jobs`` ((shown, spec, mats, extra keys of the sidecar) each) in one scene, back to
    back, each PNG with its sidecar; returns the PNG paths (``seconds``, if given, gets each
    image's seconds on this thread: posing and Cycles, plus any wait for the helpers;
    ``on_image(k)`` is called before image k; ``names``, if given, the file names without .png,
    else each spec's key; ``sidecars``: render key -> sidecar already made by planning, used as is).

    Cycles releases Python's lock while it renders, so two helper threads do the work around
    it meanwhile: the next image's sidecar (projection, visibility, label layout) and the
    previous image's labels, PNG and sidecar file (zlib and Pillow release the lock too). Only
    Blender's calls stay on this thread, so on a GPU nearly all per-image work outside Cycles is
    hidden. At most one image is drawn at a time (one font); sidecars do not depend on the order.

    A stop signal waits for the image in flight (or cuts the render short, removing the temp
    files of the images not yet finished: signals.py); a full disk stops the run.
    """
    from concurrent.futures import ThreadPoolExecutor

    jobs = list(jobs)
    pngs = [_image_path(out, job[1], names[k] if names else None) for k, job in enumerate(jobs)]
    if not jobs:
        return pngs

    def cleanup():
        for png in pngs:
            signals.remove_hidden_named_after(png)

    def sidecar_of(k: int):
        known = sidecars.get(jobs[k][1].key()) if sidecars else None
        return helper.submit(_sidecar, *jobs[k], known)

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="misigen-sidecar") as helper:
        next_sidecar = sidecar_of(0)
        writing = None
        try:
            for k, (_shown, spec, mats, _extra) in enumerate(jobs):
                if on_image is not None:
                    on_image(k)
                t0 = time.perf_counter()
                with signals.rendering(cleanup=cleanup):
                    sidecar = next_sidecar.result()
                    if k + 1 < len(jobs):
                        next_sidecar = sidecar_of(k + 1)
                    raw = renderer.render_raw(spec.camera, mats, pngs[k], spec.parts)
                    if writing is not None:
                        writing.result()                     # its errors surface here
                    writing = helper.submit(_finish, renderer, raw, pngs[k], sidecar, spec)
                if seconds is not None:
                    seconds.append(time.perf_counter() - t0)
            with signals.rendering(cleanup=cleanup):
                writing.result()
            writing = None
        except OSError as exc:            # a full disk stops the run; the unfinished images' temp files go
            if writing is not None:
                writing.exception()
                writing = None
            cleanup()
            raise (fatal_output_error(pngs[0].parent, exc) or exc) from None
        finally:
            if writing is not None:                      # an error above: let the last write end
                writing.exception()
    return pngs


@dataclass
class GroupRendered:
    """What one ``render_group`` call did."""
    device: str = ""
    build_seconds: float = 0.0                         # building the scene
    images: list = field(default_factory=list)         # PNG paths, in spec order
    seconds: list = field(default_factory=list)        # per image: posing, Cycles and waits on this thread
    wall_seconds: list = field(default_factory=list)   # per image: an even share of the group's wall time
    cycles_seconds: float = 0.0                        # Cycles alone, the whole group


def render_group(structure, specs: list, out: Path, device: str, extra: list | None = None,
                 names: list | None = None, sidecars: dict | None = None) -> GroupRendered:
    """Open one renderer for ``specs`` (same structure, residue set and style: one scene),
    render each to ``out/images`` with its sidecar (``extra[i]``: more sidecar keys; ``names[i]``:
    the file name without .png, default the spec's key), close it.
    ``sidecars``: render key -> sidecar made while planning (``core.teaching``), written as is."""
    first = specs[0]
    done = GroupRendered()
    t0 = time.perf_counter()
    scene_atoms = shown_structure(structure, first.style, SCENE_PARTS, first.residues)
    stage(f"{structure.id}: building the scene ({scene_atoms.n_atoms} atoms)")
    renderer = open_renderer(scene_atoms, first.style, device)
    done.build_seconds, done.device = time.perf_counter() - t0, renderer.device
    try:
        jobs = []
        for i, spec in enumerate(specs):
            shown = shown_structure(structure, spec.style, spec.parts, spec.residues)
            jobs.append((shown, spec, spec.matrices(shown)[0], extra[i] if extra else {}))
        t1 = time.perf_counter()
        done.images = render_many(renderer, jobs, out, done.seconds,
                                  on_image=lambda k: stage(f"{structure.id}: rendering {k + 1}/{len(jobs)}"),
                                  names=names, sidecars=sidecars)
        # the images overlap (sidecars and PNGs of one are made while Cycles renders another)
        done.wall_seconds = [(time.perf_counter() - t1) / max(1, len(jobs))] * len(jobs)
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


def render_specs(structures: dict, specs: dict[str, RenderSpec], out: Path, device: str,
                 sidecars: dict | None = None) -> dict:
    """Render the specs not yet on disk; one scene per (structure, shown residue set, style).
    ``structures``: structure id → Structure (a sample may show a partner complex); ``sidecars``:
    render key -> sidecar already made (planning makes every one), so none is made twice.

    Returns {"images", "seconds" (whole render calls), "cycles_seconds" (Cycles alone), "device"}.
    """
    todo = {k: s for k, s in specs.items()
            if not (inside(out, f"images/{k}.png").exists() and inside(out, f"images/{k}.json").exists())}
    done = {"images": len(todo), "seconds": 0.0, "cycles_seconds": 0.0, "device": ""}
    groups = collections.defaultdict(list)
    for key in sorted(todo):
        spec = todo[key]
        groups[(spec.structure_id, spec.residues, json.dumps(spec.style, sort_keys=True))].append(spec)
    for (sid, _residues, _style), group in sorted(groups.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        rendered = render_group(structures[sid], group, out, device, sidecars=sidecars)
        done["device"] = rendered.device
        done["seconds"] += sum(rendered.wall_seconds)
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
