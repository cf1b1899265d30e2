"""Label texts and their placement on the image, computed without Blender.

The font is monospace, so a label's box is exact from its length; Blender draws the
text where this module says, and the sidecar records the same boxes (outline included).
Which labels an image carries, and which are placed first when not all fit, is a
``LabelPlan`` that is part of the render description (so it is hashed into the image key).
Each label has a home, the side of its atom it takes wherever that side has room, chosen once for
all images of a scene (``label_homes``), so that a reader can follow it from image to image.
"""
from __future__ import annotations

import collections
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
        skip, is_ca = s.ligand | s.is_water, s.name == "CA"
        order = np.argsort(res, kind="stable")              # each residue's rows, residues in index order
        for rows in np.split(order, np.flatnonzero(np.diff(res[order])) + 1):
            if not len(rows) or skip[rows[0]]:
                continue
            ca = rows[is_ca[rows]]
            anchor = int(ca[0] if len(ca) else rows[0])
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
    cfg = style["labels"]
    return _box_size(text, font_px(style, width), cfg["char_width"], cfg["cap_height"])


@functools.lru_cache(maxsize=8192)
def _box_size(text: str, size: int, char_width: float, cap_height: float) -> tuple[int, int]:
    return (int(np.ceil(len(text) * char_width * size)) + 2 * OUTLINE_PX,
            int(np.ceil(cap_height * size)) + 2 * OUTLINE_PX)


def _gap(box, u: float, v: float, w: int, h: int) -> float:
    """Distance from the anchor pixel to a box."""
    gu = max(box[0] - u, u - box[0] - w, 0.0)
    gv = max(box[1] - v, v - box[1] - h, 0.0)
    return (gu * gu + gv * gv) ** 0.5


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
    t = _steps(n)
    us = np.minimum(np.maximum(np.floor(a + (c - a) * t).astype(int), 0), width - 1)
    vs = np.minimum(np.maximum(np.floor(b + (d - b) * t).astype(int), 0), height - 1)
    return vs, us


@functools.lru_cache(maxsize=1024)
def _steps(n: int) -> np.ndarray:
    t = np.arange(n) / (n - 1)
    t.flags.writeable = False
    return t


