"""``export --format hf``: a folder that ``datasets.load_dataset(DIR)`` loads as is.

Layout (the ImageFolder builder of ``datasets`` with metadata, one folder per split):

    DIR/README.md                  dataset card; its YAML header names the splits' files
    DIR/<split>/metadata.parquet   one row per question (explicit schema, so every split agrees)
    DIR/<split>/images -> OUT/images   a relative link; no image is copied

``file_names`` in the metadata become the ``images`` column, a sequence of images; with
``--few-shot`` a ``few_shot`` column holds the worked examples, each with its own images.
Writing Parquet needs pyarrow, which ``datasets`` brings; it is imported only here.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ...core.errors import InputError
from ...core.tasks.scoring import score_row
from .. import progress
from ..output import write_text_atomic
from ..records import option_texts, prompt_images
from .selection import Selection, link_images, subset_note

FIELDS = {
    "id": "stable question id (as in OUT/annotations.jsonl)",
    "task": "task name (the suite's; see the dataset card below)",
    "row": "score-table row: the task, Yes/No tasks split into /pos and /neg by their true answer",
    "split": "train or test (by structure)",
    "structure": "input structure id",
    "question": "the full prompt a model receives",
    "images": "every image the prompt refers to, in prompt order (image options last)",
    "options": "the A–D options: their texts, or 'image N' (N counts from 1 in images) for image options; "
               "empty for open questions",
    "answer": "the expected answer string",
    "rationale": "step-by-step explanation from the images ending with the answer (empty where none)",
    "level": "difficulty level: easy, medium or hard (features in program.difficulty)",
    "program": "machine-readable ground truth (JSON text): operations, centres, H-bonds, correct letter",
    "seed": "the question's seed (as text: an unsigned 64-bit number)",
    "few_shot": "(with --few-shot) worked examples of the same task from other structures: id, question, "
                "answer, images",
}


def _schema(pa, few_shot: bool):
    cols = [("id", pa.string()), ("task", pa.string()), ("row", pa.string()), ("split", pa.string()),
            ("structure", pa.string()), ("question", pa.string()), ("file_names", pa.list_(pa.string())),
            ("options", pa.list_(pa.string())), ("answer", pa.string()), ("rationale", pa.string()),
            ("level", pa.string()), ("program", pa.string()),
            ("seed", pa.string())]
    if few_shot:
        cols.append(("few_shot", pa.list_(pa.struct([("id", pa.string()), ("question", pa.string()),
                                                     ("answer", pa.string()),
                                                     ("file_names", pa.list_(pa.string()))]))))
    return pa.schema(cols)


def _row(rec: dict, sel: Selection) -> dict:
    row = {"id": rec["id"], "task": rec["task"], "row": score_row(rec), "split": rec["split"],
           "structure": rec.get("structure", ""), "question": rec.get("question", ""),
           "file_names": prompt_images(rec), "options": option_texts(rec), "answer": rec["answer"],
           "rationale": rec.get("rationale") or "",
           "level": ((rec.get("program") or {}).get("difficulty") or {}).get("level", ""),
           "program": json.dumps(rec.get("program", {}), sort_keys=True, ensure_ascii=False),
           "seed": str(rec.get("seed", ""))}
    if sel.few_shot:
        row["few_shot"] = [{"id": ex["id"], "question": ex.get("question", ""), "answer": ex["answer"],
                            "file_names": prompt_images(ex)} for ex in sel.shots.get(rec["id"], [])]
    return row


def write(sel: Selection, out: Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("--format hf", "needs pyarrow (pip install datasets, which brings it)") from None
    schema = _schema(pa, bool(sel.few_shot))
    splits = sel.splits()
    for split, recs in splits.items():
        table = pa.Table.from_pylist([_row(r, sel) for r in progress.bar(recs, f"export: {split}")], schema=schema)
        path = sel.path(out, f"{split}/metadata.parquet")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
        pq.write_table(table, tmp)
        os.replace(tmp, path)
        link_images(sel, sel.path(out, f"{split}/images"))
    write_text_atomic(sel.path(out, "README.md"), card(sel, list(splits)))


def card(sel: Selection, splits: list[str]) -> str:
    from ..dataset_card import dataset_card

    files = "".join(f"  - split: {s}\n    path:\n    - {s}/metadata.parquet\n    - {s}/images/*.png\n" for s in splits)
    header = ("---\nconfigs:\n- config_name: default\n  data_files:\n" + files +
              "task_categories:\n- visual-question-answering\ntags:\n- molecules\n- spatial-reasoning\n"
              "- MiSI-Bench\n- misigen\nlicense: other\n---\n\n")
    fields = "\n".join(f"| `{k}` | {v} |" for k, v in FIELDS.items() if k != "few_shot" or sel.few_shot)
    usage = (f"## This export\n\nQuestions: {subset_note(sel)}. Load it with\n\n"
             "    import datasets\n    ds = datasets.load_dataset(\"PATH/TO/THIS/FOLDER\")\n\n"
             "Images are not copied: `<split>/images` links to the dataset's `images/` folder "
             "(copy with `cp -rL` to make a self-contained folder, e.g. before uploading).\n\n"
             "| field | meaning |\n|---|---|\n" + fields + "\n\n")
    return header + usage + dataset_card(sel.manifest, heading_level=2)
