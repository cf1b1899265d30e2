"""The ``validate`` command: check a dataset folder against its manifest and the contract.

Beyond the shape of every file it checks what can be re-derived without the inputs:
- the manifest against the folder: record count, ``annotations_sha256``, image and failure counts;
- every image decodes (Pillow) at the size its sidecar states;
- options: 2–4 distinct, as many as the record's program lists;
- answers parse, are canonical and agree with the record's program (its answer kind's ``check``);
- answers replay on the sidecars (its task type's ``rederive``: e.g. an after-image's atoms sit
  where the answer's transform puts the start image's; named atoms exist in the images);
- rationales replay on the sidecars (``core.rationale.replay``): every atom cited is visible and
  labelled in the image named, every pixel reading, standard length and limit quoted is re-read,
  every step's arithmetic (the estimates in Å and degrees) is redone from the quoted numbers, no
  number is one only the sidecar knows (``core.rationale.scan``), and the rationale ends with the answer.
Every mismatch is a defect: one 'where: what' line each. The rules come from the task registry.

A plan-only folder (``generate --plan-only``: the manifest says ``"render": false``) has no images
by design: its image paths are checked for form only and the sidecar re-derivation is skipped;
everything else is checked as for a rendered folder.
"""
from __future__ import annotations

import collections
import functools
import json
from pathlib import Path

import numpy as np

from ..core.scene.sidecar import Sidecar
from ..core.tasks import REGISTRY, score_answer
from ..core.tasks.spec import load_dataset_modules
from . import progress
from .output import file_sha256

RECORD_KEYS = ("id", "task", "split", "structure", "question", "images", "options", "answer", "program", "seed")
SIDECAR_KEYS = ("width", "height", "camera", "atoms", "labels")
ATOM_KEYS = ("chain", "resseq", "icode", "resname", "name", "element", "ligand", "camera_xyz", "pixel",
             "depth", "visible")
MAX_OPTIONS = 4           # letters A–D


def is_plan_only(manifest: dict | None) -> bool:
    """Whether the folder was written by ``generate --plan-only`` (records, no images)."""
    return isinstance(manifest, dict) and manifest.get("render") is False


def validate_dataset(out: Path, notes: list | None = None) -> list[str]:
    """Every problem found, as 'where: what' lines (empty list = valid). ``notes``, when given,
    receives lines about what was not checked and why (a plan-only folder's images)."""
    out = Path(out)
    problems: list[str] = []
    for name in ("manifest.json", "annotations.jsonl", "failures.jsonl"):
        if not (out / name).is_file():
            problems.append(f"{name}: missing")
    if problems:
        return problems
    try:
        manifest = json.loads((out / "manifest.json").read_text())
    except ValueError as exc:
        manifest = None
        problems.append(f"manifest.json: not JSON ({exc})")
    try:
        load_dataset_modules(manifest or {}, out)
    except Exception as exc:  # noqa: BLE001 - a task module that will not load is one clear problem
        problems.append(f"manifest.json: suite task modules: {exc}")

    plan_only = is_plan_only(manifest)
    check_image = _check_image_path if plan_only else _check_image

    @functools.lru_cache(maxsize=256)
    def sidecar(rel: str) -> Sidecar | None:
        try:
            return Sidecar(json.loads((out / rel).with_suffix(".json").read_text()))
        except (OSError, ValueError, KeyError, TypeError, np.linalg.LinAlgError):
            return None

    ids, checked_images, referenced, per_task_split = [], {}, set(), collections.Counter()
    lines = (out / "annotations.jsonl").read_text().splitlines()
    for n, line in enumerate(progress.bar(lines, "validate"), 1):
        where = f"annotations.jsonl:{n}"
        try:
            rec = json.loads(line)
        except ValueError as exc:
            problems.append(f"{where}: not JSON ({exc})")
            continue
        missing = [k for k in RECORD_KEYS if k not in rec]
        if missing:
            problems.append(f"{where}: missing keys {missing}")
            continue
        ids.append(rec["id"])
        per_task_split[f"{rec['task']}/{rec['split']}"] += 1
        if rec["split"] not in ("train", "test"):
            problems.append(f"{where}: split {rec['split']!r}")
        if not rec["question"].strip() or not rec["answer"].strip():
            problems.append(f"{where}: empty question or answer")
        paths = list(rec["images"])
        opts = rec["options"]
        if opts is not None:
            problems += [f"{where}: {p}" for p in _check_options(opts, rec["program"] or {})]
            paths += [o for o in opts if isinstance(o, str) and o.startswith("images/")]
        bad_image = False
        for rel in paths:
            referenced.add(rel)
            if rel not in checked_images:
                checked_images[rel] = check_image(out, rel)
            if checked_images[rel]:
                problems.append(f"{where}: {rel}: {checked_images[rel]}")
                bad_image = True
        problems += [f"{where}: {p}" for p in _check_answer(rec)]
        if not bad_image and not plan_only:
            try:
                problems += [f"{where}: {p}" for p in _rederive(rec, sidecar)]
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                problems.append(f"{where}: cannot re-derive the answer ({type(exc).__name__}: {exc})")
            problems += [f"{where}: {p}" for p in _check_rationale(rec, sidecar)]
    if not lines:
        problems.append("annotations.jsonl: no records (nothing was generated; see failures.jsonl)")
    if ids != sorted(ids):
        problems.append("annotations.jsonl: records not sorted by id")
    if len(ids) != len(set(ids)):
        problems.append("annotations.jsonl: duplicate ids")
    fail_lines = (out / "failures.jsonl").read_text().splitlines()
    for n, line in enumerate(fail_lines, 1):
        try:
            json.loads(line)
        except ValueError:
            problems.append(f"failures.jsonl:{n}: not JSON")
    if manifest is not None:
        problems += _check_manifest(out, manifest, len(lines), referenced, len(fail_lines), per_task_split)
    if plan_only and notes is not None:
        notes.append(f"plan-only dataset (generate --plan-only): {len(referenced)} image(s) planned, none rendered; "
                     "checked records, answers and the manifest; images, sidecars and the answers' re-derivation "
                     "from them are not checked")
    return problems


