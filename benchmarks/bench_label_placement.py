"""Whether a label keeps its place across the images of one question, and whether the labels an
answer needs are drawn. Not a test.

Plans tasks on the shared complexes (no rendering: a sidecar's labels are exactly
``core.scene.scene_plan.placed_labels``). For every label that one question draws in two or more of its
images, its placement in each image is the side of its atom the box sits on
(``core.scene.labels.label_side``) and whether it hangs on a leader line. Prints the share of such labels
whose side is the same in all of the question's images that draw it, the same share for side and
leader together, the mean share of image pairs that agree, labels drawn per image, and each task's
rejections for a label the answer needs.

    python benchmarks/bench_label_placement.py [--complexes DIR] [--size 256] [--split test]
        [--tasks residue_ligand_interaction,pocket_ligand_interaction] [--suite misi_bench] [--limit N]
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))

import numpy as np  # noqa: E402


def label_side(box, u: float, v: float) -> tuple[int, int]:
    """As core.scene.labels.label_side (repeated here so the script measures trees without it too)."""
    return (1 if u < box[0] else -1 if u > box[2] else 0), (1 if v < box[1] else -1 if v > box[3] else 0)


def placements(shown, spec) -> dict:
    """label id → (side, has a leader) of every label drawn on one image."""
    from misigen.core.scene.scene_plan import placed_labels, posed_coords
    pix, _ = spec.camera.project(posed_coords(shown, spec.matrices(shown)[0]))
    return {lab["id"]: (label_side(lab["box"], *pix[lab["atom"]]), bool(lab.get("leader")))
            for lab in placed_labels(shown, spec) if lab["box"] is not None}


def question_stability(per_image: list[dict]) -> list[tuple[bool, bool, float]]:
    """(same side in all, same side and leader in all, share of agreeing image pairs) per label
    drawn in two or more of one question's images."""
    seen = defaultdict(list)
    for places in per_image:
        for lid, place in places.items():
            seen[lid].append(place)
    out = []
    for got in seen.values():
        if len(got) < 2:
            continue
        sides = [g[0] for g in got]
        pairs = [(a, b) for i, a in enumerate(sides) for b in sides[i + 1:]]
        out.append((len(set(sides)) == 1, len(set(got)) == 1, float(np.mean([a == b for a, b in pairs]))))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--complexes", type=Path, default=Path("/work/shared/data/complexes"))
    ap.add_argument("--limit", type=int, default=0, help="structures (sorted by id); 0: all")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--split", default="test")
    ap.add_argument("--suite", default="misi_bench")
    ap.add_argument("--tasks", default="residue_ligand_interaction,pocket_ligand_interaction")
    args = ap.parse_args()
    from misigen.core.errors import InputError
    from misigen.core.structure.loader import discover_inputs, load_structure
    from misigen.core.resources import suite_path
    from misigen.core.scene.scene_plan import shown_structure
    from misigen.core.look.style import load_style
    from misigen.core.tasks import PartnerCatalog, load_suite, plan_samples

    style = load_style("misi_bench", {"render": {"resolution": [args.size, args.size]}})
    wanted = args.tasks.split(",")
    tasks = load_suite(suite_path(args.suite), wanted).tasks
    sources = sorted(discover_inputs([args.complexes]).sources, key=lambda s: s.id)
    loaded = {}
    for src in sources[: args.limit or None]:
        try:
            loaded[src.id] = load_structure(src)
        except InputError as exc:
            print(f"skipped {src.id}: {exc}")
    partners = PartnerCatalog({k: args.split for k in loaded}, lambda i: loaded[i])
    t0 = time.perf_counter()
    stats, counts, lost = defaultdict(list), defaultdict(list), defaultdict(Counter)
    for sid, st in loaded.items():
        for task in tasks:
            samples, fails = plan_samples(task, st, style, args.split, 0, partners)
            for f in fails:
                if "label needed" in f["why"]:
                    lost[task.name][sid] += 1
            for s in samples:
                per_image = []
                for spec in s.render_specs():
                    shown = shown_structure(loaded[spec.structure_id], spec.style, spec.parts, spec.residues)
                    per_image.append(placements(shown, spec))
                    counts[task.name].append(len(per_image[-1]))
                stats[task.name] += question_stability(per_image)
    print(f"{len(loaded)} structures, {args.split} split, {args.size}² ({time.perf_counter() - t0:.0f} s)")
    for name in wanted:
        got = np.array(stats[name], float).reshape(-1, 3)
        print(f"{name}: {len(got)} labels in ≥ 2 images; same side in all: {100 * got[:, 0].mean():.1f}%, "
              f"same side and leader: {100 * got[:, 1].mean():.1f}%, pairs agreeing: {100 * got[:, 2].mean():.1f}%; "
              f"{np.mean(counts[name]):.1f} labels per image; lost for a needed label: "
              f"{sum(lost[name].values())} {dict(sorted(lost[name].items()))}")


if __name__ == "__main__":
    main()
