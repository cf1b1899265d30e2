"""The ``render`` command: views of one structure, each with its sidecar annotation."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..core import geometry
from ..core.camera import frame_points
from ..core.op_grammar import parse_ops
from ..core.loader import StructureSource, load_structure
from ..core.scene_plan import RenderSpec, annotate, part_matrices, posed_coords, shown_structure
from ..core.style import atom_radii
from .output import inside, write_json_atomic


def plan_views(shown, style, views, transform: str | None, labels: bool = True) -> list[tuple]:
    """One (RenderSpec, part matrices) per view; a single camera frames all of them."""
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


def render_annotated(renderer, shown, spec: RenderSpec, mats: dict, out: Path, **extra) -> tuple[Path, float]:
    """Render one spec to ``out/images/<key>.png`` and write its sidecar (with ``extra`` keys).

    The one place that pairs an image with its annotation: the CLI, ``generate`` and the
    GUI all render through it. Returns the PNG path and the render seconds.
    """
    sidecar = annotate(shown, spec, mats)
    sidecar.update(extra)
    png = inside(out, f"images/{spec.key()}.png")
    png.parent.mkdir(parents=True, exist_ok=True)
    seconds = renderer.render(spec.camera, mats, png, sidecar["labels"], spec.parts)
    write_json_atomic(png.with_suffix(".json"), sidecar)
    return png, seconds


def render_structure_views(source: StructureSource, style: dict, out: Path, views, transform=None,
                           ligand=None, device="auto", labels=True) -> dict:
    """Render ``views`` of one structure into ``out/images``; return a summary for the manifest."""
    from ..render.renderer import SceneRenderer  # bpy only when rendering

    t0 = time.perf_counter()
    structure = load_structure(source, ligand)
    shown = shown_structure(structure, style)
    t_load = time.perf_counter() - t0
    planned = plan_views(shown, style, views, transform, labels)
    t1 = time.perf_counter()
    renderer = SceneRenderer(shown, style, device)
    t_build = time.perf_counter() - t1
    images = []
    try:
        for view, spec, mats in planned:
            png, seconds = render_annotated(renderer, shown, spec, mats, out, view=view, transform=transform or "")
            images.append({"view": view, "image": f"images/{png.name}", "seconds": round(seconds, 3)})
    finally:
        device_used = renderer.device
        renderer.close()
    return {"structure": structure.id, "atoms_shown": shown.n_atoms, "device": device_used,
            "load_seconds": round(t_load, 3), "build_seconds": round(t_build, 3), "images": images}
