"""Memory over a long render loop in one process (not a test).

Builds a scene per structure, renders one small image, closes it, and prints the
process's resident memory after each round, so growth per scene is visible.

    python benchmarks/bench_memory.py [--rounds 60] [--complexes DIR]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "blender_addon"))

from misigen.core.errors import InputError  # noqa: E402
from misigen.core.loader import discover, load_structure  # noqa: E402
from misigen.core.scene_plan import shown_structure  # noqa: E402
from misigen.core.style import load_style  # noqa: E402
from misigen.pipeline.views import plan_views  # noqa: E402


def rss_mb() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    default = ROOT.parent / "shared" / "data" / "complexes"
    ap.add_argument("--complexes", type=Path, default=default if default.exists() else ROOT / "scenes" / "examples")
    ap.add_argument("--rounds", type=int, default=60)
    args = ap.parse_args()
    from misigen.render.renderer import SceneRenderer

    structures = []
    for src in discover([args.complexes / "paired", args.complexes / "pdb"] if (args.complexes / "pdb").exists()
                        else [args.complexes]):
        try:
            structures.append(load_structure(src))
        except InputError:
            pass
    style = load_style("misi_bench", {"render": {"resolution": [128, 128], "samples": 1, "denoise": False}})
    start = None
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.rounds):
            s = structures[k % len(structures)]
            shown = shown_structure(s, style)
            _view, spec, mats = plan_views(shown, style, ["front"], None, labels=False)[0]
            r = SceneRenderer(shown, style, "cpu")
            r.render(spec.camera, mats, Path(tmp) / "x.png", [])
            r.close()
            now = rss_mb()
            start = start or now
            if k % 10 == 0 or k == args.rounds - 1:
                print(f"round {k + 1:4d}  {s.id:>18}  RSS {now:7.1f} MB  (+{now - start:6.1f} MB since round 1)",
                      flush=True)


if __name__ == "__main__":
    main()
