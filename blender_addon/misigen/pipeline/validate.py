"""The ``validate`` command: check a dataset folder against its manifest and the contract.

Beyond the shape of every file it checks what can be re-derived without the inputs:
- the manifest against the folder: record count, ``annotations_sha256``, image and failure counts;
- every image decodes (Pillow) at the size its sidecar states;
- move/roll answers against the sidecars: the after-image's atoms sit where the answer's
  transform puts the start image's atoms (translation, rotation, zooming); the docking move
  brings the moved ligand's centre back; the interaction-location option named by the answer
  brings the named H-bond to the screen centre;
- H-bond answers name atoms that exist in the record's images;
- answers agree with the record's program (ops, correct letter).
Every mismatch is a defect: one 'where: what' line each.
"""
from __future__ import annotations

import collections
import functools
import json
from pathlib import Path

import numpy as np

from ..core import geometry
from ..core.commands import parse_ops
from .output import file_sha256

RECORD_KEYS = ("id", "task", "split", "structure", "question", "images", "options", "answer", "program", "seed")
SIDECAR_KEYS = ("width", "height", "camera", "atoms", "labels")
ATOM_KEYS = ("chain", "resseq", "icode", "resname", "name", "element", "ligand", "camera_xyz", "pixel",
             "depth", "visible")
CLOZE_TASKS = ("translation", "rotation", "zooming")
LETTERS = "ABCD"
TOLERANCE = 0.02          # Å: sidecar coordinates are rounded to 0.001 Å


class Sidecar:
    """The parts of one image's sidecar that the checks use."""

    def __init__(self, meta: dict):
        self.meta = meta
        atoms = meta["atoms"]
        self.keys = [(a["chain"], int(a["resseq"]), a["icode"], a["resname"], a["name"], bool(a["ligand"]))
                     for a in atoms]
        self.cam = np.array([a["camera_xyz"] for a in atoms], float).reshape(-1, 3)
        self.ligand = np.array([bool(a["ligand"]) for a in atoms], bool)
        w2c = np.asarray(meta["camera"].get("world_to_camera", np.eye(4)), float)
        self.w2c, self.c2w = w2c, np.linalg.inv(w2c)
        self.world = geometry.apply(self.c2w, self.cam) if len(atoms) else self.cam
        centre = (meta.get("description") or {}).get("centre")
        self.centre = np.asarray(centre, float) if centre is not None else None

    def find(self, chain=None, resseq=None, icode=None, resname=None, name=None, ligand=None) -> list[int]:
        want = (chain, resseq, icode, resname, name, ligand)
        return [i for i, k in enumerate(self.keys)
                if all(w is None or (str(v).upper() == str(w).upper() if isinstance(w, str) else v == w)
                       for v, w in zip(k, want))]


def validate_dataset(out: Path) -> list[str]:
    """Every problem found, as 'where: what' lines (empty list = valid)."""
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

    @functools.lru_cache(maxsize=256)
    def sidecar(rel: str) -> Sidecar | None:
        try:
            return Sidecar(json.loads((out / rel).with_suffix(".json").read_text()))
        except (OSError, ValueError, KeyError, TypeError, np.linalg.LinAlgError):
            return None

    ids, checked_images, referenced, per_task_split = [], {}, set(), collections.Counter()
    lines = (out / "annotations.jsonl").read_text().splitlines()
    for n, line in enumerate(lines, 1):
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
            if len(opts) != 4 or len(set(opts)) != 4:
                problems.append(f"{where}: options must be 4 distinct, got {opts}")
            paths += [o for o in opts if isinstance(o, str) and o.startswith("images/")]
        bad_image = False
        for rel in paths:
            referenced.add(rel)
            if rel not in checked_images:
                checked_images[rel] = _check_image(out, rel)
            if checked_images[rel]:
                problems.append(f"{where}: {rel}: {checked_images[rel]}")
                bad_image = True
        problems += [f"{where}: {p}" for p in _check_answer(rec)]
        if not bad_image:
            try:
                problems += [f"{where}: {p}" for p in _rederive(rec, sidecar)]
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                problems.append(f"{where}: cannot re-derive the answer ({type(exc).__name__}: {exc})")
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
    return problems


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


def _ops_of(program_ops) -> list[tuple]:
    return [(o["op"], o["axis"], float(o["value"])) for o in program_ops]


