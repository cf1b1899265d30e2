"""Per-question difficulty, measured from a record's program and its images' sidecars (pure numpy).

Features (``difficulty_features``), each ``None`` where a task has no such thing:
- ``magnitude``: size of the operation (Å for moves, degrees for rolls; summed over steps), the
  answer's move length for interaction location, the number of interactions for H-bond lists;
- ``option_gap_px``: how far, in pixels, the answer's picture is from the nearest other answer's —
  option images: the smallest mean displacement of the same atoms between two options; cloze: the
  median displacement one more value step would add; interaction location: the smallest distance
  between two option moves at the H-bond's scale; docking: the smaller of one roll step and 1 Å;
- ``occlusion``: per image, the share of the atoms the answer depends on that are hidden (H-bond
  atoms for H-bond tasks, ligand atoms for docking, all shown atoms for the motion tasks); and its max;
- ``label_density``: labels drawn per 100 × 100 px (mean over the question's images), and the share
  of planned labels left out;
- ``atoms_shown``: atoms in the first image;
- ``hbond_margin``: for H-bond tasks, Å left before each bond reaches its distance limit (min over
  bonds); for a residue without one, how far its closest N/O pair is beyond the widest limit
  (negative: within distance, ruled out by angles).

``level`` grades the features a task lists in ``core/data/difficulty.yaml`` and names the result
easy, medium or hard by the thresholds there (documented in the README).
"""
from __future__ import annotations

import math

import numpy as np

from .data_files import load_table

LEVELS = ("easy", "medium", "hard")


def _r(x, nd=3):
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


def _xyz(car: dict, rows=None) -> np.ndarray:
    atoms = car["atoms"] if rows is None else [car["atoms"][i] for i in rows]
    return np.array([a["camera_xyz"] for a in atoms], float).reshape(-1, 3)


def _step_gap(car: dict, op: dict, step: float, rows=None, centre=None) -> float:
    """Median pixel displacement of the atoms if ``op`` went one ``step`` further."""
    xyz = _xyz(car, rows)
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


def _key(a: dict) -> str:
    return f"L:{a['name']}" if a["ligand"] else f"P:{a['chain']}:{a['resseq']}{a['icode']}:{a['name']}"


def _option_gap(cars: list[dict]) -> float | None:
    if len(cars) < 2:
        return None
    pix = [{_key(a): a["pixel"] for a in c["atoms"]} for c in cars]
    best = None
    for i in range(len(cars)):
        for j in range(i + 1, len(cars)):
            common = sorted(set(pix[i]) & set(pix[j]))
            if not common:
                continue
            d = float(np.mean([math.dist(pix[i][k], pix[j][k]) for k in common]))
            best = d if best is None else min(best, d)
    return best


def _answer_rows(rec: dict, car: dict, which: str) -> list[int]:
    """Rows of the atoms the answer depends on: ``bonds`` (the program's H-bond atoms; none: every
    N/O atom), ``ligand`` or ``all``."""
    p = rec["program"]
    if which == "bonds":
        bonds = p.get("hbonds") or ([p["hbond"]] if p.get("hbond") else [])
        if bonds and p.get("interaction", "hbond") == "hbond":
            want = {f"P:{b['chain']}:{b['resseq']}{b['icode']}:{b['protein_atom']}" for b in bonds} | \
                   {f"L:{b['ligand_atom']}" for b in bonds}
            return [i for i, a in enumerate(car["atoms"]) if _key(a) in want]
        return [i for i, a in enumerate(car["atoms"]) if a["element"] in ("N", "O")]
    if which == "ligand":
        return [i for i, a in enumerate(car["atoms"]) if a["ligand"]]
    return list(range(len(car["atoms"])))


def _images(rec: dict, sidecars: dict) -> list[dict]:
    return [sidecars[i] for i in rec["images"]]


def _option_cars(rec: dict, sidecars: dict) -> list[dict]:
    return [sidecars[o] for o in (rec.get("options") or []) if str(o).startswith("images/")]


# ------------------------------------------------------------------ per-task parts (TaskType.difficulty)
def cloze(rec: dict, sidecars: dict) -> dict:
    p = rec["program"]
    op = p["ops"][0]
    return {"magnitude": _r(abs(float(op["value"])), 2),
            "magnitude_share": _r(abs(op["value"]) / max(abs(v) for v in p["values"]), 3) if p.get("values") else None,
            "option_gap_px": _r(_step_gap(_images(rec, sidecars)[-1], op, float(p.get("value_step", 1.0))), 2)}


def choice(rec: dict, sidecars: dict) -> dict:
    return {"magnitude": _r(sum(abs(float(o["value"])) for o in rec["program"]["ops"]), 2),
            "option_gap_px": _r(_option_gap(_option_cars(rec, sidecars)), 2)}


