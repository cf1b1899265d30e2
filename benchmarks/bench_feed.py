"""Does planning keep a fast renderer fed? Images per second against the number of planning
processes, with Cycles replaced by a stand-in that takes a fixed time per image (not a test).

Runs ``generate`` in this process on the shared complexes with everything real (reading,
planning, the sidecars behind rationales and levels, sidecar, PNG and record writing, labels
drawn onto the image) except Cycles' render call: the stand-in renderer (``rendering.use_renderer``)
sleeps ``--render-ms`` per image, as a GPU that releases Python's lock would, and writes the raw
black image a render of that size would. Prints, per planner count (0 = one helper thread of the
rendering process): images/s over the whole ``generate`` and while its units ran (without the
run's set-up and merge, which planners do not change), the ratios to one planning process, the
CPU per image of the rendering process (all its threads) and of the planning processes, the load
average before and after; and checks that every file written (annotations, parts, sidecars, PNG
bytes) is the same for every planner count.

    python benchmarks/bench_feed.py [--complexes DIR] [--limit 4] [--size 256] [--render-ms 20]
                                    [--planners 1,2] [--rounds 1] [--tasks …]

``--complexes`` takes any folder ``generate`` reads, e.g. the shared PoseBusters corpus
(/work/shared/data/posebusters: one folder per complex; ``--limit 8`` takes the first 8 by id).

The machine's load average is printed with each line: compare runs made side by side on a quiet
machine. On C cores the rate is about min(1000 / render_ms, planners × 1000 / planning processes' ms,
C × 1000 / (planning processes' ms + rendering process ms)) (docs/ARCHITECTURE.md); planning processes
also finish the images (labels, PNG, sidecar), so their CPU per image is planning plus finishing.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))


def stand_in_class():
    """A renderer with SceneRenderer's interface whose render is a sleep and a black raw image."""
    from PIL import Image

    from misigen.render.renderer import SceneRenderer

    class SleepRenderer(SceneRenderer):
        render_ms = 20.0
        _raw: dict = {}

        def __init__(self, shown, style, device="auto"):      # no Blender scene
            self.shown, self.style, self.device, self.cycles_seconds = shown, style, "stand-in", 0.0

        def render_raw(self, cam, mats, out_png, parts=("protein", "ligand")) -> Path:
            t0 = time.perf_counter()
            time.sleep(self.render_ms / 1000)
            size = (cam.width, cam.height)
            if size not in self._raw:
                buf = io.BytesIO()
                Image.new("RGB", size).save(buf, format="BMP")      # what Cycles writes: an uncompressed raw
                self._raw[size] = buf.getvalue()
            raw = self.raw_path(out_png)
            raw.write_bytes(self._raw[size])
            self.cycles_seconds += time.perf_counter() - t0
            return raw

        def close(self) -> None:
            pass

    return SleepRenderer