def _check_answer(rec: dict) -> list[str]:
    """The answer parses and agrees with the record's program."""
    from ..core.tasks import score_answer

    from ..core.tasks import answer_kind

    answer, program = rec["answer"], rec["program"] or {}
    task = program.get("task_type", rec["task"])          # variants are checked as their task type
    problems = []
    try:                                   # the task's own parser reads the answer back
        score = score_answer(rec["task"], answer, rec)
        if score.get("exact") != 1:
            problems.append(f"the stated answer does not score as correct against itself: {answer!r}")
        elif score.get("prediction") not in (None, answer):   # scoring reads leniently; answers are canonical
            problems.append(f"answer {answer!r} is not in canonical form {score['prediction']!r}")
    except Exception as exc:  # noqa: BLE001 - any parse failure is a defect to report
        return [f"answer does not parse ({type(exc).__name__}: {exc})"]
    kind = answer_kind(rec["task"], program)
    if task in CLOZE_TASKS or task == "docking":
        try:
            ops = [(o.verb, o.axis, float(o.value)) for o in parse_ops(answer)]
        except ValueError as exc:
            return [f"answer does not parse ({exc})"]
        if "ops" in program and ops != _ops_of(program["ops"]):
            problems.append(f"answer {answer!r} disagrees with the program's ops")
    elif rec["options"] is not None:
        if answer not in LETTERS:
            return [f"answer {answer!r} is not a letter A-D"]
        if "correct" in program and program["correct"] != answer:
            problems.append(f"answer {answer} disagrees with the program's correct option {program['correct']}")
    elif kind in H_BOND_ANSWERS:
        read, keys, form = H_BOND_ANSWERS[kind]
        bonds = read(answer)
        if bonds is None:
            problems.append(f"answer does not parse as {form}: {answer!r}")
        elif "hbonds" in program and _bond_set(bonds, keys) != _bond_set(program["hbonds"], keys):
            problems.append("answer's H-bonds disagree with the program's")
    return problems


POCKET_KEY = ("resname", "resseq", "icode", "protein_atom", "chain", "ligand_atom")
RESIDUE_KEY = ("resname", "protein_atom", "ligand_atom")


def _bond_set(bonds, keys) -> set:
    return {tuple(str(b.get(k, "")).upper().replace("-", "") for k in keys) for b in bonds}


def _pocket_bonds(answer: str):
    """T9's bonds as dicts (the task's own parser), or None when the answer does not parse."""
    from ..core.tasks.answers import parse_pocket_hbonds
    try:
        bonds = parse_pocket_hbonds(answer)
    except ValueError:
        return None
    return [{"resname": r, "resseq": n, "icode": ic, "protein_atom": pa, "chain": "" if c == "-" else c,
             "ligand_atom": la} for r, n, ic, pa, c, la in bonds]


def _residue_bonds(answer: str):
    """T4's bonds as dicts (the task's own parser), or None when the answer does not parse."""
    from ..core.tasks.answers import parse_residue_answer
    try:
        _yes, pairs = parse_residue_answer(answer)
    except ValueError:
        return None
    return [{"resname": r, "protein_atom": pa, "ligand_atom": la} for r, pa, la in pairs]


# answer kind → (reader, the bond fields compared, the form named in the error)
H_BOND_ANSWERS = {"pocket": (_pocket_bonds, POCKET_KEY, "H-bonds 'RES NUM ATOM CHAIN, LIGATOM; …'"),
                  "residue": (_residue_bonds, RESIDUE_KEY, "'No' or 'Yes: RES ATOM, LIGATOM; …'")}


def _front(rec: dict, sidecar) -> Sidecar | None:
    """The record's front view: its first image posed without any whole-model ops."""
    for rel in rec["images"]:
        side = sidecar(rel)
        if side is not None and not ((side.meta.get("description") or {}).get("ops") or {}).get("all"):
            return side
    return sidecar(rec["images"][0])