class _Canvas:
    """What is taken on the image, pixel by pixel, while labels are placed.

    Pixel tests are exact for integer boxes: a box [u0, u1) × [v0, v1) is closer than ``gap``
    to a placed box exactly when it meets that box grown by ``gap`` on every side. It overlaps an
    obstacle's circle exactly when one of its pixels' squares does, i.e. when its pixel nearest the
    circle's centre does (``covers``: obstacles are kept as circles, not pixels).
    """

    def __init__(self, width: int, height: int, gap: float, obstacles: np.ndarray | None):
        self.w, self.h, self.gap = width, height, int(np.ceil(gap))
        self.taken = np.zeros((height, width), bool)    # label boxes grown by gap, leaders grown by 1 px
        self.boxes = np.zeros((height, width), bool)    # label boxes (leaders must not cross them)
        self.lines = np.zeros((height, width), bool)    # leader pixels (leaders must not cross)
        self.version = 0                                # how many times something was taken
        obs = np.zeros((0, 4)) if obstacles is None else np.asarray(obstacles, float).reshape(-1, 4)
        cu, cv, r = obs[:, 0], obs[:, 1], obs[:, 2]
        with np.errstate(invalid="ignore"):
            keep = r > 0
            # the pixels a circle may cover, [u0, v0, u1, v1): none when it lies outside the frame
            bounds = np.column_stack([np.maximum(0, np.floor(cu - r)), np.maximum(0, np.floor(cv - r)),
                                      np.minimum(width, np.ceil(cu + r) + 1), np.minimum(height, np.ceil(cv + r) + 1)])
        keep &= (bounds[:, 0] < bounds[:, 2]) & (bounds[:, 1] < bounds[:, 3])
        # each obstacle (u, v, r², atom) under every cell of a coarse grid its pixels may reach
        self.cells: dict = collections.defaultdict(list)
        for (u0, v0, u1, v1), (cu, cv, r, atom) in zip(bounds[keep].astype(int).tolist(), obs[keep].tolist()):
            circle = (cu, cv, r * r, int(atom))
            for cell_u in range(u0 // _CELL, (u1 - 1) // _CELL + 1):
                for cell_v in range(v0 // _CELL, (v1 - 1) // _CELL + 1):
                    self.cells[cell_u, cell_v].append(circle)

    def covers(self, b, own: int) -> bool:
        """Whether box ``b`` [u0, v0, u1, v1) covers part of an obstacle other than atom ``own``: the
        box's pixel nearest a circle's centre is in the circle."""
        cells = self.cells
        if not cells:
            return False
        for cell_u in range(b[0] // _CELL, (b[2] - 1) // _CELL + 1):
            for cell_v in range(b[1] // _CELL, (b[3] - 1) // _CELL + 1):
                for cu, cv, rr, atom in cells.get((cell_u, cell_v), ()):
                    if atom != own:
                        du = max(b[0] - cu, cu - b[2], 0.0)
                        dv = max(b[1] - cv, cv - b[3], 0.0)
                        if du * du + dv * dv < rr:
                            return True
        return False

    def leader_free(self, vs: np.ndarray, us: np.ndarray) -> bool:
        """Whether a leader's pixels (``line_pixels``) cross no label box and no other leader."""
        return not (np.count_nonzero(self.boxes[vs, us]) or np.count_nonzero(self.lines[vs, us]))

    def take(self, b, line=None) -> None:
        g = self.gap
        self.taken[max(0, b[1] - g):b[3] + g, max(0, b[0] - g):b[2] + g] = True
        self.boxes[b[1]:b[3], b[0]:b[2]] = True
        if line is not None:
            vs, us = line_pixels(line, self.w, self.h)
            self.lines[vs, us] = True
            self.taken[np.clip(vs[:, None] + _NEIGHBOURS[0], 0, self.h - 1),
                       np.clip(us[:, None] + _NEIGHBOURS[1], 0, self.w - 1)] = True
        self.version += 1


_CELL = 32        # px, the obstacle grid's cells
_NEIGHBOURS = np.array([[dv for dv in (-1, 0, 1) for _ in (-1, 0, 1)], [du for _ in (-1, 0, 1) for du in (-1, 0, 1)]])


def label_side(box, u: float, v: float) -> tuple[int, int]:
    """Which side of its anchor pixel a label box sits on: (su, sv), each -1, 0 or 1 (su = 1: the box
    is right of the anchor; sv = 1: below it; (0, 0): the box holds the anchor)."""
    su = 1 if u < box[0] else -1 if u > box[2] else 0
    sv = 1 if v < box[1] else -1 if v > box[3] else 0
    return su, sv


_TAKEN, _COVERS, _FREE = 0, 1, 2      # a candidate place: unusable, free but covering an obstacle, free
_UNUSABLE = (_TAKEN, None)


class _Label:
    """One label prepared on one layout: its candidate boxes and what is known of them so far.

    A candidate is tested when it is asked about; its answer holds until the canvas takes more, and a
    taken place stays taken. Its leader line is made once."""
    __slots__ = ("index", "entry", "u", "v", "w", "h", "corners", "boxes", "radius", "leaders", "states", "version")

    def __init__(self, index: int, entry: dict, u: float, v: float, w: int, h: int, corners, radius: float):
        self.index, self.entry, self.u, self.v, self.w, self.h, self.radius = index, entry, u, v, w, h, radius
        self.corners = corners             # the candidates' corners (``_relative_corners``); None: it cannot fit
        self.boxes = [None] * len(corners) if corners is not None else None   # each candidate's box, once made
        self.leaders = None                # per candidate: its leader (line, rows, columns), None, or False: not made yet
        self.states = None                 # per candidate: (state, leader) once known, at canvas ``version``
        self.version = -1


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
        self._size = functools.partial(_box_size, size=font_px(style, width), char_width=cfg["char_width"],
                                       cap_height=cfg["cap_height"])
        self._sides: tuple = (None, {})   # (item index, side -> on_side) while nothing is placed

    def entries(self) -> list[dict]:
        return [e for _, e in sorted(self.placed, key=lambda ke: ke[0])]

    def prepare(self, k: int, item) -> "_Label | None":
        """One label with its candidate boxes (None when it cannot fit the frame); None when its
        anchor is outside the image or behind the camera."""
        text, atom, kind = item[:3]
        u, v = float(self.pixels[atom][0]), float(self.pixels[atom][1])
        if not self.in_front[atom] or not (0 <= u < self.width and 0 <= v < self.height):
            return None
        w, h = self._size(text)
        entry = {"text": text, "kind": kind, "id": item[3] if len(item) > 3 else None, "atom": atom}
        fits = w <= self.width and h <= self.height
        r = float(self.radius_px[atom]) if self.radius_px is not None else 0.0
        return _Label(k, entry, u, v, w, h, _relative_corners(w, h, self.touch, True) if fits else None, r)

    def _states(self, lab: _Label) -> list:
        """What is known of the label's candidates: what was taken stays so, the rest is asked again
        once the canvas has taken more."""
        if lab.version != self.canvas.version:
            lab.states = [s if s is _UNUSABLE else None for s in lab.states] if lab.states else [None] * len(lab.boxes)
            lab.version = self.canvas.version
        return lab.states

    def _test(self, lab: _Label, k: int, states: list):
        """Candidate ``k``'s state, kept in ``states``."""
        b = lab.boxes[k]
        canvas = self.canvas
        if b is None:       # clipped into the frame, rounded half to even
            du, dv = lab.corners[k]
            u0, v0 = round(min(max(lab.u + du, 0.0), canvas.w - lab.w)), round(min(max(lab.v + dv, 0.0), canvas.h - lab.h))
            b = lab.boxes[k] = [u0, v0, u0 + lab.w, v0 + lab.h]
        if np.count_nonzero(canvas.taken[b[1]:b[3], b[0]:b[2]]):
            states[k] = _UNUSABLE
            return _UNUSABLE
        if lab.leaders is None:
            lab.leaders = [False] * len(lab.boxes)
        lead = lab.leaders[k]
        if lead is False:
            u, v = lab.u, lab.v
            line = leader_line(b, u, v, lab.radius) if self.leaders and _gap(b, u, v, lab.w, lab.h) > self.touch else None
            lead = lab.leaders[k] = (line, *line_pixels(line, canvas.w, canvas.h)) if line is not None else None
        if lead is not None and not canvas.leader_free(lead[1], lead[2]):
            states[k] = _UNUSABLE
            return _UNUSABLE
        states[k] = state = ((_COVERS if canvas.covers(b, lab.entry["atom"]) else _FREE),
                             lead[0] if lead is not None else None)
        return state

    def on_side(self, lab: _Label, side: int, may_cover: bool):
        """(candidate index, leader) of the label's first free place on ``side`` (an index of
        _DIRECTIONS); failing that, where ``may_cover``, the first there covering an obstacle;
        (None, None) when there is neither. Kept until something is placed (choosing a home asks)."""
        if self._sides[0] != lab.index:
            self._sides = (lab.index, {})
        known = self._sides[1]
        if side not in known:
            known[side] = self._first_on_side(lab, side, may_cover)
        return known[side]

    def _first_on_side(self, lab: _Label, side: int, may_cover: bool):
        if lab.boxes is None:
            return None, None
        states = self._states(lab)
        covering = (None, None)
        for k in _ON_SIDE[side]:
            state = states[k] or self._test(lab, k, states)
            if state[0] == _FREE:
                return k, state[1]
            if state[0] == _COVERS and may_cover and covering[0] is None:
                covering = (k, state[1])
        return covering

    def at_home(self, lab: _Label, side: int | None, may_cover: bool) -> bool:
        """Put a prepared label on its home side where it has a place there (``on_side``); whether it did."""
        k, line = self.on_side(lab, side, may_cover) if side is not None else (None, None)
        if k is not None:
            self.take(lab, lab.boxes[k], line, False)
        return k is not None

    def place(self, lab: _Label, may_cover: bool) -> None:
        """Put a prepared label at the first free candidate; failing that, where ``may_cover``
        allows, at the first one covering an obstacle; else leave it out (``drop_overlapping``)."""
        boxes = lab.boxes
        chosen = covering = None
        states = self._states(lab) if boxes is not None else []
        for k in range(len(states)):
            state, line = states[k] or self._test(lab, k, states)
            if state == _FREE:
                chosen = (boxes[k], line)
                break
            if state == _COVERS and covering is None:
                covering = (boxes[k], line)
        if chosen is None and covering is not None and may_cover:
            chosen = covering
        if boxes is None or (chosen is None and self.drop):
            self.leave_out(lab)
            return
        box, line = chosen if chosen is not None else (boxes[0], None)
        self.take(lab, box, line, chosen is None)

    def take(self, lab: _Label, box, line, overlaps: bool) -> None:
        self.canvas.take(box, line)
        self._sides = (None, {})
        self.placed.append((lab.index, {**lab.entry, "box": [int(x) for x in box], "leader": line,
                                        "overlaps": overlaps}))

    def leave_out(self, lab: _Label) -> None:
        self.placed.append((lab.index, {**lab.entry, "box": None, "leader": None, "overlaps": True}))


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
            lid = preps[0][2].entry["id"]
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
    fitting = [(lay, p) for lay, p in preps if p.boxes is not None]
    best, best_n = None, 0
    for side in range(len(_DIRECTIONS) if fitting else 0):
        n, misses = 0, len(fitting) - best_n      # a side missing this many layouts cannot do better
        for lay, p in fitting:
            if lay.on_side(p, side, may_cover)[0] is not None:
                n += 1
            else:
                misses -= 1
                if not misses:
                    break
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
