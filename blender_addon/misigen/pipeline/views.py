"""The ``render`` command: named views of one structure (one camera frames them all), each
image ``images/<id>_<view>[_<n>].png`` with its sidecar annotation ``.json`` beside it."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from ..core.scene import geometry
from ..core.scene.camera import frame_points
from ..core.errors import InputError
from ..core.failures import Failure
from ..core.op_grammar import parse_ops
from ..core.structure.loader import StructureSource, load_structure
from ..core.structure.readers import DEFAULT_READ
from ..core.scene.scene_plan import RenderSpec, part_matrices, posed_coords, shown_structure
from ..core.look.style import atom_radii
from ..version import __version__
from . import summaries
from .output import append_jsonl, write_json_atomic
from .rendering import render_group


def plan_views(shown, style, views, transform: str | None, labels: bool = True) -> list[tuple]:
    """One (view, RenderSpec, part matrices) per view; a single camera frames all of them."""
    extra = parse_ops(transform) if transform else []
    posed = []
    for view in views:
        ops = {"all": geometry.view_ops(view) + extra}
        mats, _ = part_matrices(shown, ops)
        posed.append((view, ops, mats))
    cam_cfg, (w, h) = style["camera"], style["render"]["resolution"]
    radii = atom_radii(shown, style)
    all_points = np.vstack([posed_coords(shown, mats) for _, _, mats in posed])
    camera = frame_points(all_points, np.tile(radii, len(posed)), int(w), int(h),
                          cam_cfg["projection"], float(cam_cfg["fov_deg"]), float(cam_cfg["margin"]))
    return [(view, RenderSpec(shown.id, camera, style, ops, labels=labels), mats) for view, ops, mats in posed]


def view_image_names(structure_id: str, views, keys, images: Path) -> list[str]:
    """File names (no .png) for the views of one structure: ``<id>_<view>``, or ``<id>_<view>_<n>``
    (n = 2, 3 …) when that name already holds another render (the view asked twice with a different
    result, or an earlier ``render`` into the same folder with another transform or style). The same
    render again keeps its name, so running a command twice rewrites the same files."""
    taken: dict = {}

    def holder(name: str) -> str | None:
        if name in taken:
            return taken[name]
        try:
            return json.loads((Path(images) / f"{name}.json").read_text()).get("key")
        except (OSError, ValueError, AttributeError):
            return None

    names = []
    for view, key in zip(views, keys):
        base, n = f"{structure_id}_{view}", 1
        name = base
        while holder(name) not in (None, key):
            n += 1
            name = f"{base}_{n}"
        taken[name] = key
        names.append(name)
    return names


def render_structure_views(source: StructureSource, style: dict, out: Path, views, transform=None,
                           ligand=None, device="auto", labels=True) -> dict:
    """Render ``views`` of one structure into ``out/images``; return a summary for the manifest."""
    t0 = time.perf_counter()
    structure = load_structure(source, ligand)
    shown = shown_structure(structure, style)
    t_load = time.perf_counter() - t0
    planned = plan_views(shown, style, views, transform, labels)
    names = view_image_names(structure.id, [v for v, _, _ in planned], [spec.key() for _, spec, _ in planned],
                             Path(out) / "images")
    done = render_group(structure, [spec for _, spec, _ in planned], out, device, names=names,
                        extra=[{"view": view, "transform": transform or ""} for view, _, _ in planned])
    images = [{"view": view, "image": f"images/{png.name}", "seconds": round(seconds, 3)}
              for (view, _, _), png, seconds in zip(planned, done.images, done.seconds)]
    return {"structure": structure.id, "atoms_shown": shown.n_atoms, "device": done.device,
            "load_seconds": round(t_load, 3), "build_seconds": round(done.build_seconds, 3), "images": images}


def render_views_folder(sources, unreadable, style: dict, out: Path, views, transform=None, ligand=None,
                        device="auto", labels=True, reading=None) -> tuple[list, int]:
    """The ``render`` command's folder: every structure's views, a line in ``failures.jsonl`` for each
    input that could not be read or rendered (the others go on), and ``manifest.json``.
    Returns (the rendered structures' summaries, the number of failures)."""
    from ..render.renderer import blender_version

    out = Path(out)
    failures = 0
    for u in unreadable:                       # recorded, and the others are rendered
        failures += 1
        print(f"failed: {u.path}: {u.why}", file=sys.stderr)
        append_jsonl(out / "failures.jsonl", Failure(None, u.why, where=str(u.path), kind="unreadable").as_dict())
    done = []
    for source in sources:
        try:
            summary = render_structure_views(source, style, out, views, transform, ligand, device, labels=labels)
        except (InputError, ValueError) as exc:
            failures += 1
            print(f"failed: {source.id}: {exc}", file=sys.stderr)
            append_jsonl(out / "failures.jsonl", Failure(source.id, str(exc), where=str(source.protein)).as_dict())
            continue
        done.append(summary)
        summaries.print_render_summary(summary)
    write_json_atomic(out / "manifest.json", {
        "tool": "misigen", "version": __version__, "blender": blender_version(),
        "device": sorted({s["device"] for s in done}), "command": "render",
        "views": list(views), "transform": transform or "", "reading": (reading or DEFAULT_READ).as_dict(),
        "structures": done,
        "failures": failures, "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }, indent=1)
    return done, failures
