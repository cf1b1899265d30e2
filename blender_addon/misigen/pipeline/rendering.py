"""Rendering planned views: one scene per group of renders that share it, each image written
with its sidecar annotation. ``generate``, ``generate --dry-run``, the ``render`` command and
``api.render_sample`` all render through ``render_group``.
"""
from __future__ import annotations

import collections
import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core.scene.camera import Camera
from ..core.scene.scene_plan import RenderSpec, annotate, shown_structure
from ..core.structure.model import Structure
from . import signals
from .output import dumps, fatal_output_error, inside, write_bytes_atomic, write_json_atomic
from .progress import stage

SCENE_PARTS = ("protein", "ligand")       # a scene holds both parts; a render hides what it omits

_renderer_factory = None                  # None: Blender's SceneRenderer


def use_renderer(factory):
    """Make ``open_renderer`` build its renderers with ``factory(shown_atoms, style, device)`` (None:
    Blender's); returns the factory it replaces. The seam a benchmark uses to stand in for Cycles:
    the object needs SceneRenderer's ``render_raw``, ``finish``, ``labelling``, ``close``, ``device``
    and ``cycles_seconds``."""
    global _renderer_factory
    previous, _renderer_factory = _renderer_factory, factory
    return previous


def open_renderer(shown_atoms, style: dict, device: str = "auto"):
    """A Blender scene of ``shown_atoms``; use as a context manager (the scene is removed on exit)."""
    if _renderer_factory is not None:
        return _renderer_factory(shown_atoms, style, device)
    from ..render.renderer import SceneRenderer  # bpy only when something is rendered
    return SceneRenderer(shown_atoms, style, device)


@dataclass(frozen=True)
class RenderCounts:
    """What some renders did: images made, their seconds (whole render calls, scene building
    left out), the seconds inside Cycles, the device. Adds up with ``+``."""
    images: int = 0
    seconds: float = 0.0
    cycles_seconds: float = 0.0
    device: str = ""

    def __add__(self, other: "RenderCounts") -> "RenderCounts":
        return RenderCounts(self.images + other.images, self.seconds + other.seconds,
                            self.cycles_seconds + other.cycles_seconds, other.device or self.device)


@dataclass(frozen=True)
class ImageJob:
    """One image to render and the files that go with it: all the renderer needs of its plan.
    Planning makes it (its sidecar already encoded), so nothing else is computed where Blender runs."""
    name: str                      # the file name without .png (the render key, or a view's name)
    camera: Camera
    mats: dict                     # part -> 4×4 matrix posing it
    parts: tuple                   # the parts shown
    labels: tuple                  # the labels drawn (the sidecar's)
    marks: dict                    # what is drawn besides labels: "scale_bar", "marker" (the sidecar's; None: not drawn)
    sidecar: bytes                 # the sidecar file, as written


def encode_sidecar(sidecar: dict) -> bytes:
    return (dumps(sidecar) + "\n").encode("utf-8")


def image_job(shown, spec: RenderSpec, mats: dict, extra: dict | None = None, name: str | None = None,
              known: dict | None = None) -> ImageJob:
    """The job of one image: its sidecar is ``known`` (planning made it) or made here, with ``extra`` keys."""
    sidecar = dict(known) if known is not None else annotate(shown, spec, mats)
    sidecar.update(extra or {})
    labels = tuple(dict(lab) for lab in sidecar["labels"])
    marks = {k: dict(sidecar[k]) if sidecar.get(k) else None for k in ("scale_bar", "marker")}
    return ImageJob(name or spec.key(), spec.camera, mats, tuple(spec.parts), labels, marks, encode_sidecar(sidecar))


@dataclass(frozen=True)
class PlannedScene:
    """The images of one Blender scene: one structure, shown residue set and style."""
    key: tuple                     # (structure id, residues, style as JSON): how renders share a scene
    atoms: Structure               # what the scene holds (both parts; a render hides what it omits)
    style: dict
    images: tuple                  # ImageJobs, by name

    @property
    def order(self) -> tuple:
        return self.key[0], str(self.key[1])


def scene_key(spec: RenderSpec) -> tuple:
    return spec.structure_id, spec.residues, json.dumps(spec.style, sort_keys=True)


