"""``generate --dry-run``: the plan (QA and distinct images per task and split) and a time
estimate from a short calibration render; no dataset is written.

Planning every structure of a 4,000-structure run takes about as long as rendering a few
hundred images, so a large run is planned on an even sample of its structures and the
counts are scaled up (marked ≈).
"""
from __future__ import annotations

import collections
import shutil
import statistics
import sys
import time
from pathlib import Path

from .generate import prepare_run
from .rendering import all_specs, render_group
from .run_config import RunConfig
from .unit import plan_structure

SAMPLE_STRUCTURES = 40          # plan at most this many structures; scale the counts beyond
CALIBRATION_IMAGES = 3


def _even_sample(items: list, n: int) -> list:
    if len(items) <= n:
        return list(items)
    return [items[round(k * (len(items) - 1) / (n - 1))] for k in range(n)]


def dry_run(config: RunConfig, sample: int = SAMPLE_STRUCTURES, stream=None) -> dict:
    """Print the plan and estimate of the run ``config`` describes; return them as a dict (for tests)."""
    stream = stream or sys.stdout
    setup = prepare_run(config)
    style, split, seed, shard = config.style, config.split, config.seed, config.shard
    chosen = _even_sample(setup.mine, sample)
    scale = len(setup.mine) / len(chosen) if chosen else 0.0
    qa, images = collections.Counter(), collections.defaultdict(set)
    all_images: set = set()
    plan_seconds, failed, samples_failed, first = [], 0, 0, None
    for source in chosen:
        t0 = time.perf_counter()
        loaded, samples, _failures, _sidecars = plan_structure(source, setup.suite, style, split, seed,
                                                    catalog=setup.ctx.catalog, ligands=setup.ctx.ligands)
        structure = loaded.get(source.id)
        plan_seconds.append(time.perf_counter() - t0)
        samples_failed += sum(1 for f in _failures if f.sample is not None)
        if structure is None:
            failed += 1
            continue
        if first is None and samples:
            first = (structure, samples)
        for s in samples:
            rec = s.as_record()
            key = f"{rec['task']}/{rec['split']}"
            qa[key] += 1
            refs = set(rec["images"]) | {o for o in (rec["options"] or []) if str(o).startswith("images/")}
            images[key] |= refs
            all_images |= refs
    approx = "≈" if scale != 1.0 else ""
    n_qa, n_img = round(sum(qa.values()) * scale), round(len(all_images) * scale)
    print(f"plan for {len(setup.mine)} structure(s)" + (f" (shard {shard[0]}/{shard[1]})" if shard[1] > 1 else "")
          + (f", counted on {len(chosen)} evenly spread and scaled up" if approx else "")
          + (f"; {failed} of them cannot be read" if failed else ""), file=stream)
    print(f"  {'task/split':40s} {'QA':>9s} {'images':>9s}", file=stream)
    for key in sorted(qa):
        print(f"  {key:40s} {approx}{round(qa[key] * scale):>8d} {approx}{round(len(images[key]) * scale):>8d}",
              file=stream)
    print(f"  {'total (images shared across tasks once)':40s} {approx}{n_qa:>8d} {approx}{n_img:>8d}", file=stream)
    if samples_failed:
        print(f"  {approx}{round(samples_failed * scale)} sample(s) cannot be made (rejected after bounded retries)",
              file=stream)
    if setup.discovery.unused:
        print(f"  {len(setup.discovery.unused)} file(s) given but not used (see generate's failures.jsonl)",
              file=stream)
    report = {"structures": len(setup.mine), "sampled": len(chosen), "qa": n_qa, "images": n_img,
              "samples_failed": round(samples_failed * scale),
              "per_task_split": {k: {"qa": round(qa[k] * scale), "images": round(len(images[k]) * scale)}
                                 for k in sorted(qa)},
              "plan_seconds_per_structure": statistics.mean(plan_seconds) if plan_seconds else 0.0}
    if config.render and first is not None:
        per_image, build = _calibrate(first[0], first[1], config.out, config.device)
        if per_image is not None:
            total = len(setup.mine) * report["plan_seconds_per_structure"] + n_img * per_image \
                + len(setup.mine) * build
            gpus = config.gpus
            parallel = max(1, gpus and min(config.workers, gpus) or 1)
            report.update(seconds_per_image=per_image, scene_seconds=build, estimate_seconds=total / parallel)
            print(f"calibration: {per_image:.2f} s per image (render, labels, sidecar), {build:.2f} s per scene, "
                  f"{report['plan_seconds_per_structure']:.2f} s planning per structure", file=stream)
            print(f"estimate: {_duration(total / parallel)} with {parallel} worker(s) on {config.device}"
                  + ("" if gpus else " (on the CPU, extra workers share the same cores: no speed-up expected)"),
                  file=stream)
    return report


def _calibrate(structure, samples, out: Path, device: str) -> tuple:
    """Render a few of the first structure's images into a scratch folder inside ``out``:
    (median seconds per image, seconds to build the scene), or (None, 0.0) if that fails."""
    created = not Path(out).exists()
    scratch = Path(out) / ".misigen-calibration"
    specs = [s for s in all_specs(samples).values() if s.structure_id == structure.id]   # not T5's partner
    specs = [s for s in specs if s.residues == specs[0].residues][:CALIBRATION_IMAGES] if specs else []
    try:
        scratch.mkdir(parents=True, exist_ok=True)
        done = render_group(structure, specs, scratch, device)
        return statistics.median(done.wall_seconds), done.build_seconds
    except Exception as exc:  # noqa: BLE001 - an estimate is optional; say why there is none
        print(f"calibration render failed ({type(exc).__name__}: {exc}); no time estimate", file=sys.stderr)
        return None, 0.0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if created:
            shutil.rmtree(out, ignore_errors=True)


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
