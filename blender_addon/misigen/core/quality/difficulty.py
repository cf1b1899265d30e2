"""Per-question difficulty, measured from a record's program and its images' sidecars (pure numpy).

Features (``difficulty_features``), each ``None`` where a task has no such thing:
- ``magnitude``: size of the operation (Å for moves, degrees for rolls; summed over steps), the
  answer's move length for interaction location, the number of interactions for H-bond lists;
- ``option_gap_px``: how far, in pixels, the answer's picture is from the nearest other answer's —
  option images: the smallest mean displacement of the same atoms between two options; cloze: the
  median displacement one more value step would add; interaction location: the smallest distance
  between two option moves at the H-bond's scale; docking: the smaller of one roll step and 1 Å;
  ``option_gap``: the same as a fraction of the image width (the same at any resolution, as the
  planners' screen thresholds; what the levels grade);
- ``occlusion``: per image, the share of the atoms the answer depends on that are hidden (H-bond
  atoms for H-bond tasks, ligand atoms for docking, all shown atoms for the motion tasks); its value
  in the first image (``occlusion_front``: the front view, where the moves are measured), max and min;
- ``label_density``: labels drawn per 100 × 100 px (mean over the question's images), and the share
  of planned labels left out; ``answer_named_share``: over the images, the mean share of the answer's
  atoms whose name the image shows (a label on the atom or on its residue): lower, and a reader must
  carry names from one image to another by the shape;
- ``atoms_shown``: atoms in the first image;
- ``hbond_margin``: for H-bond tasks, Å left before each bond reaches its distance limit (min over
  bonds); for a residue without one, how far its closest N/O pair is beyond the widest limit
  (negative: within distance, ruled out by angles).

``grade`` gives the ``predicted_by_eye`` score and the ``level``: a task with a level model
(``TaskType.level_table``, ``core/quality/levels.py``, fitted on readers' answers) predicts how well a
reader reading by eye scores on the question, and the level is that prediction's band; one without (a
plugin task, say) grades its ``level_features``, or the ``default`` list of ``core/data/difficulty.yaml``,
against that file's fixed thresholds (``level_of``) and predicts nothing.

Adding a feature: compute it here (every task) or in the task's ``difficulty_part``, give its direction
(``harder``) in ``core/data/difficulty.yaml``; the level models pick it up when they are refitted on
answers whose questions carry it (``calibrate-levels --answers``).
"""
from __future__ import annotations

import math

import numpy as np

from ..data_files import load_table
from .levels import level_of_prediction, load_level_table, predict

LEVELS = ("easy", "medium", "hard")


def rounded(x, nd=3):
    return None if x is None else round(float(x), nd)


def _project(car: dict, xyz: np.ndarray) -> np.ndarray:
    """Camera-frame points → pixels with the sidecar's camera (perspective or orthographic)."""
    cam = car["camera"]
    w, h = float(car["width"]), float(car["height"])
    if cam.get("projection") == "perspective":
        f = (w / 2) / math.tan(math.radians(float(cam["fov_deg"])) / 2)
        z = np.maximum(-xyz[:, 2], 1e-3)
        return np.column_stack([w / 2 + f * xyz[:, 0] / z, h / 2 - f * xyz[:, 1] / z])
    s = w / float(cam["ortho_scale"])
    return np.column_stack([w / 2 + s * xyz[:, 0], h / 2 - s * xyz[:, 1]])


def _rot(axis: str, deg: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return {"x": np.array([[1, 0, 0], [0, c, -s], [0, s, c]]), "y": np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]),
            "z": np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])}[axis]


def camera_xyz(car: dict, rows=None) -> np.ndarray:
    atoms = car["atoms"] if rows is None else [car["atoms"][i] for i in rows]
    return np.array([a["camera_xyz"] for a in atoms], float).reshape(-1, 3)


def step_gap(car: dict, op: dict, step: float, rows=None, centre=None) -> float:
    """Median pixel displacement of the atoms if ``op`` went one ``step`` further."""
    xyz = camera_xyz(car, rows)
    if not len(xyz):
        return 0.0
    pix = _project(car, xyz)
    c = xyz.mean(axis=0) if centre is None else centre
    gaps = []
    for s in (step, -step):
        if op["op"] == "move":
            d = np.zeros(3)
            d["xyz".index(op["axis"])] = s
            moved = xyz + d
        else:
            moved = (xyz - c) @ _rot(op["axis"], s).T + c
        gaps.append(float(np.median(np.linalg.norm(_project(car, moved) - pix, axis=1))))
    return min(gaps)


def atom_key(a: dict) -> str:
    return f"L:{a['name']}" if a["ligand"] else f"P:{a['chain']}:{a['resseq']}{a['icode']}:{a['name']}"


def option_gap(cars: list[dict]) -> float | None:
    if len(cars) < 2:
        return None
    pix = [{atom_key(a): a["pixel"] for a in c["atoms"]} for c in cars]
    best = None
    for i in range(len(cars)):
        for j in range(i + 1, len(cars)):
            common = sorted(set(pix[i]) & set(pix[j]))
            if not common:
                continue
            d = float(np.mean([math.dist(pix[i][k], pix[j][k]) for k in common]))
            best = d if best is None else min(best, d)
    return best