def _rederive(rec: dict, sidecar) -> list[str]:
    """Re-derive what the sidecars allow; a list of mismatches."""
    from ..core.tasks import answer_kind

    program = rec["program"] or {}
    task, answer = program.get("task_type", rec["task"]), rec["answer"]
    if program.get("interaction", "hbond") != "hbond" and task != "interaction_location":
        return []                          # residue-level answers of other kinds: nothing atom-level to check
    if task == "interaction_location" and program.get("interaction", "hbond") != "hbond":
        return []                          # the centre of a group interaction is not two named atoms
    if answer_kind(rec["task"], program) in ("yesno", "residues"):
        return []
    if task in CLOZE_TASKS:
        start, after = sidecar(rec["images"][0]), sidecar(rec["images"][-1])
        if start is None or after is None:
            return ["sidecar unreadable"]
        if start.keys != after.keys:
            return ["start and after images show different atoms"]
        centre = after.centre if after.centre is not None else start.world.mean(axis=0)
        m, _ = geometry.compose(parse_ops(answer), centre)
        predicted = geometry.apply(after.w2c, geometry.apply(m, start.world))
        err = float(np.abs(predicted - after.cam).max()) if len(predicted) else 0.0
        if err > TOLERANCE:
            return [f"the after-image's atoms are up to {err:.2f} Å from where {answer!r} puts them"]
        return []
    if task == "docking":
        combined = sidecar(rec["images"][-1])
        lig_centre = (rec["program"] or {}).get("ligand_centre")
        if combined is None or lig_centre is None or not combined.ligand.any():
            return [] if lig_centre is None else ["docking: the last image shows no ligand"]
        moved = combined.world[combined.ligand]
        m, _ = geometry.compose(parse_ops(answer), moved.mean(axis=0))
        back = geometry.apply(m, moved).mean(axis=0)
        err = float(np.abs(back - np.asarray(lig_centre, float)).max())
        if err > TOLERANCE * 5:
            return [f"docking: {answer!r} leaves the ligand centre {err:.2f} Å from its bound place"]
        return []
    if task == "interaction_location":
        return _check_location(rec, sidecar)
    if task == "pocket_ligand_interaction":
        bonds = _pocket_bonds(answer) or []
        return _named_atoms_exist(rec, sidecar, [({"chain": b["chain"], "resseq": b["resseq"],
                                                    "icode": b["icode"] or None, "resname": b["resname"],
                                                    "name": b["protein_atom"], "ligand": False},
                                                   b["ligand_atom"]) for b in bonds])
    if task == "residue_ligand_interaction":
        bonds = _residue_bonds(answer) or []
        return _named_atoms_exist(rec, sidecar, [({"resname": b["resname"], "name": b["protein_atom"],
                                                    "ligand": False}, b["ligand_atom"]) for b in bonds])
    return []


def _named_atoms_exist(rec: dict, sidecar, pairs) -> list[str]:
    sides = [s for s in (sidecar(rel) for rel in rec["images"]) if s is not None]
    problems = []
    for protein, ligand_atom in pairs:
        if not any(s.find(**protein) for s in sides):
            problems.append(f"H-bond atom {protein['resname']} {protein.get('resseq', '')} {protein['name']} "
                            "is in none of the record's images")
        if not any(s.find(name=ligand_atom, ligand=True) for s in sides):
            problems.append(f"H-bond ligand atom {ligand_atom} is in none of the record's images")
    return problems


def _check_location(rec: dict, sidecar) -> list[str]:
    """The answered option's moves bring the named H-bond's centre to the screen centre (± 0.5 Å)."""
    hb = (rec["program"] or {}).get("hbond")
    front = _front(rec, sidecar)
    if hb is None or front is None or rec["answer"] not in LETTERS:
        return []
    protein = front.find(chain=hb["chain"], resseq=int(hb["resseq"]), resname=hb["resname"],
                         name=hb["protein_atom"], ligand=False)
    ligand = front.find(name=hb["ligand_atom"], ligand=True)
    if not protein or not ligand:
        return [f"the H-bond {hb['resname']} {hb['resseq']} {hb['protein_atom']} / {hb['ligand_atom']} "
                "is not in the front image"]
    mid = (front.cam[protein[0]] + front.cam[ligand[0]]) / 2
    residual = {}
    for letter, text in zip(LETTERS, rec["options"]):
        shift = np.zeros(3)
        for op in parse_ops(text):
            if op.verb == "move":
                shift["xyz".index(op.axis)] += op.value
        residual[letter] = float(np.abs((mid + shift)[:2]).max())
    if residual[rec["answer"]] > 0.5 + TOLERANCE:
        return [f"option {rec['answer']} leaves the H-bond centre {residual[rec['answer']]:.2f} Å off the "
                "screen centre"]
    if min(residual.values()) < residual[rec["answer"]] - 1e-6:
        return [f"option {min(residual, key=residual.get)} centres the H-bond better than the answer"]
    return []
