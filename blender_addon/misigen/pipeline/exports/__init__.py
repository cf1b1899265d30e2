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
"""
from __future__ import annotations

from pathlib import Path

from ...core.errors import InputError
from ..folder_lock import lock_folder
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
    sel = select(dataset, split, tiny_n, few_shot, seed)
    sel.rationale = rationale
    with lock_folder(out, what="export"):          # one writer per export folder (folder_lock.py)
        writers[fmt](sel, out)
    return {"records": len(sel.records), "splits": {k: len(v) for k, v in sel.splits().items()},
            "warnings": sel.warnings}
