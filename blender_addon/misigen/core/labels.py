"""Label texts and their placement on the image, computed without Blender.

The font is monospace, so a label's box is exact from its length; Blender draws the
text where this module says, and the sidecar records the same boxes (outline included).
Which labels an image carries, and which are placed first when not all fit, is a
``LabelPlan`` that is part of the render description (so it is hashed into the image key).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .structure import Structure

# Candidate places of a label around its anchor pixel: directions (du, dv) of the box from
# the anchor, right first, then left, above, below and the diagonals. The first ring
# touches the atom (no leader line); the outer rings need a leader line to it.
_DIRECTIONS = [(1, 0), (-1, 0), (0, -1), (0, 1), (1, -1), (-1, -1), (1, 1), (-1, 1)]
_SLIDES = (0.5, 0.85, 0.15)         # where the anchor sits along the touching side (fraction of it)
_RINGS = (1.6, 2.6, 3.8)            # leader rings: gap from the anchor to the box, label heights
OUTLINE_PX = 1      # the text is drawn with a 1-px dark outline; boxes include it


@dataclass(frozen=True)
class LabelPlan:
    """Which labels an image carries and which win when not all fit.

    ``residues``: "ARG 221" at each shown protein residue ("ARG 221.A" when ``chains``);
    ``ligand_atoms``: the ligand's heavy-atom names; ``residue_atoms``: residues
    ((chain, resseq, icode), …) whose heavy atoms are labelled with their atom names;
    ``atoms``: single protein atoms ((chain, resseq, icode, name), …) labelled with their names;
    ``first``: label ids (see ``label_id``) placed before all others, in that order.
    """
    residues: bool = True
    ligand_atoms: bool = True
    residue_atoms: tuple = ()
    chains: bool = False
    first: tuple = ()
    avoid: str = "ligand"         # atoms labels should not cover: "ligand", "all" or "none"
    atoms: tuple = ()

    @classmethod
    def from_style(cls, style: dict) -> "LabelPlan | None":
        cfg = style["labels"]
        if not cfg["enabled"]:
            return None
        return cls(residues=bool(cfg["residues"]), ligand_atoms=bool(cfg["ligand_atoms"]))

    def description(self) -> dict:
        return {"residues": self.residues, "ligand_atoms": self.ligand_atoms,
                "residue_atoms": [list(r) for r in self.residue_atoms], "chains": self.chains,
                "first": list(self.first), "avoid": self.avoid,
                **({"atoms": [list(a) for a in self.atoms]} if self.atoms else {})}


def residue_id(chain, resseq, icode) -> str:
    return f"res {chain}:{int(resseq)}{icode}"


def atom_id(chain, resseq, icode, name) -> str:
    return f"atom {chain}:{int(resseq)}{icode}:{name}"


def ligand_atom_id(name) -> str:
    return f"lig {name}"


def residue_text(s: Structure, i: int, chains: bool = False) -> str:
    """'ARG 221', or 'ARG 221.A' with the chain (the form the prompts explain)."""
    text = f"{s.resname[i]} {s.resseq[i]}{s.icode[i]}"
    return f"{text}.{s.chain[i]}" if chains and s.chain[i] else text


def label_items(s: Structure, plan: "LabelPlan | None") -> list[tuple[str, int, str, str]]:
    """(text, anchor atom row, kind, id) of every label the plan asks for: ``plan.first`` in its
    order, then residue labels (sequence order), protein atom labels, ligand atom labels."""
    if plan is None:
        return []
    items = []
    res = s.residue_index()
    want_atoms = {tuple(r) for r in plan.residue_atoms}
    if plan.residues:
        water = s.is_water
        for r in sorted(set(res[~s.ligand].tolist())):
            rows = np.nonzero(res == r)[0]
            if water[rows[0]]:
                continue
            names = s.name[rows].tolist()
            anchor = int(rows[names.index("CA")] if "CA" in names else rows[0])
            items.append((residue_text(s, anchor, plan.chains), anchor, "residue",
                          residue_id(s.chain[anchor], s.resseq[anchor], s.icode[anchor])))
    one_atoms = {tuple(a) for a in plan.atoms}
    if want_atoms or one_atoms:
        for i in np.nonzero(~s.ligand & ~s.is_hydrogen)[0]:
            key = (str(s.chain[i]), int(s.resseq[i]), str(s.icode[i]))
            if key in want_atoms or key + (str(s.name[i]),) in one_atoms:
                items.append((str(s.name[i]), int(i), "residue_atom",
                              atom_id(s.chain[i], s.resseq[i], s.icode[i], s.name[i])))
    if plan.ligand_atoms:
        for i in np.nonzero(s.ligand & ~s.is_hydrogen)[0]:
            items.append((str(s.name[i]), int(i), "ligand_atom", ligand_atom_id(s.name[i])))
    if plan.first:
        rank = {lid: k for k, lid in enumerate(plan.first)}
        items.sort(key=lambda it: rank.get(it[3], len(rank)))     # stable: the rest keep their order
    return items


def font_px(style: dict, width: int) -> int:
    cfg = style["labels"]
    return max(int(cfg["min_size_px"]), int(round(cfg["size_px"] * width / 512)))


def text_box_size(text: str, style: dict, width: int) -> tuple[int, int]:
    """Width and height of the drawn label (glyphs plus outline), pixels."""
    size = font_px(style, width)
    cfg = style["labels"]
    return (int(np.ceil(len(text) * cfg["char_width"] * size)) + 2 * OUTLINE_PX,
            int(np.ceil(cfg["cap_height"] * size)) + 2 * OUTLINE_PX)


def _candidate_boxes(u, v, w, h, width, height, touch_px) -> list:
    """Every candidate box [u0, v0, u1, v1] (clipped into the frame), in order of preference; one
    numpy pass per label (the layout's inner loop then only tests them)."""
    rel = _corner_array(w, h, touch_px)
    u0 = np.rint(np.minimum(np.maximum(u + rel[:, 0], 0.0), width - w)).astype(np.int64)
    v0 = np.rint(np.minimum(np.maximum(v + rel[:, 1], 0.0), height - h)).astype(np.int64)
    return np.column_stack([u0, v0, u0 + w, v0 + h]).tolist()


def _gap(box, u: float, v: float, w: int, h: int) -> float:
    """Distance from the anchor pixel to a box."""
    gu = max(box[0] - u, u - box[0] - w, 0.0)
    gv = max(box[1] - v, v - box[1] - h, 0.0)
    return (gu * gu + gv * gv) ** 0.5


@functools.lru_cache(maxsize=4096)
def _corner_array(w: int, h: int, touch_px: float) -> np.ndarray:
    return np.array(_relative_corners(w, h, touch_px, True), float)


@functools.lru_cache(maxsize=4096)
def _relative_corners(w: int, h: int, touch_px: float, rings: bool) -> tuple:
    """Top-left corners of the candidate boxes relative to the anchor (before frame clipping)."""
    s = max(1.0, min(0.5 * h, touch_px - 1.0))
    rows = []
    for du, dv in _DIRECTIONS:
        diag = du != 0 and dv != 0
        for slide in (_SLIDES if not diag else (None,)):
            g = s / np.sqrt(2.0) if diag else s
            rows.append((g if du > 0 else (-g - w if du < 0 else -slide * w),
                         g if dv > 0 else (-g - h if dv < 0 else -slide * h)))
    for ring in (_RINGS if rings else ()):
        for du, dv in _DIRECTIONS:
            g = ring * h / (np.sqrt(2.0) if du and dv else 1.0)
            rows.append((g if du > 0 else (-g - w if du < 0 else -0.5 * w),
                         g if dv > 0 else (-g - h if dv < 0 else -0.5 * h)))
    return tuple((float(a), float(b)) for a, b in rows)


def leader_line(box, u: float, v: float, radius_px: float = 0.0) -> list:
    """The leader of a box to its anchor: [[u, v] on the box edge, [u, v] on the atom's rim]."""
    bu, bv = float(min(max(u, box[0]), box[2])), float(min(max(v, box[1]), box[3]))
    d = ((bu - u) ** 2 + (bv - v) ** 2) ** 0.5
    t = min(max(radius_px, 0.0), max(d - 1.0, 0.0)) / d if d > 0 else 0.0
    return [[round(bu, 1), round(bv, 1)], [round(u + (bu - u) * t, 1), round(v + (bv - v) * t, 1)]]


def line_pixels(line, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the pixels a leader line passes through (sampled every ½ px)."""
    (a, b), (c, d) = line
    n = max(2, int(((c - a) ** 2 + (d - b) ** 2) ** 0.5 * 2) + 1)
    t = np.arange(n) / (n - 1)
    us = np.clip(np.floor(a + (c - a) * t).astype(int), 0, width - 1)
    vs = np.clip(np.floor(b + (d - b) * t).astype(int), 0, height - 1)
    return vs, us


class _Canvas:
    """What is taken on the image, pixel by pixel, while labels are placed.

    Pixel tests are exact for integer boxes: a box [u0, u1) × [v0, v1) is closer than ``gap``
    to a placed box exactly when it meets that box grown by ``gap`` on every side, and it
    overlaps a circle exactly when one of its pixels' squares does.
    """

    def __init__(self, width: int, height: int, gap: float, obstacles: np.ndarray | None):
        self.w, self.h, self.gap = width, height, int(np.ceil(gap))
        self.taken = np.zeros((height, width), bool)    # label boxes grown by gap, leaders grown by 1 px
        self.boxes = np.zeros((height, width), bool)    # label boxes (leaders must not cross them)
        self.lines = np.zeros((height, width), bool)    # leader pixels (leaders must not cross)
        self.owner = np.full((height, width), -1, np.int64)   # obstacle atom row; -2: several atoms
        for cu, cv, r, atom in ([] if obstacles is None else obstacles):
            if not r > 0:
                continue
            i0, i1 = max(0, int(np.floor(cu - r))), min(width, int(np.ceil(cu + r)) + 1)
            j0, j1 = max(0, int(np.floor(cv - r))), min(height, int(np.ceil(cv + r)) + 1)
            if i0 >= i1 or j0 >= j1:
                continue
            i, j = np.arange(i0, i1), np.arange(j0, j1)
            du = np.maximum(np.maximum(i - cu, cu - (i + 1)), 0)
            dv = np.maximum(np.maximum(j - cv, cv - (j + 1)), 0)
            disc = (du[None, :] ** 2 + dv[:, None] ** 2) < r * r
            win = self.owner[j0:j1, i0:i1]
            win[disc & (win >= 0) & (win != int(atom))] = -2
            win[disc & (win == -1)] = int(atom)
        self.any_obstacle = self.owner != -1

    def free(self, b) -> bool:
        return not np.count_nonzero(self.taken[b[1]:b[3], b[0]:b[2]])

    def covers(self, b, own: int) -> bool:
        if not np.count_nonzero(self.any_obstacle[b[1]:b[3], b[0]:b[2]]):
            return False
        o = self.owner[b[1]:b[3], b[0]:b[2]]
        return bool(((o == -2) | ((o >= 0) & (o != own))).any())

    def leader_ok(self, line) -> bool:
        vs, us = line_pixels(line, self.w, self.h)
        return not (self.boxes[vs, us].any() or self.lines[vs, us].any())

    def take(self, b, line=None) -> None:
        g = self.gap
        self.taken[max(0, b[1] - g):b[3] + g, max(0, b[0] - g):b[2] + g] = True
        self.boxes[b[1]:b[3], b[0]:b[2]] = True
        if line is not None:
            vs, us = line_pixels(line, self.w, self.h)
            self.lines[vs, us] = True
            for dv in (-1, 0, 1):
                for du in (-1, 0, 1):
                    self.taken[np.clip(vs + dv, 0, self.h - 1), np.clip(us + du, 0, self.w - 1)] = True


def layout_labels(items, pixels: np.ndarray, in_front: np.ndarray, style: dict,
                  width: int, height: int, obstacles: np.ndarray | None = None, may_cover=None,
                  radius_px: np.ndarray | None = None, reserved=None) -> list[dict]:
    """Place each label by its anchor, in item order, at least ``labels.gap_px`` from every
    label and leader line placed before it and inside the frame (greedy).

    A label touches its atom (box within ``labels.touch_px`` of the anchor) where such a place
    is free; otherwise (``labels.leaders``) it goes further out with a leader line to the
    atom's rim (``radius_px``: atom radii on screen) that crosses no label and no other leader.
    ``reserved``: boxes no label may come near (the scale bar).
    ``obstacles`` (rows u, v, r, atom row): atoms that labels should not cover. A label takes the
    first free place that covers no obstacle; failing that, a label whose id is in ``may_cover``
    takes the first place free of other labels, any other label is left out.

    Labels whose anchor is outside the image or behind the camera are dropped. Returns
    dicts with text, kind, id, atom row, box [u0, v0, u1, v1] (pixels, top-left origin, outline
    included), ``leader`` (None or two points) and ``overlaps`` when no free place was found;
    with ``drop_overlapping`` such a label gets box None and is not drawn.
    """
    cfg = style["labels"]
    touch = float(cfg["touch_px"])
    leaders = bool(cfg["leaders"])
    canvas = _Canvas(width, height, float(cfg["gap_px"]), obstacles)
    for b in reserved or []:
        b = [max(0, int(b[0])), max(0, int(b[1])), min(width, int(b[2])), min(height, int(b[3]))]
        canvas.take(b)
    placed: list[dict] = []
    size_cache: dict = {}
    for item in items:
        text, atom, kind = item[:3]
        lid = item[3] if len(item) > 3 else None
        u, v = float(pixels[atom][0]), float(pixels[atom][1])
        if not in_front[atom] or not (0 <= u < width and 0 <= v < height):
            continue
        if text not in size_cache:
            size_cache[text] = text_box_size(text, style, width)
        w, h = size_cache[text]
        entry = {"text": text, "kind": kind, "id": lid, "atom": atom}
        if w > width or h > height:                  # cannot fit inside the frame at all
            placed.append({**entry, "box": None, "leader": None, "overlaps": True})
            continue
        r = float(radius_px[atom]) if radius_px is not None else 0.0
        chosen, covering = None, None
        taken, count = canvas.taken, np.count_nonzero
        boxes = _candidate_boxes(u, v, w, h, width, height, touch)
        for b in boxes:
            if count(taken[b[1]:b[3], b[0]:b[2]]):
                continue
            dist = _gap(b, u, v, w, h)
            line = leader_line(b, u, v, r) if leaders and dist > touch else None   # no leaders: any place as is
            if line is not None and not canvas.leader_ok(line):
                continue
            if not canvas.covers(b, atom):
                chosen = (b, line)
                break
            if covering is None:
                covering = (b, line)
        if chosen is None and covering is not None and (may_cover is None or lid in may_cover):
            chosen = covering
        if chosen is None and cfg["drop_overlapping"]:
            placed.append({**entry, "box": None, "leader": None, "overlaps": True})
            continue
        box, line = chosen if chosen is not None else (boxes[0], None)
        canvas.take(box, line)
        placed.append({**entry, "box": [int(x) for x in box], "leader": line, "overlaps": chosen is None})
    return placed
