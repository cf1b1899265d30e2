"""The run folder: what it is a run of (its identity), the per-structure parts that record
finished work, and the dataset files merged from them.

Each finished structure leaves ``parts/<id>.jsonl`` (written atomically, last); a structure
that failed leaves only ``parts/<id>.failures.jsonl``, so a rerun retries it. The merged
``annotations.jsonl`` is rebuilt from the parts, sorted by id, so it is byte-identical however
the work was split. A folder holds one run: ``parts/_run.json`` says which, and a run with other
settings is refused rather than mixed in.
"""
from __future__ import annotations

import collections
import hashlib
import json
from pathlib import Path

from ..core.errors import InputError
from ..core.failures import Failure
from .dataset_card import write_dataset_card
from .output import dumps, file_sha256, inside, write_bytes_atomic, write_json_atomic, write_text_atomic

PARTS_DIR = "parts"
RUN_FILE = f"{PARTS_DIR}/_run.json"                          # what this folder is a run of
DISCOVERY_FAILURES = f"{PARTS_DIR}/_discovery.failures.jsonl"  # inputs given but not used
TOKEN_PREFIX = ".run-"                                     # parts/.run-<token>: "this disk is shared"
# A folder holds one run: these must match to resume into it or to merge shard folders.
IDENTITY_KEYS = ("seed", "split", "tasks", "spec_sha256", "style_sha256", "inputs", "render")


# ------------------------------------------------------------------ parts
def records_part(out: Path, structure_id: str) -> Path:
    return inside(out, f"{PARTS_DIR}/{structure_id}.jsonl")


def failures_part(out: Path, structure_id: str) -> Path:
    return inside(out, f"{PARTS_DIR}/{structure_id}.failures.jsonl")


def jsonl(lines) -> str:
    return "".join(dumps(line) + "\n" for line in lines)


def write_failures(path: Path, failures) -> None:
    write_text_atomic(path, jsonl(f.as_dict() for f in failures))


def write_parts(out: Path, structure_id: str, record_lines: list | None, failures: list) -> None:
    """A unit's parts: its failures, then (when it finished) its records (each already one JSON
    line, ``dumps``), which mark it done."""
    write_failures(failures_part(out, structure_id), failures)
    if record_lines is not None:
        write_text_atomic(records_part(out, structure_id), "".join(line + "\n" for line in record_lines))


def write_failure_part(out: Path, failure: Failure) -> None:
    """A unit that produced nothing leaves only its failures part: the rerun retries it."""
    write_failures(failures_part(out, failure.structure), [failure])


def store_files(out: Path, files: dict) -> None:
    """Write a unit's returned files (relative path -> bytes); its records part last, since it
    marks the unit done."""
    def order(rel: str) -> tuple:
        return (rel.startswith("parts/") and not rel.endswith(".failures.jsonl"), rel.startswith("parts/"), rel)
    for rel in sorted(files, key=order):
        write_bytes_atomic(inside(out, rel), files[rel])


def done_structures(out: Path) -> set:
    parts = inside(out, PARTS_DIR)
    if not parts.exists():
        return set()
    return {p.stem for p in parts.glob("*.jsonl")
            if not p.name.endswith(".failures.jsonl") and not p.name.startswith(("_", "."))}


def read_parts(out: Path) -> tuple[list, list]:
    """Every record and failure line of the folder's parts."""
    records, failures = [], []
    for part in sorted(inside(out, PARTS_DIR).glob("*.jsonl")):
        if part.name.startswith("."):
            continue
        target = failures if part.name.endswith(".failures.jsonl") else records
        target += [json.loads(line) for line in part.read_text().splitlines() if line.strip()]
    return records, failures


