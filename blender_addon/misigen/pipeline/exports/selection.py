"""What every export shares: choosing its questions (split, ``--tiny``, few-shot examples: from
the train split, every split when there is none, never showing a complex the question shows),
linking the dataset's images, and the sentence that says which questions it holds."""
from __future__ import annotations

import os
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import InputError
from .. import progress
from ..records import by_split, few_shot_examples, few_shot_pool, load_manifest, load_records, prompt_images, tiny


@dataclass
class Selection:
    """The questions of one export and what goes with them."""
    dataset: Path
    manifest: dict
    records: list[dict]
    shots: dict[str, list[dict]] = field(default_factory=dict)   # question id → worked examples
    seed: int = 0
    split: str = "all"
    tiny: int | None = None
    few_shot: int = 0
    warnings: list[str] = field(default_factory=list)
    rationale: bool = False           # sharegpt --rationale: assistant turns are the rationales
    written: set = field(default_factory=set)    # paths (relative to the export folder) this export wrote
    replacing: bool = False                      # the folder holds an earlier export of this dataset

    def path(self, out: Path, rel: str) -> Path:
        """``out/rel`` for writing, recorded as this export's. Like ``output.inside`` it refuses
        anything outside ``out``, but it does not follow ``rel`` itself: ``images`` may already be
        this export's link to the dataset's images."""
        parts = Path(rel).parts
        if Path(rel).is_absolute() or ".." in parts or not parts:
            raise ValueError(f"refusing to write outside the output folder: {rel!r}")
        root = Path(out).resolve()
        parent = (root / rel).parent.resolve()
        if parent != root and root not in parent.parents:
            raise ValueError(f"refusing to write outside the output folder: {rel!r}")
        self.written.add(Path(rel).as_posix())
        return parent / parts[-1]

    def splits(self) -> dict[str, list[dict]]:
        out: dict[str, list[dict]] = {}
        for r in self.records:
            out.setdefault(r["split"], []).append(r)
        return dict(sorted(out.items(), key=lambda kv: ("train", "test").index(kv[0]) if kv[0] in ("train", "test") else 9))

    def images_used(self) -> set[str]:
        used = {p for r in self.records for p in prompt_images(r)}
        return used | {p for ex in self.shots.values() for r in ex for p in prompt_images(r)}


def select(dataset: Path, split: str, tiny_n: int | None = None, few_shot: int = 0, seed: int | None = None) -> Selection:
    dataset = Path(dataset)
    manifest = load_manifest(dataset)
    seed = int(manifest.get("seed", 0)) if seed is None else seed
    records = load_records(dataset)
    chosen = tiny(by_split(records, split), tiny_n, seed)
    sel = Selection(dataset, manifest, chosen, seed=seed, split=split, tiny=tiny_n, few_shot=few_shot)
    if few_shot < 0:
        raise InputError("--few-shot", f"must be 0 or more, not {few_shot}")
    if few_shot:
        train, note = few_shot_pool(records)
        if note:
            sel.warnings.append(note)
        short = Counter()
        for r in chosen:
            sel.shots[r["id"]] = few_shot_examples(r, train, few_shot, seed)
            if len(sel.shots[r["id"]]) < few_shot:
                short[r["task"]] += 1
        for task, n in sorted(short.items()):
            sel.warnings.append(f"{task}: {n} question(s) got fewer than {few_shot} worked examples "
                                f"(too few records of other complexes to draw from)")
    return sel


def link_images(sel: Selection, link: Path) -> None:
    """``link`` → the dataset's images folder, as a relative symbolic link (so the export and
    the dataset can move together); where links are impossible, copy just the images used."""
    target = (sel.dataset / "images").resolve()
    link = Path(link)
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink():
        if link.resolve() == target:
            return
        link.unlink()
    elif link.is_dir() and sel.replacing:
        shutil.rmtree(link)                      # the images an earlier export copied (no links there)
    elif link.exists():
        raise InputError(link, "exists and is not a link to the dataset's images; export into a new folder")
    try:
        os.symlink(os.path.relpath(target, link.parent), link, target_is_directory=True)
    except OSError as exc:
        sel.warnings.append(f"could not link {link} to {target} ({exc}); copied the images used instead")
        for rel in progress.bar(sorted(sel.images_used()), "export: copy images", unit="image"):
            dest = link.parent / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(sel.dataset / rel, dest)


def subset_note(sel: Selection) -> str:
    """One sentence saying which questions an export holds (for its README)."""
    parts = [f"split {sel.split}"]
    if sel.tiny:
        parts.append(f"{sel.tiny} questions per task drawn with seed {sel.seed}")
    if sel.few_shot:
        parts.append(f"{sel.few_shot} worked examples per question from the train split (other complexes only)")
    return "; ".join(parts)
