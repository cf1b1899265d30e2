"""Where one structure's render loop spends its time, per image. Not a test.

Runs ``generate``'s unit of work (``process_structure``: plan every task, render each
distinct image once, write sidecars and the part file) on one structure, with light timers
wrapped around the steps (one clock read per call, unlike cProfile, whose per-call cost
inflates the many small numpy calls of the label layout several times over). Prints, per
step, wall and CPU milliseconds per image; "outside Cycles" is everything but Cycles' own
render call.

    python benchmarks/profile_render.py [--structure bace] [--size 256] [--samples 1] [--suite misi_bench]
"""
from __future__ import annotations

import argparse
import collections
import functools
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))

TOTALS: dict = collections.defaultdict(lambda: [0, 0.0, 0.0])   # step → [calls, wall s, cpu s]
LOCAL = threading.local()          # steps running on this thread (the sidecar helper thread has its own)


def timed(name: str, fn):
    @functools.wraps(fn)
    def wrapper(*a, **k):
        active = LOCAL.__dict__.setdefault("active", set())
        if name in active:                 # recursion or a step inside itself: count once
            return fn(*a, **k)
        active.add(name)
        w, c = time.perf_counter(), time.thread_time()
        try:
            return fn(*a, **k)
        finally:
            t = TOTALS[name]
            t[0] += 1
            t[1] += time.perf_counter() - w
            t[2] += time.thread_time() - c
            active.discard(name)
    return wrapper


def patch(module, attr: str, name: str) -> None:
    setattr(module, attr, timed(name, getattr(module, attr)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--complexes", type=Path, default=Path("/work/shared/data/complexes/paired"))
    ap.add_argument("--structure", default="bace")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--samples", type=int, default=None, help="default: the preset's")
    ap.add_argument("--suite", default="misi_bench")
    args = ap.parse_args()

    import bpy  # noqa: F401  (import Blender first: its start-up is not part of the loop)
    from misigen.core.scene import scene_plan
    from misigen.core.scene import labels as core_labels
    from misigen.core.structure.loader import discover_inputs
    from misigen.core.resources import suite_path
    from misigen.core.look.style import load_style
    from misigen.core.tasks import load_suite
    from misigen.pipeline import output, rendering, unit
    from misigen.render import renderer

    over = {"render": {"resolution": [args.size, args.size]}}
    if args.samples:
        over["render"]["samples"] = args.samples
    style = load_style("misi_bench", over)
    suite = load_suite(suite_path(args.suite))
    src = next(s for s in discover_inputs([args.complexes]).sources if s.id == args.structure)

    patch(unit.UnitPlanning, "samples_of", "plan (every task's planner, rationale, level)")
    patch(unit.UnitPlanning, "__init__", "load")
    patch(scene_plan, "annotate", "sidecar: annotate (all)")
    patch(scene_plan, "visible_atoms", "sidecar: visibility")
    patch(scene_plan, "layout_labels", "label layout (planner + sidecar)")
    patch(core_labels, "layout_labels", "label layout (planner + sidecar)")
    rendering.annotate = scene_plan.annotate
    patch(rendering, "encode_sidecar", "sidecar: JSON encode")
    patch(output, "write_bytes_atomic", "file writes (fsync + rename)")
    patch(renderer.SceneRenderer, "render_raw", "Cycles call + raw image (main thread)")
    patch(renderer.SceneRenderer, "finish", "labels drawn + PNG written")
    patch(renderer.SceneRenderer, "__init__", "scene build")
    patch(renderer.SceneRenderer, "close", "scene close")

    out = Path(tempfile.mkdtemp(prefix="misigen-profile-"))
    w0, c0 = time.perf_counter(), time.process_time()
    summary = unit.process_structure(src, suite, style, out, "test", 0, "cpu")
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    n = summary.rendered.images or 1
    cyc = summary.rendered.cycles_seconds
    TOTALS["  of which Cycles' render call"] = [n, cyc, float("nan")]
    print(f"{args.structure} at {args.size}² ({style['render']['samples']} spp), {n} images, "
          f"{summary.records} QA; load average {os.getloadavg()[0]:.1f}; ms per image (wall / CPU of the thread):")
    for name, (calls, w, c) in sorted(TOTALS.items(), key=lambda kv: -kv[1][1]):
        print(f"  {name:40s} {1000 * w / n:8.1f} {1000 * c / n:8.1f}   ({calls} calls)")
    print(f"  {'whole unit':40s} {1000 * wall / n:8.1f} {1000 * cpu / n:8.1f}")
    print(f"  {'outside Cycles':40s} {1000 * (wall - cyc) / n:8.1f}")
    print("  (steps on the sidecar helper thread overlap Cycles; CPU = the step's own thread's CPU time)")


if __name__ == "__main__":
    main()