def digest(folder: Path) -> str:
    """One hash of every file a run wrote but its manifest (timings) and the folder lock."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != "manifest.json" and not p.name.startswith(".misigen"):
            h.update(str(p.relative_to(folder)).encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def cpu_seconds(who=resource.RUSAGE_SELF) -> float:
    r = resource.getrusage(who)         # SELF: every thread of this process; CHILDREN: its planners once ended
    return r.ru_utime + r.ru_stime


UNITS: list = []          # (wall, CPU seconds of this process) while the executor ran the units


def timed_units():
    """Wrap the in-process executor's run so the time it takes is told apart from the run's
    set-up (suite, inputs, identity) and merge."""
    from misigen.pipeline import executors

    real = executors.InProcess.run

    def run(self, units, ctx, on_result):
        t0, c0 = time.perf_counter(), cpu_seconds()
        try:
            real(self, units, ctx, on_result)
        finally:
            UNITS.append((time.perf_counter() - t0, cpu_seconds() - c0))
    executors.InProcess.run = run


def run_once(structures, style, planners: int, tasks, seed: int) -> dict:
    from misigen.core.resources import suite_path
    from misigen.pipeline.generate import run_generate
    from misigen.pipeline.run_config import RunConfig

    with tempfile.TemporaryDirectory(prefix="misigen-feed-") as tmp:
        out = Path(tmp) / "out"
        load0 = os.getloadavg()[0]
        cpu0, t0 = cpu_seconds(), time.perf_counter()
        children0 = cpu_seconds(resource.RUSAGE_CHILDREN)
        manifest = run_generate(RunConfig(structures, out, suite=suite_path("misi_bench"), style=style, split="test",
                                          seed=seed, tasks=tasks, device="cpu", progress=False, audit=False,
                                          planners=planners))
        wall = time.perf_counter() - t0
        run = manifest["this_run"]
        return {"wall": wall, "images": run["images_rendered"], "records": manifest["counts"]["records"],
                "plan_seconds": run["plan_seconds"], "digest": digest(out), "load": (load0, os.getloadavg()[0]),
                "cpu": cpu_seconds() - cpu0, **dict(zip(("units_wall", "units_cpu"), UNITS.pop())),
                "planners_cpu": cpu_seconds(resource.RUSAGE_CHILDREN) - children0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = ROOT.parent / "shared" / "data" / "complexes" / "paired"
    if not default.exists():
        default = Path("/work/shared/data/complexes/paired")
    ap.add_argument("--complexes", type=Path, default=default, help="a folder of structures")
    ap.add_argument("--limit", type=int, default=4, help="first N structures by id (default 4)")
    ap.add_argument("--size", type=int, default=256, help="image side in pixels (default 256)")
    ap.add_argument("--render-ms", type=float, default=20.0, help="stand-in render time per image (default 20)")
    ap.add_argument("--planners", default="1,2", help="planner counts to compare, 0 = helper thread (default 1,2)")
    ap.add_argument("--rounds", type=int, default=1, help="runs per count; the fastest is kept (default 1)")
    ap.add_argument("--tasks", help="comma-separated task names (default: the whole suite)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from misigen.core.structure.preload import preload_rdkit
    preload_rdkit()
    from misigen.core.look.style import load_style
    from misigen.pipeline import rendering

    renderer = stand_in_class()
    renderer.render_ms = args.render_ms
    rendering.use_renderer(renderer)
    timed_units()
    structures = sorted(p for p in args.complexes.iterdir() if not p.name.startswith("."))[: args.limit]
    style = load_style("misi_bench", {"render": {"resolution": [args.size, args.size]}})
    tasks = args.tasks.split(",") if args.tasks else None
    print(f"structures: {', '.join(p.name for p in structures)}; {args.size}²; stand-in render {args.render_ms:g} ms; "
          f"cores: {os.cpu_count()}", flush=True)
    base, digests = None, set()
    for planners in [int(x) for x in args.planners.split(",")]:
        best = min((run_once(structures, style, planners, tasks, args.seed) for _ in range(args.rounds)),
                   key=lambda r: r["wall"])
        rate, units_rate = best["images"] / best["wall"], best["images"] / best["units_wall"]
        base = base or ((rate, units_rate) if planners == 1 else None)
        digests.add(best["digest"])
        ratio = (f" (x{rate / base[0]:.2f} of 1 planner; units x{units_rate / base[1]:.2f})"
                 if base and planners != 1 else "")
        print(f"planners={planners}: {best['images']} images, {best['records']} QA in {best['wall']:.1f} s: "
              f"{rate:.2f} images/s, {units_rate:.2f} while units ran{ratio}; "
              f"planning {1000 * best['plan_seconds'] / max(1, best['images']):.0f} ms/image; "
              f"rendering process CPU {1000 * best['units_cpu'] / max(1, best['images']):.1f} ms/image "
              f"({1000 * best['cpu'] / max(1, best['images']):.1f} with set-up and merge), planning processes "
              f"(planning and finishing) {1000 * best['planners_cpu'] / max(1, best['images']):.1f} ms CPU/image "
              f"| load avg {best['load'][0]:.1f} -> {best['load'][1]:.1f} | files {best['digest'][:12]}", flush=True)
    print("outputs identical across planner counts" if len(digests) == 1 else
          f"OUTPUTS DIFFER across planner counts ({len(digests)} digests)", flush=True)
    if len(digests) != 1:
        sys.exit(1)


if __name__ == "__main__":
    main()
