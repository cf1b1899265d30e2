"""Overhead of ``generate`` outside Cycles, and the speed-up of worker processes (not a test).

Runs ``run_blender.py generate`` as a user would (a fresh process per run, into a scratch
folder) on the shared complexes and reads the run's manifest: wall time of the command,
seconds spent inside Cycles' render call (``this_run.cycles_seconds``, summed over
workers), images rendered. Prints, per setting:

- the share of wall time outside Cycles = 1 − Cycles seconds / wall (one worker: everything
  that is not Cycles — loading, planning, scene building, sidecars, labels, writing, the audit);
- with N workers, the speed-up over one worker on the same structures;

and ends with one line from the one-worker runs' manifests (``this_run.wall_seconds`` less
``this_run.cycles_seconds``, per image rendered):

    overhead: X ms per image outside Cycles at 256², Y ms at 512²; share of wall Z% / W%

    python benchmarks/bench_overhead.py [--complexes DIR] [--limit 4] [--settings 256:1,512:]
                                        [--workers 1,2] [--tasks …]

A setting is RES:SAMPLES (empty samples = the preset's default). The machine's load
average is printed with each line: other processes on a shared machine slow Cycles and
Python alike, so compare runs made side by side.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(structures: list, out: Path, res: int, samples: str, workers: int, tasks: str | None, seed: int) -> dict:
    cmd = [sys.executable, str(ROOT / "run_blender.py"), "generate", "--structures", *map(str, structures),
           "--out", str(out), "--resolution", str(res), str(res), "--workers", str(workers), "--seed", str(seed),
           "--no-progress", "--no-validate", "--device", "cpu"]
    if samples:
        cmd += ["--samples", samples]
    if tasks:
        cmd += ["--tasks", tasks]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 3):
        raise SystemExit(f"generate failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    manifest = json.loads((out / "manifest.json").read_text())
    return {"wall": wall, **manifest["this_run"], "records": manifest["counts"]["records"],
            "annotations_sha256": manifest["annotations_sha256"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = ROOT.parent / "shared" / "data" / "complexes" / "paired"
    if not default.exists():
        default = Path("/work/shared/data/complexes/paired")
    ap.add_argument("--complexes", type=Path, default=default, help="a folder of structures")
    ap.add_argument("--limit", type=int, default=4, help="first N structures by id (default 4)")
    ap.add_argument("--settings", default="256:1,512:", help="RES:SAMPLES list (default 256:1,512:)")
    ap.add_argument("--workers", default="1", help="worker counts to compare, e.g. 1,2 (default 1)")
    ap.add_argument("--tasks", help="comma-separated task names (default: the whole suite)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    from_dir = sorted(p for p in args.complexes.iterdir() if not p.name.startswith("."))[: args.limit]
    print(f"structures: {', '.join(p.name for p in from_dir)}; cores: {os.cpu_count()}", flush=True)
    overhead = {}
    for setting in args.settings.split(","):
        res, _, samples = setting.partition(":")
        base = None
        for workers in [int(w) for w in args.workers.split(",")]:
            with tempfile.TemporaryDirectory(prefix="misigen-bench-") as tmp:
                r = run(from_dir, Path(tmp) / "out", int(res), samples, workers, args.tasks, args.seed)
            outside = 1 - r["cycles_seconds"] / r["wall"] if workers == 1 else None
            if workers == 1:       # generate's own clock: from planning the first structure to the merge
                own = r["wall_seconds"]
                overhead[res] = (1000 * (own - r["cycles_seconds"]) / max(1, r["images_rendered"]),
                                 100 * (1 - r["cycles_seconds"] / own))
            base = base or (r["wall"] if workers == 1 else None)
            line = (f"{res}px spp={samples or 'preset'} workers={workers}: {r['images_rendered']} images, "
                    f"{r['records']} QA, wall {r['wall']:.1f}s ({r['images_rendered'] / r['wall']:.2f} img/s), "
                    f"Cycles {r['cycles_seconds']:.1f}s, planning {r['plan_seconds']:.1f}s")
            if outside is not None:
                line += f", outside Cycles {100 * outside:.1f}% of wall"
            if base and workers > 1:
                line += f", speed-up over 1 worker x{base / r['wall']:.2f}"
            line += f" | load avg {os.getloadavg()[0]:.1f} | annotations {r['annotations_sha256'][:12]}"
            print(line, flush=True)
    if overhead:
        sizes = list(overhead)
        first, *rest = [f"{overhead[k][0]:.1f} ms" + (" per image outside Cycles" if i == 0 else "") + f" at {k}²"
                        for i, k in enumerate(sizes)]
        shares = " / ".join(f"{overhead[k][1]:.1f}%" for k in sizes)
        print(f"overhead: {', '.join([first, *rest])}; share of wall {shares}", flush=True)


if __name__ == "__main__":
    main()
