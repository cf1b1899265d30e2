"""The ``validate`` command: check a dataset folder against the contract; list every defect."""
from __future__ import annotations

import json
from pathlib import Path

from .png_check import png_size

RECORD_KEYS = ("id", "task", "split", "structure", "question", "images", "options", "answer", "program", "seed")
SIDECAR_KEYS = ("width", "height", "camera", "atoms", "labels")
ATOM_KEYS = ("chain", "resseq", "icode", "resname", "name", "element", "ligand", "camera_xyz", "pixel",
             "depth", "visible")


def validate_dataset(out: Path) -> list[str]:
    """Every problem found, as 'where: what' lines (empty list = valid)."""
    from ..core.tasks import score_answer

    out = Path(out)
    problems: list[str] = []
    for name in ("manifest.json", "annotations.jsonl", "failures.jsonl"):
        if not (out / name).is_file():
            problems.append(f"{name}: missing")
    if problems:
        return problems
    try:
        json.loads((out / "manifest.json").read_text())
    except ValueError as exc:
        problems.append(f"manifest.json: not JSON ({exc})")
    ids, checked_images = [], {}
    for n, line in enumerate((out / "annotations.jsonl").read_text().splitlines(), 1):
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
        if rec["split"] not in ("train", "test"):
            problems.append(f"{where}: split {rec['split']!r}")
        if not rec["question"].strip() or not rec["answer"].strip():
            problems.append(f"{where}: empty question or answer")
        paths = list(rec["images"])
        opts = rec["options"]
        if opts is not None:
            if len(opts) != 4 or len(set(opts)) != 4:
                problems.append(f"{where}: options must be 4 distinct, got {opts}")
            paths += [o for o in opts if isinstance(o, str) and o.startswith("images/")]
        for rel in paths:
            if rel not in checked_images:
                checked_images[rel] = _check_image(out, rel)
            if checked_images[rel]:
                problems.append(f"{where}: {rel}: {checked_images[rel]}")
        try:
            score = score_answer(rec["task"], rec["answer"], rec)
            if score.get("exact") != 1:
                problems.append(f"{where}: the stated answer does not score as correct ({score})")
            elif score.get("prediction") not in (None, rec["answer"]):   # scoring reads leniently; answers are canonical
                problems.append(f"{where}: answer {rec['answer']!r} is not in canonical form {score['prediction']!r}")
        except Exception as exc:  # noqa: BLE001 - any parse failure is a defect to report
            problems.append(f"{where}: answer does not parse ({type(exc).__name__}: {exc})")
    if ids != sorted(ids):
        problems.append("annotations.jsonl: records not sorted by id")
    if len(ids) != len(set(ids)):
        problems.append("annotations.jsonl: duplicate ids")
    for n, line in enumerate((out / "failures.jsonl").read_text().splitlines(), 1):
        try:
            json.loads(line)
        except ValueError:
            problems.append(f"failures.jsonl:{n}: not JSON")
    return problems


def _check_image(out: Path, rel: str) -> str:
    path = out / rel
    if ".." in Path(rel).parts or not path.is_file():
        return "image missing"
    try:
        w, h = png_size(path)
    except (ValueError, OSError, Exception) as exc:  # zlib.error and friends
        return f"image does not decode ({exc})"
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