def _answer_rows(car: dict, which) -> list[int]:
    """Rows of the atoms the answer depends on: ``which`` is ``ligand``, ``all`` or a task's own
    reading (car → rows; the H-bond tasks': their bonds' atoms)."""
    if callable(which):
        return which(car)
    if which == "ligand":
        return [i for i, a in enumerate(car["atoms"]) if a["ligand"]]
    return list(range(len(car["atoms"])))


def _residue_of(a: dict) -> tuple:
    return a["chain"], a["resseq"], a["icode"]


def named_share(car: dict, rows) -> float:
    """Share of the atoms ``rows`` whose name one can read in this image: a label drawn on the atom
    itself, or (a protein atom) on its residue."""
    atoms = car["atoms"]
    on_atom = {lab.get("atom") for lab in car.get("labels", []) if lab.get("kind") != "residue"}
    on_res = {_residue_of(atoms[lab["atom"]]) for lab in car.get("labels", [])
              if lab.get("kind") == "residue" and lab.get("atom") is not None}
    hit = sum(1 for i in rows if i in on_atom or (not atoms[i]["ligand"] and _residue_of(atoms[i]) in on_res))
    return hit / len(rows)


def images(rec: dict, sidecars: dict) -> list[dict]:
    return [sidecars[i] for i in rec["images"]]


def option_cars(rec: dict, sidecars: dict) -> list[dict]:
    return [sidecars[o] for o in (rec.get("options") or []) if str(o).startswith("images/")]


# ------------------------------------------------------------------ all features
def difficulty_features(rec: dict, sidecars: dict, task_part=None) -> dict:
    """The difficulty features of one record: the task's own (``task_part``, its ``TaskType.difficulty``;
    its ``_answer_atoms`` says which atoms occlusion counts) and the ones every task has (occlusion,
    labels, atoms shown)."""
    cars = images(rec, sidecars)
    out: dict = {"magnitude": None, "magnitude_share": None, "option_gap_px": None, "n_interactions": None,
                 "hbond_margin": None}
    if task_part is not None:
        out.update(task_part(rec, sidecars))
    which = out.pop("_answer_atoms", "all")
    occ, named = [], []
    for car in cars:
        rows = _answer_rows(car, which)
        occ.append(rounded(sum(not car["atoms"][i]["visible"] for i in rows) / len(rows), 3) if rows else 0.0)
        if rows:
            named.append(named_share(car, rows))
    out["occlusion"] = occ
    out["occlusion_front"] = occ[0] if occ else 0.0
    out["occlusion_max"] = max(occ) if occ else 0.0
    out["occlusion_min"] = min(occ) if occ else 0.0
    dens = [len(c.get("labels", [])) / (c["width"] * c["height"] / 1e4) for c in cars]
    drawn = sum(len(c.get("labels", [])) for c in cars)
    left = sum(len(c.get("labels_left_out", [])) for c in cars)
    if out["option_gap_px"] is not None:         # the same at any resolution: what the levels grade
        out["option_gap"] = rounded(out["option_gap_px"] / float(cars[0]["width"]), 5)
    out["answer_named_share"] = rounded(np.mean(named), 3) if named else None
    out["label_density"] = rounded(np.mean(dens), 3)
    out["labels_left_out_share"] = rounded(left / (drawn + left), 3) if drawn + left else 0.0
    out["atoms_shown"] = len(cars[0]["atoms"])
    return out


# ------------------------------------------------------------------ level
def level_of(features: dict, graded=None, table: dict | None = None) -> str:
    """easy / medium / hard: each graded feature (``graded``: a task's ``TaskType.level_features``; None:
    the table's ``default``) scores 0, 1 or 2 against its two thresholds, and the mean score is compared
    with the ``levels`` cut points (``core/data/difficulty.yaml``)."""
    table = table or load_table("difficulty.yaml")
    names = table.get("default", []) if graded is None else graded
    scores = []
    for name in names:
        rule = table["features"][name]
        v = features.get(name)
        if v is None:
            continue
        hard, medium = float(rule["hard"]), float(rule["medium"])
        if rule["harder"] == "higher":
            scores.append(2 if v >= hard else 1 if v >= medium else 0)
        else:
            scores.append(2 if v <= hard else 1 if v <= medium else 0)
    if not scores:
        return "medium"
    mean = sum(scores) / len(scores)
    cuts = table["levels"]
    return "hard" if mean >= float(cuts["hard"]) else "medium" if mean >= float(cuts["medium"]) else "easy"


def grade(features: dict, level_features=None, level_table=None) -> tuple:
    """(predicted by-eye score, level) of one record: its task's level model's prediction (rounded to
    3 decimals) and band when it has one, else (None, the fixed thresholds' level)."""
    table = load_level_table(level_table) if level_table is not None else None
    if table is None:
        return None, level_of(features, level_features)
    p = round(predict(features, table), 3)
    return p, level_of_prediction(p, table.get("bands"))
