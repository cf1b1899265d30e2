"""How legible the labels are, and how much of the atoms under them shows through. Not a test.

Renders T9's views (misi_bench) of a few complexes once without labels (Cycles, CPU), then draws
the sidecar's labels onto each raw render twice: with an opaque outline (``outline_luminance`` 0)
and with the preset's (the outline dims what is under it only down to that luminance). Per label:

- contrast: WCAG ratio (Y_text + 0.05) / (Y_halo + 0.05) of the median relative luminance of its
  glyph pixels and the 90th percentile of its outline pixels (the brightest background a stroke meets);
- atoms under the outline: of the outline pixels that show an atom in the raw render, the share that
  keeps at least 20 % of its luminance, and the mean luminance kept;
- atoms in the box: of the box's pixels showing an atom, the share not painted by text or outline
  (luminance kept ≥ 20 % and no glyph).

    python benchmarks/bench_label_legibility.py [--structures DIR …] [--sizes 256 512] [--views 3]
        [--save OUT]      (OUT: the drawn images, for looking at)
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))

import numpy as np  # noqa: E402

COMPLEXES = Path("/work/shared/data/complexes")
DEFAULT = [COMPLEXES / "paired" / "bace", COMPLEXES / "pdb" / "1hvi.pdb", COMPLEXES / "paired" / "cdk2"]


def luminance(rgb: np.ndarray) -> np.ndarray:
    """Relative luminance of sRGB pixels (0–255)."""
    c = rgb.astype(np.float32) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return lin @ np.array([0.2126, 0.7152, 0.0722], np.float32)


def label_metrics(raw: np.ndarray, drawn: np.ndarray, lab: dict, style: dict, width: int) -> dict | None:
    from misigen.core.scene.labels import font_px
    from misigen.core.scene.labels import OUTLINE_PX
    from misigen.render.labels import font_file
    from misigen.render.overlay import _sprite
    size = font_px(style, width)
    fill, ring, base = _sprite(lab["text"], str(font_file(style["labels"]["font"])), size)
    u, v = int(lab["box"][0]), int(lab["box"][3]) - OUTLINE_PX - base     # as draw_overlay places the text
    f, r = np.asarray(fill, np.float32), np.asarray(ring, np.float32)
    h, w = f.shape
    H, W = raw.shape[:2]
    if u < 0 or v < 0 or u + w > W or v + h > H:
        return None
    y_raw, y_drawn = luminance(raw[v:v + h, u:u + w]), luminance(drawn[v:v + h, u:u + w])
    glyph, halo = f >= 192, (r >= 128) & (f < 32)
    if not glyph.any() or not halo.any():
        return None
    atoms = y_raw > 0.02
    under = halo & atoms
    kept = y_drawn / np.maximum(y_raw, 1e-6)
    b = lab["box"]
    box = np.zeros_like(glyph)
    box[max(0, b[1] - v):b[3] - v, max(0, b[0] - u):b[2] - u] = True
    box_atoms = box & atoms
    return {"contrast": (float(np.median(y_drawn[glyph])) + 0.05) / (float(np.percentile(y_drawn[halo], 90)) + 0.05),
            "under": int(under.sum()), "under_kept": int((under & (kept >= 0.2)).sum()),
            "under_mean": float(kept[under].sum()), "box_atoms": int(box_atoms.sum()),
            "box_seen": int((box_atoms & (f < 32) & (kept >= 0.2)).sum())}


def summary(rows: list[dict]) -> str:
    c = np.array([r["contrast"] for r in rows])
    under = sum(r["under"] for r in rows)
    return (f"{len(rows)} labels; contrast median {np.median(c):.1f}:1, 5th percentile {np.percentile(c, 5):.1f}:1, "
            f"≥ 4.5:1 {100 * (c >= 4.5).mean():.1f}%, ≥ 7:1 {100 * (c >= 7).mean():.1f}%; atom pixels under the "
            f"outline keeping ≥ 20% luminance {100 * sum(r['under_kept'] for r in rows) / max(under, 1):.1f}% "
            f"(mean kept {100 * sum(r['under_mean'] for r in rows) / max(under, 1):.0f}%); atom pixels in the box "
            f"left visible {100 * sum(r['box_seen'] for r in rows) / max(sum(r['box_atoms'] for r in rows), 1):.1f}%")


def measure(paths, size: int, n_views: int, save: Path | None, limits=None) -> dict:
    from PIL import Image
    from misigen.core.structure.loader import discover, load_structure
    from misigen.core.resources import suite_path
    from misigen.core.scene.scene_plan import annotate, shown_structure
    from misigen.core.look.style import load_style
    from misigen.core.tasks import load_suite, plan_samples
    from misigen.pipeline.rendering import open_renderer
    from misigen.render.labels import font_file
    from misigen.render.overlay import draw_overlay

    style = load_style("misi_bench", {"render": {"resolution": [size, size]}})
    task = next(t for t in load_suite(suite_path("misi_bench")).tasks if t.name == "pocket_ligand_interaction")
    limits = limits or ([0.0, float(style["labels"]["outline_luminance"])] if "outline_luminance" in style["labels"]
                        else [0.0])
    rows: dict = {f"outline_luminance {x:g}" + (" (opaque)" if x == 0 else ""): [] for x in limits}
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            st = load_structure(discover([path])[0])
            samples, _ = plan_samples(task, st, style, "test", 0, None)
            specs = samples[0].images[:n_views]
            scene = shown_structure(st, style, ("protein", "ligand"), specs[0].residues)
            with open_renderer(scene, style, "cpu") as renderer:
                for k, spec in enumerate(specs):
                    shown = shown_structure(st, spec.style, spec.parts, spec.residues)
                    mats = spec.matrices(shown)[0]
                    car = annotate(shown, spec, mats)
                    raw = renderer.render_raw(spec.camera, mats, Path(tmp) / f"{st.id}_{k}.png", spec.parts)
                    raw_px = np.asarray(Image.open(raw).convert("RGB"))
                    for name, limit in zip(rows, limits):
                        drawn_style = {**style, "labels": {**style["labels"], "outline_luminance": limit}}
                        if "outline_luminance" not in style["labels"]:         # a tree without the setting
                            drawn_style = style
                        png = Path(tmp) / f"{st.id}_{k}_{limit}.png"
                        draw_overlay(str(raw), str(png), car["labels"], drawn_style, size, size,
                                     font=str(font_file(style["labels"]["font"])))
                        drawn = np.asarray(Image.open(png).convert("RGB"))
                        if save is not None:
                            save.mkdir(parents=True, exist_ok=True)
                            Image.fromarray(drawn).save(save / f"{st.id}_{size}_{k}_{limit:g}.png")
                        rows[name] += [m for m in (label_metrics(raw_px, drawn, lab, style, size)
                                                   for lab in car["labels"]) if m is not None]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--structures", type=Path, nargs="+", default=DEFAULT)
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 512])
    ap.add_argument("--views", type=int, default=3, help="T9 views per complex (default 3)")
    ap.add_argument("--save", type=Path, default=None)
    ap.add_argument("--outline-luminance", type=float, nargs="+", default=None,
                    help="outline luminances to compare (default: 0, i.e. opaque, and the preset's)")
    args = ap.parse_args()
    for size in args.sizes:
        for name, rows in measure(args.structures, size, args.views, args.save, args.outline_luminance).items():
            print(f"{size}², {name}: {summary(rows)}")


if __name__ == "__main__":
    main()
