"""Blind baselines for a generated dataset (``core/tasks/audit.py``), for ``generate`` and the ``audit`` command.

Reads OUT/annotations.jsonl, the audit settings the suite put in OUT/manifest.json, and the
images (grey scale, downsampled); writes OUT/audit.json. The report is not ok when a guesser
beats its bar by more than the margin, a step of a choice task is needed too seldom, or an
image repeats within a record (the ``audit`` command then exits 1: ``commands/audit.py``); a
guesser whose task has too few questions to judge is listed (``too_few``) and fails nothing.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from ..core.tasks.audit import audit_records
from ..core.tasks.spec import load_dataset_modules
from . import progress
from .output import inside, write_json_atomic


class ImageLoader:
    """Path (relative to OUT) → small grey-scale float array, cached; ``digest`` → file hash."""

    def __init__(self, out: Path, size: int = 64):
        self.out, self.size = Path(out), int(size)
        self._arrays: dict = {}
        self._digests: dict = {}
        self.bar = None                  # a progress bar counting the images read

    def __call__(self, rel: str):
        if rel not in self._arrays:
            from PIL import Image
            try:
                with Image.open(inside(self.out, rel)) as im:
                    small = im.convert("L").resize((self.size, self.size), Image.BILINEAR)
                    self._arrays[rel] = np.asarray(small, dtype=np.float32) / 255.0
            except (OSError, ValueError):
                self._arrays[rel] = None
            if self.bar is not None:
                self.bar.update(1)
        return self._arrays[rel]

    def digest(self, rel: str):
        if rel not in self._digests:
            try:
                self._digests[rel] = hashlib.sha256(inside(self.out, rel).read_bytes()).hexdigest()
            except OSError:
                self._digests[rel] = None
        return self._digests[rel]


def audit_dataset(out: Path, settings: dict | None = None) -> dict:
    """Audit the dataset in ``out``; write ``out/audit.json``; return the report."""
    out = Path(out)
    records = [json.loads(line) for line in (out / "annotations.jsonl").read_text().splitlines() if line.strip()]
    manifest = out / "manifest.json"
    meta = json.loads(manifest.read_text()) if manifest.is_file() else {}
    load_dataset_modules(meta, out)           # the suite's own task modules, if any
    if settings is None:
        settings = meta.get("audit_settings", {})
    images = any((out / p).is_file() for r in records[:50] for p in r["images"][:1])
    loader = ImageLoader(out, settings.get("image_size", 64)) if images else None
    bar = None
    if loader is not None and progress.enabled():       # the images are what takes the time
        from tqdm import tqdm
        bar = loader.bar = tqdm(total=len({p for r in records for p in r["images"]}), desc="audit", unit="image",
                                file=sys.stderr, dynamic_ncols=True, mininterval=0.5)
    try:
        report = audit_records(records, loader, settings)
    finally:
        if bar is not None:
            bar.close()
    write_json_atomic(inside(out, "audit.json"), report, indent=1)
    return report


def audit_summary(report: dict) -> dict:
    """The part of the audit that goes into the manifest."""
    return {"ok": report["ok"], "flagged": report["flagged"], "known": report["known"],
            "too_few": report.get("too_few", []), "unneeded": report.get("unneeded", []),
            "repeated_images": report["repeated_images"], "images": report["settings"]["images"]}

