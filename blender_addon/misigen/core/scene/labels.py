"""Label texts and their placement on the image, computed without Blender.

The font is monospace, so a label's box is exact from its length; Blender draws the
text where this module says, and the sidecar records the same boxes (outline included).
Which labels an image carries, and which are placed first when not all fit, is a
``LabelPlan`` that is part of the render description (so it is hashed into the image key).
Each label has a home, the side of its atom it takes wherever that side has room, chosen once for
all images of a scene (``label_homes``), so that a reader can follow it from image to image.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..structure.model import Structure

# Candidate places of a label around its anchor pixel: directions (du, dv) of the box from
# the anchor, right first, then left, above, below and the diagonals. The first ring
# touches the atom (no leader line); the outer rings need a leader line to it.
_DIRECTIONS = [(1, 0), (-1, 0), (0, -1), (0, 1), (1, -1), (-1, -1), (1, 1), (-1, 1)]
_SLIDES = (0.5, 0.85, 0.15)         # where the anchor sits along the touching side (fraction of it)
_RINGS = (1.6, 2.6, 3.8)            # leader rings: gap from the anchor to the box, label heights
# The side of its anchor each candidate lies on (an index of _DIRECTIONS), in candidate order.
_SIDE_OF = tuple([k for k, (du, dv) in enumerate(_DIRECTIONS) for _ in (_SLIDES if not (du and dv) else (None,))]
                 + [k for _ in _RINGS for k in range(len(_DIRECTIONS))])
_ON_SIDE = tuple(tuple(k for k, d in enumerate(_SIDE_OF) if d == side) for side in range(len(_DIRECTIONS)))
OUTLINE_PX = 1      # the text is drawn with a 1-px outline; boxes include it


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


def label_side(box, u: float, v: float) -> tuple[int, int]:
    """Which side of its anchor pixel a label box sits on: (su, sv), each -1, 0 or 1 (su = 1: the box
    is right of the anchor; sv = 1: below it; (0, 0): the box holds the anchor)."""
    su = 1 if u < box[0] else -1 if u > box[2] else 0
    sv = 1 if v < box[1] else -1 if v > box[3] else 0
    return su, sv


_TAKEN, _COVERS, _FREE = 0, 1, 2      # a candidate place: unusable, free but covering an obstacle, free


class _Layout:
    """The labels of one image while they are placed."""

    def __init__(self, pixels, in_front, style: dict, width: int, height: int, obstacles=None,
                 radius_px=None, reserved=None):
        cfg = style["labels"]
        self.pixels, self.in_front, self.style, self.radius_px = pixels, in_front, style, radius_px
        self.width, self.height = width, height
        self.touch, self.leaders = float(cfg["touch_px"]), bool(cfg["leaders"])
        self.drop = bool(cfg["drop_overlapping"])
        self.canvas = _Canvas(width, height, float(cfg["gap_px"]), obstacles)
        for b in reserved or []:
            self.canvas.take([max(0, int(b[0])), max(0, int(b[1])), min(width, int(b[2])), min(height, int(b[3]))])
        self.placed: list = []            # (item index, entry)
        self._sizes: dict = {}
        self._sides: tuple = (None, {})   # (item index, side -> on_side) while nothing is placed

    def entries(self) -> list[dict]:
        return [e for _, e in sorted(self.placed, key=lambda ke: ke[0])]

    def prepare(self, k: int, item):
        """(item index, entry, u, v, w, h, candidate boxes) of one label; boxes None when it cannot
        fit the frame; None when its anchor is outside the image or behind the camera."""
        text, atom, kind = item[:3]
        u, v = float(self.pixels[atom][0]), float(self.pixels[atom][1])
        if not self.in_front[atom] or not (0 <= u < self.width and 0 <= v < self.height):
            return None
        if text not in self._sizes:
            self._sizes[text] = text_box_size(text, self.style, self.width)
        w, h = self._sizes[text]
        entry = {"text": text, "kind": kind, "id": item[3] if len(item) > 3 else None, "atom": atom}
        fits = w <= self.width and h <= self.height
        return k, entry, u, v, w, h, _candidate_boxes(u, v, w, h, self.width, self.height, self.touch) if fits else None

    def test(self, prep, k: int):
        """(_TAKEN | _COVERS | _FREE, leader line) of candidate ``k`` of a prepared label."""
        _, entry, u, v, w, h, boxes = prep
        b = boxes[k]
        if np.count_nonzero(self.canvas.taken[b[1]:b[3], b[0]:b[2]]):
            return _TAKEN, None
        r = float(self.radius_px[entry["atom"]]) if self.radius_px is not None else 0.0
        line = leader_line(b, u, v, r) if self.leaders and _gap(b, u, v, w, h) > self.touch else None
        if line is not None and not self.canvas.leader_ok(line):
            return _TAKEN, None
        return (_COVERS if self.canvas.covers(b, entry["atom"]) else _FREE), line

    def on_side(self, prep, side: int, may_cover: bool):
        """(candidate index, leader) of the label's first free place on ``side`` (an index of
        _DIRECTIONS); failing that, where ``may_cover``, the first there covering an obstacle;
        (None, None) when there is neither. Kept until something is placed (choosing a home asks)."""
        if self._sides[0] != prep[0]:
            self._sides = (prep[0], {})
        known = self._sides[1]
        if side not in known:
            known[side] = self._first_on_side(prep, side, may_cover)
        return known[side]

    def _first_on_side(self, prep, side: int, may_cover: bool):
        if prep[6] is None:
            return None, None
        covering = (None, None)
        for k in _ON_SIDE[side]:
            state, line = self.test(prep, k)
            if state == _FREE:
                return k, line
            if state == _COVERS and may_cover and covering[0] is None:
                covering = (k, line)
        return covering

    def at_home(self, prep, side: int | None, may_cover: bool) -> bool:
        """Put a prepared label on its home side where it has a place there (``on_side``); whether it did."""
        k, line = self.on_side(prep, side, may_cover) if side is not None else (None, None)
        if k is not None:
            self.take(prep, prep[6][k], line, False)
        return k is not None

    def place(self, prep, may_cover: bool) -> None:
        """Put a prepared label at the first free candidate; failing that, where ``may_cover``
        allows, at the first one covering an obstacle; else leave it out (``drop_overlapping``)."""
        boxes = prep[6]
        chosen = covering = None
        for k in range(len(boxes) if boxes is not None else 0):
            state, line = self.test(prep, k)
            if state == _FREE:
                chosen = (boxes[k], line)
                break
            if state == _COVERS and covering is None:
                covering = (boxes[k], line)
        if chosen is None and covering is not None and may_cover:
            chosen = covering
        if boxes is None or (chosen is None and self.drop):
            self.leave_out(prep)
            return
        box, line = chosen if chosen is not None else (boxes[0], None)
        self.take(prep, box, line, chosen is None)

    def take(self, prep, box, line, overlaps: bool) -> None:
        self.canvas.take(box, line)
        self._sides = (None, {})
        self.placed.append((prep[0], {**prep[1], "box": [int(x) for x in box], "leader": line, "overlaps": overlaps}))

    def leave_out(self, prep) -> None:
        self.placed.append((prep[0], {**prep[1], "box": None, "leader": None, "overlaps": True}))


def _place_all(layouts: list, items, may_cover, homes: dict | None) -> dict:
    """Place ``items`` on every layout at once; returns the homes used (label id → side).

    Two tiers, each in item order: the labels that may cover obstacles (``may_cover``: the plan's
    ``first``; every label when it is None), then the others. Within a tier, every label first goes
    to its home side where it has a place there, then the labels that found none take the first free
    place on any side (``_Layout.place``), except that one of the second tier is left out (with
    ``labels.drop_overlapping``): no answer needs it, and a label that changes sides from image to
    image cannot be followed. ``homes`` None: each label's home is chosen here, as the side with a
    place in the most of the layouts."""
    chosen: dict = {}
    for tier in _tiers(items, may_cover):
        left: list = [[] for _ in layouts]
        for k, item in tier:
            preps = [(n, lay, lay.prepare(k, item)) for n, lay in enumerate(layouts)]
            preps = [(n, lay, p) for n, lay, p in preps if p is not None]
            if not preps:
                continue
            lid = preps[0][2][1]["id"]
            cover = may_cover is None or lid in may_cover
            home = _home([(lay, p) for _, lay, p in preps], cover) if homes is None else homes.get(lid)
            if home is not None:
                chosen[lid] = home
            for n, lay, p in preps:
                if not lay.at_home(p, home, cover):
                    left[n].append((p, cover, home is not None))
        for lay, rest in zip(layouts, left):
            for p, cover, homed in rest:
                if homed and not cover and lay.drop:
                    lay.leave_out(p)
                else:
                    lay.place(p, cover)
    return chosen


def _tiers(items, may_cover) -> list[list]:
    """(item index, item) in placing order, in tiers (see ``_place_all``)."""
    numbered = list(enumerate(items))
    if may_cover is None:
        return [numbered]
    first = [(k, it) for k, it in numbered if len(it) > 3 and it[3] in may_cover]
    return [first, [(k, it) for k, it in numbered if not (len(it) > 3 and it[3] in may_cover)]]


def _home(preps, may_cover: bool) -> int | None:
    """The side of its anchor (an index of _DIRECTIONS) with a place in the most of the label's
    layouts (the earliest such side), or None when it has a place in none."""
    fitting = [(lay, p) for lay, p in preps if p[6] is not None]
    best, best_n = None, 0
    for side in range(len(_DIRECTIONS) if fitting else 0):
        n = sum(lay.on_side(p, side, may_cover)[0] is not None for lay, p in fitting)
        if n > best_n:
            best, best_n = side, n
            if n == len(fitting):
                break
    return best


def layout_labels(items, pixels: np.ndarray, in_front: np.ndarray, style: dict,
                  width: int, height: int, obstacles: np.ndarray | None = None, may_cover=None,
                  radius_px: np.ndarray | None = None, reserved=None, homes: dict | None = None) -> list[dict]:
    """Place each label by its anchor, at least ``labels.gap_px`` from every label and leader line
    placed before it and inside the frame (greedy, in the order of ``_place_all``).

    A label touches its atom (box within ``labels.touch_px`` of the anchor) where such a place
    is free; otherwise (``labels.leaders``) it goes further out with a leader line to the
    atom's rim (``radius_px``: atom radii on screen) that crosses no label and no other leader.
    ``homes`` (label id → side, from ``label_homes``): the side of its atom a label takes where it
    has room there (its first free place on that side), so that it sits on the same side in every
    image of a scene.
    ``reserved``: boxes no label may come near (the scale bar).
    ``obstacles`` (rows u, v, r, atom row): atoms that labels should not cover. A label takes the
    first free place that covers no obstacle; failing that, a label whose id is in ``may_cover``
    takes the first place free of other labels, any other label is left out.

    Labels whose anchor is outside the image or behind the camera are dropped. Returns, in item
    order, dicts with text, kind, id, atom row, box [u0, v0, u1, v1] (pixels, top-left origin, outline
    included), ``leader`` (None or two points) and ``overlaps`` when no free place was found;
    with ``drop_overlapping`` such a label gets box None and is not drawn.
    """
    layout = _Layout(pixels, in_front, style, width, height, obstacles, radius_px, reserved)
    _place_all([layout], items, may_cover, homes or {})
    return layout.entries()


def label_homes(items, views: list[dict], style: dict, may_cover=None) -> tuple[dict, list[list[dict]]]:
    """Label id → its home: the side of its atom (an index of the candidate directions) where it has
    a place in the most of ``views``, chosen label by label while the views are laid out together;
    and the labels of each view, exactly as ``layout_labels`` lays it out with these homes.

    ``views``: the ``layout_labels`` arguments of each image (pixels, in_front, width, height,
    obstacles, radius_px, reserved)."""
    layouts = [_Layout(v["pixels"], v["in_front"], style, v["width"], v["height"], v.get("obstacles"),
                       v.get("radius_px"), v.get("reserved")) for v in views]
    homes = _place_all(layouts, items, may_cover, None)
    return homes, [lay.entries() for lay in layouts]
