"""The Blender extension, timed as an artist meets it (not a test).

Builds the zip, installs it into a throw-away Blender user folder with Blender's own installer,
imports the BRD4 example through File › Import, previews sample 0 of every task of the suite
(plan + pose the first image), steps through its images, and prints seconds per step.

    python benchmarks/bench_extension.py [--resolution 512]
"""
from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(label: str, fn, *args, **kw):
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    print(f"{label:<58} {time.perf_counter() - t0:7.2f} s", flush=True)
    return out


def session(zip_path: str, resolution: int) -> None:
    try:  # PyPI bpy 4.2: RDKit before bpy
        import rdkit.Chem  # noqa: F401
    except ImportError:
        pass
    import bpy
    timed("install + enable (Blender's installer)", bpy.ops.extensions.package_install_files,
          filepath=zip_path, repo="user_default", enable_on_install=True)
    name = "bl_ext.user_default.misigen"
    resources = importlib.import_module(name + ".core.resources")
    settings_of = importlib.import_module(name + ".ui.session").settings_of
    example = resources.examples_dir() / "wagner_brd4"
    timed("File › Import PDBbind folder (BRD4)", bpy.ops.misigen.import_pdbbind, directory=str(example))
    settings = settings_of(bpy.context)
    settings.resolution = (resolution, resolution)
    for task in importlib.import_module(name + ".ui.session").suite_tasks("misi_bench"):
        settings.task, settings.sample_index = task, 0
        timed(f"preview {task} (plan + first image)", bpy.ops.misigen.preview_sample)
        n = settings.n_images
        t0 = time.perf_counter()
        for _ in range(n):
            bpy.ops.misigen.preview_step(step=1)
        print(f"{'  step through its ' + str(n) + ' images':<58} {time.perf_counter() - t0:7.2f} s")
    settings.samples, settings.denoise = 1, False
    with tempfile.TemporaryDirectory() as out:
        settings.output_dir = out
        timed(f"render sample ({settings.task}, {settings.n_images} images, 1 spp)", bpy.ops.misigen.render_sample)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--resolution", type=int, default=512)
    ap.add_argument("--session", help=argparse.SUPPRESS)      # internal: run inside the fresh process
    args = ap.parse_args()
    if args.session:
        session(args.session, args.resolution)
        return
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        res = subprocess.run([sys.executable, str(ROOT / "run_blender.py"), "build-extension", "--out", tmp],
                             capture_output=True, text=True, check=True)
        zip_path = res.stdout.strip().splitlines()[-1]
        print(f"{'build-extension (this platform)':<58} {time.perf_counter() - t0:7.2f} s  "
              f"({os.path.getsize(zip_path) / 1e6:.1f} MB)")
        env = {**os.environ, "BLENDER_USER_RESOURCES": str(Path(tmp) / "user"),
               "MISIGEN_PRESETS": str(Path(tmp) / "presets")}
        subprocess.run([sys.executable, __file__, "--session", zip_path, "--resolution", str(args.resolution)],
                       env=env, check=True, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
