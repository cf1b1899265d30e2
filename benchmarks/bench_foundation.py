"""Foundation benchmark: load, scene build and per-image render time (not a test).

Prints, for a ~500-atom pocket and a ~5,000-atom whole protein: structure load time,
scene build time and the per-image render time at 512² for 4/16/64 samples with
denoising (median of a few views rendered back to back in one scene).

    python benchmarks/bench_foundation.py [--complexes DIR] [--repeats 3]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))

from misigen.core.structure.loader import discover, load_structure  # noqa: E402
from misigen.core.scene.scene_plan import shown_structure  # noqa: E402
from misigen.core.look.style import load_style  # noqa: E402
from misigen.pipeline.views import plan_views  # noqa: E402


def bench(source, whole: bool, samples_list, repeats: int, out: Path) -> None:
    from misigen.render.renderer import SceneRenderer

    t0 = time.perf_counter()
    structure = load_structure(source)
    t_load = time.perf_counter() - t0
    for samples in samples_list:
        over = {"render": {"samples": samples, "denoise": True, "resolution": [512, 512]}}
        if whole:
            over["selection"] = {"pocket_cutoff": 0.0}
        style = load_style("misi_bench", over)
        shown = shown_structure(structure, style)
        views = ["front", "left", "top", "back", "right", "bottom"][:repeats]
        planned = plan_views(shown, style, views, None, labels=False)
        t1 = time.perf_counter()
        renderer = SceneRenderer(shown, style, "auto")
        t_build = time.perf_counter() - t1
        times = [renderer.render(spec.camera, mats, out / f"{source.id}_{samples}_{view}.png", [])
                 for view, spec, mats in planned]
        renderer.close()
        print(f"{source.id:>14} {'whole' if whole else 'pocket':>6} {shown.n_atoms:6d} atoms | load "
              f"{t_load:5.2f}s | scene {t_build:5.2f}s | {samples:3d} spp + denoise: median "
              f"{statistics.median(times):5.2f}s  min {min(times):5.2f}s  max {max(times):5.2f}s "
              f"| device {renderer.device}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    default = ROOT.parent / "shared" / "data" / "complexes" / "paired"
    ap.add_argument("--complexes", type=Path, default=default if default.exists() else ROOT / "scenes" / "examples")
    ap.add_argument("--pocket", default="cdk2")
    ap.add_argument("--whole", default="cdk2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--samples", default="4,16,64")
    args = ap.parse_args()
    sources = {s.id: s for s in discover([args.complexes])}
    samples = [int(x) for x in args.samples.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        for sid, whole in ((args.pocket, False), (args.whole, True)):
            src = sources.get(sid) or next(iter(sources.values()))
            bench(src, whole, samples, args.repeats, Path(tmp))


if __name__ == "__main__":
    main()
