"""GPU readiness in one command: what Cycles sees, and whether a GPU renders what the CPU does.

    python benchmarks/gpu_check.py [--size 512] [--out /tmp/misigen_gpu_check] [--no-generate]

1. Lists the Cycles devices Blender sees, per backend (OPTIX, CUDA, HIP, ONEAPI, METAL) and CPU.
2. Renders the bundled examples' six views (front … bottom) at ``--size``² with the default
   preset, on the CPU and on every GPU backend that has a device, in one scene per example
   and backend (one untimed warm-up image each), and prints images per second per backend.
3. Prints the SSIM of each GPU image against the CPU image of the same view (mean, min).
4. Where two or more GPUs exist: runs ``generate`` on the examples with ``--workers 1`` and
   ``--workers 2`` (one GPU per worker) and prints both rates.

On a machine without a GPU it says so, renders on the CPU only and exits 0. Meant to finish
in under 5 minutes on a GPU machine (the CPU part: about 12 images at 512²).
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
sys.path.insert(0, str(ROOT / "blender_addon"))
sys.path.insert(0, str(ROOT / "benchmarks"))

VIEWS = ["front", "left", "top", "back", "right", "bottom"]


def cycles_devices() -> dict:
    """backend → [(device name, type)] as Cycles' preferences list them; None: not in this Blender."""
    from misigen.render.device import GPU_ORDER, _backend_devices, _cycles_prefs, _quiet
    out = {}
    with _quiet():
        prefs = _cycles_prefs()
        for backend in GPU_ORDER:
            found = _backend_devices(prefs, backend) if prefs is not None else None
            out[backend] = None if found is None else [(d.name, d.type) for d in found]
        if prefs is not None:
            prefs.compute_device_type = "NONE"
            prefs.get_devices()
            out["CPU"] = [(d.name, d.type) for d in prefs.devices if d.type == "CPU"]
    return out


def render_views(shown, style, device: str, out_dir: Path) -> tuple[list[Path], float, str]:
    """The six views of one structure on ``device``; (paths, seconds for the timed images, device used)."""
    from misigen.pipeline.views import plan_views
    from misigen.render.renderer import SceneRenderer
    planned = plan_views(shown, style, VIEWS, None, labels=False)
    out_dir.mkdir(parents=True, exist_ok=True)
    with SceneRenderer(shown, style, device) as r:
        _v, spec, mats = planned[0]
        r.render(spec.camera, mats, out_dir / "warmup.png", [])
        t = time.perf_counter()
        paths = []
        for view, spec, mats in planned:
            p = out_dir / f"{shown.id}_{view}.png"
            r.render(spec.camera, mats, p, [])
            paths.append(p)
        return paths, time.perf_counter() - t, r.device


def generate_rate(device: str, workers: int, out: Path) -> float:
    cmd = [sys.executable, str(ROOT / "run_blender.py"), "generate", "--structures", str(ROOT / "scenes" / "examples"),
           "--out", str(out), "--workers", str(workers), "--device", device, "--no-progress", "--no-audit",
           "--no-validate", "--split", "test"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 3):
        raise RuntimeError(f"generate --workers {workers} failed ({proc.returncode}): {proc.stderr[-500:]}")
    return json.loads((out / "manifest.json").read_text())["this_run"]["images_per_second"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--out", type=Path, default=None, help="where the images go (default: a temporary folder)")
    ap.add_argument("--no-generate", action="store_true", help="skip the --workers 1/2 generate runs")
    a = ap.parse_args()
    t_start = time.perf_counter()

    import bpy  # noqa: F401
    import numpy as np
    from bench_render import load_png, ssim
    from misigen.core.structure.loader import discover, load_structure
    from misigen.core.scene.scene_plan import shown_structure
    from misigen.core.look.style import load_style

    print(f"Blender {bpy.app.version_string}; {os.cpu_count()} CPU threads")
    devices = cycles_devices()
    gpus = {b: d for b, d in devices.items() if b != "CPU" and d}
    for backend, found in devices.items():
        text = "not in this Blender" if found is None else (", ".join(f"{n} ({t})" for n, t in found) or "no device")
        print(f"  Cycles {backend:7s}: {text}")
    if not gpus:
        print("no GPU found: Cycles sees no OPTIX, CUDA, HIP, ONEAPI or METAL device; checking the CPU only")

    style = load_style("misi_bench", {"render": {"resolution": [a.size, a.size]}})
    structures = [load_structure(s) for s in discover([ROOT / "scenes" / "examples"])]
    shown = [shown_structure(s, style) for s in structures]
    out = a.out or Path(tempfile.mkdtemp(prefix="misigen-gpu-check-"))
    results = {}
    for backend in ["CPU"] + list(gpus):
        paths, seconds, used = [], 0.0, ""
        for sh in shown:
            p, t, used = render_views(sh, style, backend.lower() if backend == "CPU" else backend,
                                      out / backend)
            paths += p
            seconds += t
        results[backend] = paths
        print(f"{backend:7s} ({used}): {len(paths)} images at {a.size}² in {seconds:.1f} s = "
              f"{len(paths) / seconds:.2f} images/s", flush=True)
    for backend in gpus:
        scores = [ssim(load_png(g), load_png(c)) for g, c in zip(results[backend], results["CPU"])]
        print(f"SSIM {backend} vs CPU: mean {np.mean(scores):.4f}, min {min(scores):.4f} over {len(scores)} views")
    n_gpus = max((len(d) for d in gpus.values()), default=0)
    if gpus and n_gpus >= 2 and not a.no_generate:
        backend = next(iter(gpus))
        for workers in (1, 2):
            rate = generate_rate(backend, workers, out / f"generate_w{workers}")
            print(f"generate --device {backend} --workers {workers}: {rate:.2f} images/s", flush=True)
    elif gpus:
        print(f"generate --workers 2 with one GPU each: skipped ({n_gpus} GPU found, needs 2)")
    else:
        print("generate --workers 1/2 with one GPU each: skipped (no GPU)")
    print(f"gpu_check done in {time.perf_counter() - t_start:.0f} s; images in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