def redock(rec: dict, sidecars: dict) -> dict:
    p = rec["program"]
    ops = p["ops"]
    comb = _images(rec, sidecars)[-1]
    lig = [i for i, a in enumerate(comb["atoms"]) if a["ligand"]]
    g_roll = _step_gap(comb, ops[0], float(p.get("roll_step") or 15.0), lig, _xyz(comb, lig).mean(axis=0))
    g_move = _step_gap(comb, {"op": "move", "axis": "x"}, 1.0, lig)
    return {"magnitude": _r(sum(abs(float(o["value"])) for o in ops), 2), "option_gap_px": _r(min(g_roll, g_move), 2),
            "_answer_atoms": "ligand"}


def location(rec: dict, sidecars: dict) -> dict:
    p = rec["program"]
    moves = [_moves(o["text"]) for o in p["options"]]
    gap = min(math.dist(a, b) for i, a in enumerate(moves) for b in moves[i + 1:])
    car = _images(rec, sidecars)[0]
    w = float(car["width"])
    f = (w / 2) / math.tan(math.radians(float(car["camera"].get("fov_deg") or 30.0)) / 2)
    depth = -float(p["midpoint_camera_xyz"][2]) if p.get("midpoint_camera_xyz") else 60.0
    return {"magnitude": _r(math.hypot(*_moves(p["answer_text"])), 2), "option_gap_px": _r(gap * f / max(depth, 1e-3), 2),
            "hbond_margin": _hbond_margin(p, _images(rec, sidecars)), "_answer_atoms": "bonds"}


def hbond_list(rec: dict, sidecars: dict) -> dict:
    p = rec["program"]
    n = len(p.get("hbonds") or p.get("interactions") or [])
    return {"magnitude": n, "n_interactions": n, "hbond_margin": _hbond_margin(p, _images(rec, sidecars)),
            "_answer_atoms": "bonds"}


# ------------------------------------------------------------------ all features
def difficulty_features(rec: dict, sidecars: dict, task_part=None) -> dict:
    """The difficulty features of one record: the task's own (``task_part``, its ``TaskType.difficulty``)
    and the ones every task has (occlusion, labels, atoms shown)."""
    images = _images(rec, sidecars)
    out: dict = {"magnitude": None, "magnitude_share": None, "option_gap_px": None, "n_interactions": None,
                 "hbond_margin": None}
    if task_part is not None:
        out.update(task_part(rec, sidecars))
    which = out.pop("_answer_atoms", "all")
    occ = []
    for car in images:
        rows = _answer_rows(rec, car, which)
        occ.append(_r(sum(not car["atoms"][i]["visible"] for i in rows) / len(rows), 3) if rows else 0.0)
    out["occlusion"] = occ
    out["occlusion_max"] = max(occ) if occ else 0.0
    out["occlusion_min"] = min(occ) if occ else 0.0
    dens = [len(c.get("labels", [])) / (c["width"] * c["height"] / 1e4) for c in images]
    drawn = sum(len(c.get("labels", [])) for c in images)
    left = sum(len(c.get("labels_left_out", [])) for c in images)
    out["label_density"] = _r(np.mean(dens), 3)
    out["labels_left_out_share"] = _r(left / (drawn + left), 3) if drawn + left else 0.0
    out["atoms_shown"] = len(images[0]["atoms"])
    return out


def _moves(text: str) -> tuple[float, float]:
    vals = {"x": 0.0, "y": 0.0}
    for part in text.split(","):
        w = part.split()
        if len(w) == 3 and w[0] == "move":
            vals[w[1]] = float(w[2])
    return vals["x"], vals["y"]


def _hbond_margin(p: dict, images: list[dict]) -> float | None:
    if p.get("interaction", "hbond") != "hbond":
        return None
    from .rationale.builders import MAX_NO, SLOP, acceptor_limit
    bonds = p.get("hbonds") or ([p["hbond"]] if p.get("hbond") else [])
    if bonds:
        margins = []
        for b in bonds:
            if b.get("donor") == "shared":
                lim = 2.65
            else:
                got = acceptor_limit(b.get("criterion", ""))
                lim = (got[0] if got else MAX_NO) + SLOP
            margins.append(lim - float(b["distance"]))
        return _r(min(margins), 3)
    car = images[0]
    prot = np.array([a["camera_xyz"] for a in car["atoms"] if not a["ligand"] and a["element"] in ("N", "O")])
    lig = np.array([a["camera_xyz"] for a in car["atoms"] if a["ligand"] and a["element"] in ("N", "O")])
    if not len(prot) or not len(lig):
        return None
    d = float(np.sqrt(((prot[:, None] - lig[None]) ** 2).sum(-1)).min())
    return _r(d - (MAX_NO + SLOP), 3)


# ------------------------------------------------------------------ level
def level_of(task_type: str, features: dict, table: dict | None = None) -> str:
    """easy / medium / hard: each graded feature scores 0, 1 or 2 against its two thresholds, and the
    mean score is compared with the ``levels`` cut points (``core/data/difficulty.yaml``)."""
    table = table or load_table("difficulty.yaml")
    names = table["tasks"].get(task_type) or table["tasks"].get("default", [])
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