def plan_scenes(structures: dict, specs, sidecar_of) -> tuple:
    """The PlannedScenes of ``specs`` (RenderSpecs of images of ``structures``: id -> Structure),
    each image's sidecar ``sidecar_of(spec)``; in the order ``render_specs`` renders them."""
    groups: dict = collections.defaultdict(list)
    for spec in sorted(specs, key=RenderSpec.key):
        groups[scene_key(spec)].append(spec)
    scenes = []
    for key, group in groups.items():
        structure, first = structures[key[0]], group[0]
        atoms = shown_structure(structure, first.style, SCENE_PARTS, first.residues)
        jobs = []
        for spec in group:
            shown = shown_structure(structure, spec.style, spec.parts, spec.residues)
            jobs.append(image_job(shown, spec, spec.matrices(shown)[0], known=sidecar_of(spec)))
        # the RDKit ligand is planning's; a scene needs atoms, bonds and colours
        scenes.append(PlannedScene(key, replace(atoms, ligand_mol=None), first.style, tuple(jobs)))
    return tuple(sorted(scenes, key=lambda sc: sc.order))


def merge_scenes(scenes) -> list:
    """Scenes of several planned tasks as one list: those sharing a key become one (each image once)."""
    merged: dict = {}
    for scene in scenes:
        if scene.key in merged:
            have = merged[scene.key]
            known = {job.name for job in have.images}
            extra = tuple(job for job in scene.images if job.name not in known)
            if extra:
                merged[scene.key] = replace(have, images=tuple(sorted(have.images + extra, key=lambda j: j.name)))
        else:
            merged[scene.key] = scene
    return sorted(merged.values(), key=lambda sc: sc.order)


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


def _finish(renderer, raw: Path, png: Path, job: ImageJob) -> float:
    t0 = time.perf_counter()
    renderer.finish(raw, png, list(job.labels), job.camera, job.marks)
    write_bytes_atomic(png.with_suffix(".json"), job.sidecar)      # last: an image counts once both exist
    return time.perf_counter() - t0


@dataclass(frozen=True)
class ImageFinish:
    """``_finish`` of one image as values, for a planning process to do (``planners.Finishing``):
    ``image`` (the renderer's ``labelling``: labels drawn, PNG written, raw render removed), then
    the sidecar file, last."""
    image: object                  # render.overlay.LabelledImage
    sidecar: bytes

    def run(self) -> None:
        png = Path(self.image.png)
        # done again after the process doing it died: its PNG may be written and its raw render gone
        if Path(self.image.raw).exists() or not png.exists():
            self.image.write()
        write_bytes_atomic(png.with_suffix(".json"), self.sidecar)


def finish_images(finishing, out: Path) -> None:
    """Wait until every image handed to ``finishing`` is finished; an error of one is raised here
    as ``_render_loop`` raises it (a full disk stops the run). A stop signal waits for them as for
    a render (or cuts the run short, the finishing processes stopped first)."""
    try:
        with signals.rendering(cleanup=finishing.halt):
            finishing.wait()
    except OSError as exc:
        raise (fatal_output_error(inside(out, "images"), exc) or exc) from None


def render_many(renderer, jobs, out: Path, seconds: list | None = None, on_image=None,
                names: list | None = None) -> list[Path]:
    """Render ``jobs`` ((shown, spec, mats, extra keys of the sidecar) each) in one scene, back to
    back, each PNG with its sidecar; returns the PNG paths (``seconds``, if given, gets each
    image's seconds on this thread: posing and Cycles, plus any wait for the helpers;
    ``on_image(k)`` is called before image k; ``names``, if given, the file names without .png,
    else each spec's key). ``render_jobs`` does the same for ImageJobs that planning made.

    Cycles releases Python's lock while it renders, so two helper threads do the work around
    it meanwhile: the next image's sidecar (projection, visibility, label layout) and the
    previous image's labels, PNG and sidecar file (zlib and Pillow release the lock too). Only
    Blender's calls stay on this thread, so on a GPU nearly all per-image work outside Cycles is
    hidden. At most one image is drawn at a time (one font); sidecars do not depend on the order.
    Fed by planning processes (``render_jobs`` with ``finishing``), those do the labels, PNG and
    sidecar file instead, and this process keeps only Blender's calls.

    A stop signal waits for the image in flight (or cuts the render short, removing the temp
    files of the images not yet finished: signals.py); a full disk stops the run.
    """
    jobs = list(jobs)
    names = names or [spec.key() for _shown, spec, _mats, _extra in jobs]

    def make(helper, k: int):
        return helper.submit(image_job, *jobs[k], names[k])
    return _render_loop(renderer, [inside(out, f"images/{name}.png") for name in names], make, seconds, on_image)


def render_jobs(renderer, jobs, out: Path, seconds: list | None = None, on_image=None,
                finishing=None) -> list[Path]:
    """``render_many`` of ImageJobs made by planning (sidecars encoded already). With
    ``finishing`` (``planners.Finishing``), each image's labels, PNG and sidecar are handed to it
    (the planning processes) instead of this process's helper threads; it returns before they are
    done (``finish_images`` waits for them)."""
    from concurrent.futures import Future

    jobs = list(jobs)

    def ready(_helper, k: int):
        done: Future = Future()
        done.set_result(jobs[k])
        return done
    return _render_loop(renderer, [inside(out, f"images/{job.name}.png") for job in jobs], ready, seconds, on_image,
                        finishing)