def _check_rationale(rec: dict, sidecar) -> list[str]:
    """A record's rationale replays on its sidecars (records without one carry null: nothing to check)."""
    if not rec.get("rationale"):
        return []
    from ..core.rationale import replay
    try:
        build = REGISTRY.of(rec["task"], rec["program"]).rationale
    except ValueError as exc:
        return [f"rationale: {exc}"]
    paths = list(rec["images"]) + [o for o in (rec["options"] or []) if str(o).startswith("images/")]
    cars = {}
    for rel in paths:
        sc = sidecar(rel)
        if sc is None:
            return [f"rationale: no readable sidecar for {rel}"]
        cars[rel] = sc.meta
    try:
        return replay(rec, cars, build)
    except (ValueError, KeyError, IndexError, TypeError, ZeroDivisionError) as exc:
        return [f"rationale cannot be replayed ({type(exc).__name__}: {exc})"]


def _check_manifest(out: Path, manifest: dict, n_records: int, referenced: set, n_failures: int,
                    per_task_split: collections.Counter) -> list[str]:
    """The dataset against what its manifest says about it."""
    problems = []
    counts = manifest.get("counts")
    if not isinstance(counts, dict):
        return ["manifest.json: no counts"]
    if counts.get("records") != n_records:
        problems.append(f"manifest.json: says {counts.get('records')} records, annotations.jsonl has {n_records}")
    sha = file_sha256(out / "annotations.jsonl")
    if manifest.get("annotations_sha256") != sha:
        problems.append("manifest.json: annotations_sha256 does not match annotations.jsonl "
                        "(the file was changed or cut after it was written)")
    if counts.get("images") != len(referenced):
        problems.append(f"manifest.json: says {counts.get('images')} images, the records reference {len(referenced)}")
    if counts.get("failures") != n_failures:
        problems.append(f"manifest.json: says {counts.get('failures')} failures, failures.jsonl has {n_failures}")
    if counts.get("per_task_split") is not None and counts["per_task_split"] != dict(sorted(per_task_split.items())):
        problems.append("manifest.json: per_task_split counts do not match annotations.jsonl")
    return problems


def _check_image_path(out: Path, rel: str) -> str:
    """A planned image's path: a PNG name directly under images/ (the file itself is not made)."""
    parts = Path(rel).parts
    if not isinstance(rel, str) or len(parts) != 2 or parts[0] != "images" or not rel.endswith(".png") \
            or Path(rel).is_absolute():
        return "not an images/<name>.png path"
    return ""


def _check_image(out: Path, rel: str) -> str:
    from PIL import Image

    path = out / rel
    if ".." in Path(rel).parts or not path.is_file():
        return "image missing"
    try:
        with Image.open(path) as im:
            im.load()                          # decodes every pixel: truncation and bad CRCs show here
            fmt, (w, h) = im.format, im.size
    except Exception as exc:  # noqa: BLE001 - Pillow raises many types on damaged files
        return f"image does not decode ({type(exc).__name__}: {exc})"
    if fmt != "PNG":
        return f"image is {fmt}, not PNG"
    side = path.with_suffix(".json")
    if not side.is_file():
        return "sidecar missing"
    try:
        meta = json.loads(side.read_text())
    except ValueError:
        return "sidecar not JSON"
    missing = [k for k in SIDECAR_KEYS if k not in meta]
    if missing:
        return f"sidecar missing keys {missing}"
    if (meta["width"], meta["height"]) != (w, h):
        return f"sidecar says {meta['width']}x{meta['height']}, PNG is {w}x{h}"
    if meta["atoms"] and any(k not in meta["atoms"][0] for k in ATOM_KEYS):
        return "sidecar atoms lack required keys"
    return ""


def _check_options(opts: list, program: dict) -> list[str]:
    """2–4 distinct options, as many as the program lists (a spec may ask 2, 3 or 4)."""
    want = len(program["options"]) if isinstance(program.get("options"), list) else None
    if not 2 <= len(opts) <= MAX_OPTIONS or len(set(opts)) != len(opts) or (want is not None and len(opts) != want):
        return [f"options must be {want or f'2–{MAX_OPTIONS}'} distinct, got {opts}"]
    return []


def _check_answer(rec: dict) -> list[str]:
    """The answer parses, is canonical and agrees with the record's program."""
    answer, program = rec["answer"], rec["program"] or {}
    problems = []
    try:                                   # the task's own parser reads the answer back
        score = score_answer(rec["task"], answer, rec)
        if score.get("exact") != 1:
            problems.append(f"the stated answer does not score as correct against itself: {answer!r}")
        elif score.get("prediction") not in (None, answer):   # scoring reads leniently; answers are canonical
            problems.append(f"answer {answer!r} is not in canonical form {score['prediction']!r}")
    except Exception as exc:  # noqa: BLE001 - any parse failure is a defect to report
        return [f"answer does not parse ({type(exc).__name__}: {exc})"]
    check = REGISTRY.kind_of(rec["task"], program).check
    return problems + (check(rec) if check else [])


def _rederive(rec: dict, sidecar) -> list[str]:
    """Re-derive what the sidecars allow (the task type's rule); a list of mismatches."""
    rederive = REGISTRY.of(rec["task"], rec["program"]).rederive
    return rederive(rec, sidecar) if rederive else []
