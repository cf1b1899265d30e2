"""How far labels sit from what they name. Not a test.

Plans the suite on the shared complexes (no rendering: a sidecar's labels are exactly
``core.scene.scene_plan.placed_labels``) and, for every label drawn on every distinct image,
measures the distance in pixels from its box to what it names: the anchor atom's pixel
for an atom label, the nearest shown atom of the residue for a residue label. Prints
the share of labels farther than ``--far`` px (default 6) without a leader line, and
how many carry a leader.

    python benchmarks/bench_labels.py [--complexes DIR] [--limit 8] [--size 512] [--suite misi_bench]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))

import numpy as np  # noqa: E402


def box_distance(box, pts: np.ndarray) -> np.ndarray:
    """Distance (px) from a box [u0, v0, u1, v1] to each point (0 inside)."""
    du = np.maximum.reduce([box[0] - pts[:, 0], np.zeros(len(pts)), pts[:, 0] - box[2]])
    dv = np.maximum.reduce([box[1] - pts[:, 1], np.zeros(len(pts)), pts[:, 1] - box[3]])
    return np.hypot(du, dv)


def label_distances(shown, spec, labels) -> list[tuple[float, bool]]:
    """(distance to what the label names, has a leader) per drawn label."""
    from misigen.core.scene.scene_plan import posed_coords
    pix, depth = spec.camera.project(posed_coords(shown, spec.matrices(shown)[0]))
    res = shown.residue_index()
    out = []
    for lab in labels:
        if lab["box"] is None:
            continue
        rows = np.nonzero(res == res[lab["atom"]])[0] if lab["kind"] == "residue" else np.array([lab["atom"]])
        rows = rows[depth[rows] > spec.camera.clip[0]]
        d = float(box_distance(lab["box"], pix[rows]).min()) if len(rows) else float("inf")
        out.append((d, bool(lab.get("leader"))))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--complexes", type=Path, default=Path("/work/shared/data/complexes"))
    ap.add_argument("--limit", type=int, default=8, help="structures (sorted by id), default 8")
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--suite", default="misi_bench")
    ap.add_argument("--far", type=float, default=6.0)
    args = ap.parse_args()
    from misigen.core.errors import InputError
    from misigen.core.structure.loader import discover_inputs, load_structure
    from misigen.core.resources import suite_path
    from misigen.core.scene.scene_plan import placed_labels, shown_structure
    from misigen.core.look.style import load_style
    from misigen.core.tasks import PartnerCatalog, load_suite, plan_samples

    style = load_style("misi_bench", {"render": {"resolution": [args.size, args.size]}})
    tasks = load_suite(suite_path(args.suite)).tasks
    sources = sorted(discover_inputs([args.complexes]).sources, key=lambda s: s.id)[: args.limit]
    loaded = {}
    for src in sources:
        try:
            loaded[src.id] = load_structure(src)
        except InputError as exc:
            print(f"skipped {src.id}: {exc}")
    partners = PartnerCatalog({k: "test" for k in loaded}, lambda i: loaded[i])
    t0 = time.perf_counter()
    dists, seen = [], set()
    for sid, st in loaded.items():
        for task in tasks:
            samples, _ = plan_samples(task, st, style, "test", 0, partners)
            for s in samples:
                for spec in s.render_specs():
                    if spec.key() in seen:
                        continue
                    seen.add(spec.key())
                    shown = shown_structure(loaded[spec.structure_id], spec.style, spec.parts, spec.residues)
                    dists += label_distances(shown, spec, placed_labels(shown, spec))
    d = np.array([x for x, _ in dists])
    lead = np.array([y for _, y in dists])
    far = (d > args.far) & ~lead
    print(f"{len(loaded)} structures, {len(seen)} images at {args.size}², {len(d)} labels drawn "
          f"({time.perf_counter() - t0:.0f} s)")
    print(f"labels > {args.far:g} px from their atom/residue without a leader: {far.sum()} = "
          f"{100 * far.mean():.1f}%; with a leader: {lead.sum()} ({100 * lead.mean():.1f}%); "
          f"median distance {np.median(d):.1f} px, 95th percentile {np.percentile(d, 95):.1f} px")


if __name__ == "__main__":
    main()