def _render_loop(renderer, pngs: list, make, seconds, on_image, finishing=None) -> list[Path]:
    """The loop of ``render_many``: ``make(helper, k)`` is a future of image k's ImageJob; each
    image is finished on a helper thread, or by ``finishing`` where given."""
    from concurrent.futures import ThreadPoolExecutor

    if not pngs:
        return pngs
    pngs[0].parent.mkdir(parents=True, exist_ok=True)

    def cleanup():
        for png in pngs:
            signals.remove_hidden_named_after(png)

    def cut_short():
        if finishing is not None:
            finishing.halt()          # the processes finishing images write no more, their temp files go
        cleanup()

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="misigen-sidecar") as helper:
        next_job = make(helper, 0)
        writing = None
        try:
            for k in range(len(pngs)):
                if on_image is not None:
                    on_image(k)
                t0 = time.perf_counter()
                with signals.rendering(cleanup=cut_short):
                    job = next_job.result()
                    if k + 1 < len(pngs):
                        next_job = make(helper, k + 1)
                    raw = renderer.render_raw(job.camera, job.mats, pngs[k], job.parts)
                    if finishing is not None:
                        image = renderer.labelling(raw, pngs[k], job.labels, job.camera, job.marks)
                        finishing.submit(ImageFinish(image, job.sidecar))
                    else:
                        if writing is not None:
                            writing.result()                     # its errors surface here
                        writing = helper.submit(_finish, renderer, raw, pngs[k], job)
                if seconds is not None:
                    seconds.append(time.perf_counter() - t0)
            if writing is not None:
                with signals.rendering(cleanup=cut_short):
                    writing.result()
                writing = None
        except OSError as exc:            # a full disk stops the run; the unfinished images' temp files go
            if writing is not None:
                writing.exception()
                writing = None
            if finishing is not None:
                finishing.abandon()
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
                 names: list | None = None) -> GroupRendered:
    """Open one renderer for ``specs`` (same structure, residue set and style: one scene),
    render each to ``out/images`` with its sidecar (``extra[i]``: more sidecar keys; ``names[i]``:
    the file name without .png, default the spec's key), close it."""
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
                                  names=names)
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


def _on_disk(out: Path, name: str) -> bool:
    return inside(out, f"images/{name}.png").exists() and inside(out, f"images/{name}.json").exists()


def render_specs(structures: dict, specs: dict[str, RenderSpec], out: Path, device: str) -> RenderCounts:
    """Render the specs not yet on disk; one scene per (structure, shown residue set, style).
    ``structures``: structure id → Structure (a sample may show a partner complex)."""
    todo = {k: s for k, s in specs.items() if not _on_disk(out, k)}
    groups = collections.defaultdict(list)
    for key in sorted(todo):
        groups[scene_key(todo[key])].append(todo[key])
    done = RenderCounts()
    for (sid, _residues, _style), group in sorted(groups.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        rendered = render_group(structures[sid], group, out, device)
        done += RenderCounts(len(group), sum(rendered.wall_seconds), rendered.cycles_seconds, rendered.device)
    return done


def render_scene(scene: PlannedScene, out: Path, device: str, finishing=None) -> RenderCounts:
    """Render the images of one planned scene that are not yet on disk, in one Blender scene
    (``finishing``: as ``render_jobs``)."""
    todo = [job for job in scene.images if not _on_disk(out, job.name)]
    if not todo:
        return RenderCounts()
    sid = scene.key[0]
    stage(f"{sid}: building the scene ({scene.atoms.n_atoms} atoms)")
    renderer = open_renderer(scene.atoms, scene.style, device)
    try:
        t0 = time.perf_counter()
        render_jobs(renderer, todo, out, on_image=lambda k: stage(f"{sid}: rendering {k + 1}/{len(todo)}"),
                    finishing=finishing)
        seconds = time.perf_counter() - t0
    finally:
        device, cycles = renderer.device, renderer.cycles_seconds
        renderer.close()
    return RenderCounts(len(todo), seconds, cycles, device)


def render_scenes(scenes, out: Path, device: str, finishing=None) -> RenderCounts:
    done = RenderCounts()
    for scene in scenes:
        done += render_scene(scene, out, device, finishing)
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
    return {"record": record_path, "images": [out / p for p in rec["images"]], "rendered": done.images,
            "seconds": done.seconds, "device": done.device}
