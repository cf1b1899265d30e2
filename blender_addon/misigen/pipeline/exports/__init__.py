"""The ``export`` command: a generated dataset in the formats training and evaluation tools read.

- ``hf``: a folder ``datasets.load_dataset(DIR)`` loads as is (``hf.py``);
- ``sharegpt``: multi-image conversations for LLaMA-Factory and ms-swift (``sharegpt.py``);
- ``lmms-eval``: an lmms-eval task folder, one task per score row (``lmms_eval.py``).

Every export chooses its questions the same way (``--split``, ``--tiny N`` per task from the
seed, ``--few-shot K`` examples from the train split (every split when there is none) that show
none of the complexes the question shows),
links the dataset's images instead of copying them (a relative symbolic link; a copy of
only the images used where the file system has no links) and documents its fields in
``DIR/README.md``. Nothing is written outside DIR.

An export is re-runnable: DIR/.misigen-export.json names the dataset it holds and the files it
wrote. Exporting the same dataset (same folder, or same annotations) into DIR again replaces that
export (files it no longer writes are removed; the same command gives identical files). A DIR
that holds another dataset's export, or anything that is not an export, is refused before
anything is written.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from ...core.errors import InputError
from ..folder_lock import lock_folder
from ..output import file_sha256, write_json_atomic
from .selection import Selection, link_images, select, subset_note  # noqa: F401  (the formats' shared part)


def run_export(dataset: Path, fmt: str, out: Path, split: str, tiny_n: int | None = None, few_shot: int = 0,
               seed: int | None = None, rationale: bool = False) -> dict:
    from . import hf, lmms_eval, sharegpt

    writers = {"hf": hf.write, "sharegpt": sharegpt.write, "lmms-eval": lmms_eval.write}
    if fmt not in writers:
        raise InputError("--format", f"must be one of {', '.join(writers)}, not {fmt!r}")
    out = Path(out)
    if out.resolve() == Path(dataset).resolve() or Path(dataset).resolve() in out.resolve().parents:
        raise InputError(out, "export into a folder outside the dataset folder")
    if rationale and fmt != "sharegpt":
        raise InputError("--rationale", f"is for --format sharegpt (the {fmt} export carries the rationale field "
                                        "as it is)")
    _claim(out, Path(dataset))                        # refuses before anything is written (the lock too)
    sel = select(dataset, split, tiny_n, few_shot, seed)
    sel.rationale = rationale
    with lock_folder(out, what="export"):          # one writer per export folder (folder_lock.py)
        previous = _claim(out, Path(dataset))         # again, now that no other export can write
        sel.replacing = previous is not None
        writers[fmt](sel, out)
        _finish(out, Path(dataset), fmt, sel, previous)
    return {"records": len(sel.records), "splits": {k: len(v) for k, v in sel.splits().items()},
            "warnings": sel.warnings}


MARKER = ".misigen-export.json"


def _dataset_id(dataset: Path) -> dict:
    sha = file_sha256(dataset / "annotations.jsonl") if (dataset / "annotations.jsonl").is_file() else None
    return {"dataset": str(dataset.resolve()), "annotations_sha256": sha}


def _claim(out: Path, dataset: Path) -> dict | None:
    """The earlier export of this dataset in ``out`` (its marker), None for a new or empty folder;
    InputError for a folder holding anything else."""
    if not out.exists():
        return None
    if not out.is_dir():
        raise InputError(out, "exists and is not a folder")
    marker = out / MARKER
    if not marker.is_file():
        # lock files of the export itself (taken before this check) do not count
        if any(not p.name.startswith(".misigen") for p in out.iterdir()):
            raise InputError(out, "is not empty and holds no misigen export; export into a new or empty folder")
        return None
    try:
        previous = json.loads(marker.read_text())
    except ValueError:
        raise InputError(marker, "not JSON (a damaged export folder); remove the folder and export again") from None
    mine = _dataset_id(dataset)
    same = previous.get("dataset") == mine["dataset"] or (
        mine["annotations_sha256"] and previous.get("annotations_sha256") == mine["annotations_sha256"])
    if not same:
        raise InputError(out, f"holds an export of another dataset ({previous.get('dataset')}); "
                              "export into another folder (or remove this one)")
    return previous


def _finish(out: Path, dataset: Path, fmt: str, sel: Selection, previous: dict | None) -> None:
    """Remove what the earlier export wrote and this one did not; write the marker."""
    root = out.resolve()
    for rel in sorted(set((previous or {}).get("files", [])) - sel.written, reverse=True):
        path = sel.path(out, rel)
        sel.written.discard(rel)
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
        parent = path.parent
        while parent != root and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()                        # folders left empty (a split no longer exported)
            parent = parent.parent
    write_json_atomic(out / MARKER, {**_dataset_id(dataset), "format": fmt, "files": sorted(sel.written)},
                      indent=1)