# ------------------------------------------------------------------ the dataset files
def merge(out: Path, meta: dict) -> dict:
    """Rebuild annotations.jsonl, failures.jsonl and manifest.json from every finished part."""
    from ..core.tasks import answer_distribution

    records, failures = read_parts(out) if inside(out, PARTS_DIR).exists() else ([], [])
    records.sort(key=lambda r: r["id"])
    failures = sorted({dumps(f): f for f in failures}.values(), key=dumps)   # shards repeat run-level lines
    write_text_atomic(inside(out, "annotations.jsonl"), jsonl(records))
    write_text_atomic(inside(out, "failures.jsonl"), jsonl(failures))
    images = {p for r in records for p in r["images"]} | \
        {p for r in records for p in (r["options"] or []) if str(p).startswith("images/")}
    counts = collections.Counter((r["task"], r["split"]) for r in records)
    asked = collections.Counter(r["task"] for r in records) + collections.Counter(
        f["task"] for f in failures if f.get("task") and f.get("sample"))
    rejected = collections.Counter(f["task"] for f in failures if f.get("category") == "rejected" and f.get("task"))
    manifest = dict(meta)
    manifest.update({
        "counts": {"records": len(records), "images": len(images), "failures": len(failures),
                   "failures_by_category": dict(sorted(collections.Counter(
                       f.get("category") or ("input" if f.get("task") is None else "sample")
                       for f in failures).items())),
                   "structures": len({r["structure"] for r in records}),
                   "images_per_qa": round(len(images) / len(records), 3) if records else 0.0,
                   "per_task_split": {f"{t}/{s}": n for (t, s), n in sorted(counts.items())},
                   "samples_asked_by_task": dict(sorted(asked.items())),
                   "rejected_by_task": dict(sorted(rejected.items()))},
        "answer_distribution": answer_distribution(records),
        "annotations_sha256": file_sha256(inside(out, "annotations.jsonl")),
    })
    write_json_atomic(inside(out, "manifest.json"), manifest, indent=1)
    write_dataset_card(out, manifest)
    return manifest


def previous_devices(out: Path) -> set:
    """The devices the folder's manifest says rendered its earlier images (a resumed run keeps them)."""
    path = inside(out, "manifest.json")
    if not path.exists():
        return set()
    try:
        return set(json.loads(path.read_text()).get("device", []))
    except ValueError:
        return set()


# ------------------------------------------------------------------ run identity
def input_hashes(sources, ligand_of: dict | None = None) -> dict:
    """Per input: its files, their hash and (PDB/mmCIF) the ligand selector it was run with."""
    ligand_of = ligand_of or {}
    return {s.id: {"files": [Path(p).name for p in (s.protein, s.ligand) if p],
                   "sha256": hashlib.sha256(b"".join(file_sha256(p).encode()
                                                     for p in (s.protein, s.ligand) if p)).hexdigest(),
                   **({"ligand": ligand_of[s.id]} if ligand_of.get(s.id) and s.ligand is None else {}),
                   **({"reading": s.reading.changed()} if s.reading.changed() else {})}
            for s in sources}


def run_identity(tasks, sources, ligand_of: dict, style_sha256: str, seed: int, split: str, render: bool) -> dict:
    """What makes two runs the same run (``IDENTITY_KEYS``)."""
    return {"seed": seed, "split": split, "tasks": [t.name for t in tasks],
            "spec_sha256": {t.name: t.spec_hash for t in tasks}, "style_sha256": style_sha256,
            "inputs": input_hashes(sources, ligand_of), "render": bool(render)}


def read_identity(out: Path) -> dict | None:
    path = inside(out, RUN_FILE)
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except ValueError:
        raise InputError(path, "not JSON (a damaged run folder)") from None


def write_identity(out: Path, identity: dict) -> None:
    write_json_atomic(inside(out, RUN_FILE), identity)


def identity_difference(a: dict, b: dict) -> str:
    """'' when two runs may share a folder, else which setting differs."""
    for key in IDENTITY_KEYS:
        if a.get(key) != b.get(key):
            if key == "inputs":
                ids_a, ids_b = set(a.get(key) or {}), set(b.get(key) or {})
                extra = sorted(ids_a ^ ids_b)
                changed = sorted(i for i in ids_a & ids_b if a[key][i] != b[key][i])
                return f"different inputs ({len(extra)} structure(s) not in both, {len(changed)} changed, " \
                       f"e.g. {(extra + changed)[0]})" if extra or changed else "different inputs"
            return f"a different {key} ({json.dumps(a.get(key))[:80]} vs {json.dumps(b.get(key))[:80]})"
    return ""


def check_same_run(out: Path, identity: dict) -> dict | None:
    """The identity already in ``out`` (None for a new folder); InputError if it is another run's."""
    previous = read_identity(out) if Path(out).exists() else None
    if previous is not None and identity_difference(previous, identity):
        raise InputError(out, f"holds a run with {identity_difference(previous, identity)}; "
                              "use another --out (or delete it) to start a new dataset")
    return previous
