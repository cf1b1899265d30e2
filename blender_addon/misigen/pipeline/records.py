"""Reading a generated dataset folder back (records, manifest) and choosing subsets of it the
same way everywhere: by split, a deterministic ``--tiny N`` draw per task, few-shot examples."""
from __future__ import annotations

import codecs
import hashlib
import json
import re
from pathlib import Path, PurePosixPath

from ..core.errors import InputError
from ..core.tasks.spec import load_dataset_modules

SPLITS = ("train", "test", "all")


def load_records(out: Path) -> list[dict]:
    """Every QA record of ``OUT/annotations.jsonl``; a bad line is an InputError naming it. The
    task modules of the dataset's suite (its own tasks, if any) are loaded into the registry."""
    path = Path(out) / "annotations.jsonl"
    if not path.is_file():
        raise InputError(path, "missing (is this a folder written by 'generate'?)")
    load_dataset_modules(load_manifest(out), out)
    records = []
    for n, rec in jsonl_lines(path):
        if not isinstance(rec, dict) or not all(k in rec for k in ("id", "task", "split", "answer", "images")):
            raise InputError(path, f"line {n}: not a QA record (needs id, task, split, answer, images)")
        records.append(rec)
    return records


# Byte-order marks, longest first (UTF-32 LE starts with UTF-16 LE's).
BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def read_text(path: Path) -> str:
    """A text file in UTF-8, or any UTF with a byte-order mark (Windows tools write UTF-16); anything
    else is an InputError naming the file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot be read ({exc.strerror or exc})") from None
    encoding = next((enc for bom, enc in BOMS if data.startswith(bom)), None)
    if encoding is None and b"\x00" in data[:4096]:
        raise InputError(path, "not a text file (NUL bytes and no UTF-16/32 byte-order mark)")
    try:
        return data.decode(encoding or "utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not a text file in {encoding or 'UTF-8'} (byte {exc.start}: "
                               f"{data[exc.start:exc.start + 1]!r}); save it as UTF-8") from None


def jsonl_lines(path: Path):
    """(line number, parsed object) of every non-empty line; a bad line is an InputError naming it."""
    for n, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except ValueError as exc:
            raise InputError(path, f"line {n}: not JSON ({exc})") from None


def load_manifest(out: Path) -> dict:
    path = Path(out) / "manifest.json"
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InputError(path, f"not JSON ({exc})") from None


def task_order(records, manifest: dict | None = None) -> list[str]:
    """Tasks in suite order (the manifest's), then any others by name."""
    present = {r["task"] for r in records}
    listed = [t for t in (manifest or {}).get("tasks", []) if t in present]
    return listed + sorted(present - set(listed))


def by_split(records, split: str, where: Path | str = "--split") -> list[dict]:
    if split not in SPLITS:
        raise InputError(where, f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    chosen = [r for r in records if split == "all" or r["split"] == split]
    if not chosen:
        have = sorted({r["split"] for r in records}) or ["none"]
        raise InputError(where, f"no records in split {split!r} (the dataset has: {', '.join(have)})")
    return chosen


def _rank(seed: int, *keys: str) -> str:
    return hashlib.sha256("/".join([str(seed), *keys]).encode()).hexdigest()


def tiny(records, n: int | None, seed: int) -> list[dict]:
    """``n`` records per task drawn deterministically from ``seed`` (all of a task with fewer),
    in id order; the draw depends only on (seed, id), not on how the dataset was written."""
    if n is None:
        return list(records)
    if n < 1:
        raise InputError("--tiny", f"must be a positive number of questions per task, not {n}")
    chosen = []
    for task in sorted({r["task"] for r in records}):
        mine = sorted((r for r in records if r["task"] == task), key=lambda r: _rank(seed, "tiny", r["id"]))
        chosen += mine[:n]
    return sorted(chosen, key=lambda r: r["id"])


IMAGE_KEY = re.compile(r"^(?P<structure>.+)_[0-9a-f]{16}$")   # images/<structure id>_<16 hex>.png


def shown_structures(record: dict) -> set[str]:
    """Every complex a record's prompt shows: its own, and any other whose images it uses (T5
    pairs a complex with a partner); read from the image names (``<structure>_<hash>.png``)."""
    out = {record["structure"]}
    for rel in prompt_images(record):
        m = IMAGE_KEY.match(PurePosixPath(str(rel)).stem)
        if m:
            out.add(m.group("structure"))
    return out


def few_shot_pool(records: list[dict]) -> tuple[list[dict], str]:
    """Where worked examples come from: the train split, or every record when the dataset has no
    train split; and a note saying which."""
    train = [r for r in records if r["split"] == "train"]
    if train:
        return train, ""
    return list(records), "the dataset has no train split: worked examples come from other complexes of its test split"


def few_shot_examples(question: dict, train: list[dict], k: int, seed: int) -> list[dict]:
    """``k`` worked examples for ``question``: records (``few_shot_pool``) of the same task that show
    none of the complexes the question shows (so no image of an example reveals the question's
    complex: docking's crystal pose is in the same complex's T8/T9 images), drawn
    deterministically from (seed, question id). Fewer when fewer exist."""
    if k <= 0:
        return []
    mine = shown_structures(question)
    pool = [r for r in train if r["task"] == question["task"] and r["id"] != question["id"]
            and not shown_structures(r) & mine]
    pool.sort(key=lambda r: _rank(seed, "shot", question["id"], r["id"]))
    return pool[:k]


def prompt_images(record: dict) -> list[str]:
    """Every image the prompt refers to, in prompt order: the images, then option images."""
    opts = [o for o in (record.get("options") or []) if isinstance(o, str) and o.startswith("images/")]
    return list(record["images"]) + opts


def option_texts(record: dict) -> list[str]:
    """The A–D options as text: the option texts, or 'image N' (1-based in prompt order) for
    image options; [] for questions without options."""
    opts = record.get("options") or []
    if opts and all(isinstance(o, str) and o.startswith("images/") for o in opts):
        first = len(record["images"]) + 1
        return [f"image {first + i}" for i in range(len(opts))]
    return [str(o) for o in opts]
