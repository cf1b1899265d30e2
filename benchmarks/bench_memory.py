"""Memory over a long plan-and-render run in one worker process. Not a test.

Does what one ``generate`` worker does, structure after structure, in this process:
``process_structure`` (load, plan every asked task, build the scene, render each distinct
image, write sidecars and the part file, close the scene). The shared complexes are repeated
under new ids (``<id>~r<k>``) until ``--structures`` are done, so caches keyed by structure
see new keys as in a real run. Prints the process's resident memory (VmRSS) and its peak
(VmHWM) every 10 structures, and at the end the peak after the whole run relative to the
peak after ``--baseline`` structures (the aim: within 10 %).

    python benchmarks/bench_memory.py [--structures 200] [--baseline 20] [--size 160] [--tasks translation,…]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))


def status_mb(field: str) -> float:
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = ROOT.parent / "shared" / "data" / "complexes"
    ap.add_argument("--complexes", type=Path, default=default if default.exists() else Path("/work/shared/data/complexes"))
    ap.add_argument("--structures", type=int, default=200)
    ap.add_argument("--baseline", type=int, default=20, help="compare with the peak after this many (default 20)")
    ap.add_argument("--size", type=int, default=160,
                    help="image size (default 160: small, yet the tasks' readability rules still accept samples)")
    ap.add_argument("--tasks", default="translation,zooming,pocket_ligand_interaction",
                    help="tasks planned and rendered (default: one motion, zooming, one interaction task)")
    ap.add_argument("--suite", default="misi_bench")
    args = ap.parse_args()

    import bpy  # noqa: F401
    from misigen.core.errors import InputError
    from misigen.core.structure.loader import discover_inputs, load_structure
    from misigen.core.resources import suite_path
    from misigen.core.look.style import load_style
    from misigen.core.tasks import load_suite
    from misigen.pipeline.unit import process_structure

    sources = []
    for src in sorted(discover_inputs([args.complexes]).sources, key=lambda s: s.id):
        try:
            load_structure(src)
            sources.append(src)
        except InputError:
            pass
    suite = load_suite(suite_path(args.suite), args.tasks.split(","))
    style = load_style("misi_bench", {"render": {"resolution": [args.size, args.size], "samples": 1,
                                                 "denoise": False}})
    print(f"{len(sources)} usable complexes, repeated to {args.structures} structures; tasks {args.tasks}; "
          f"{args.size}² 1 spp", flush=True)
    try:        # forget the peak of the usability check above (Linux: 5 resets VmHWM), so peaks are the loop's
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass
    base_peak = base_rss = None
    images = records = 0
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="misigen-mem-") as tmp:
        for k in range(args.structures):
            src = sources[k % len(sources)]
            src = replace(src, id=f"{src.id}~r{k // len(sources)}")
            summary = process_structure(src, suite, style, Path(tmp), "test", 0, "cpu")
            images += summary.rendered.images
            records += summary.records
            if k + 1 == args.baseline:
                base_peak, base_rss = status_mb("VmHWM"), status_mb("VmRSS")
            if (k + 1) % 10 == 0 or k + 1 == args.structures:
                print(f"after {k + 1:4d} structures ({records} QA, {images} images, {time.perf_counter() - t0:6.0f} s): "
                      f"RSS {status_mb('VmRSS'):7.1f} MB, peak {status_mb('VmHWM'):7.1f} MB", flush=True)
    peak, rss = status_mb("VmHWM"), status_mb("VmRSS")
    if base_peak:
        print(f"memory: peak RSS {peak:.1f} MB after {args.structures} structures vs {base_peak:.1f} MB after "
              f"{args.baseline}: {100 * (peak / base_peak - 1):+.1f}% (aim: within 10%); RSS {rss:.1f} vs "
              f"{base_rss:.1f} MB: {100 * (rss / base_rss - 1):+.1f}% (generate replaces a worker after "
              f"--structures-per-worker, default 25)")


if __name__ == "__main__":
    main()
