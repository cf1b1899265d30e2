"""Label texts and their placement on the image, computed without Blender.

The font is monospace, so a label's box is exact from its length; Blender draws the
text where this module says, and the sidecar records the same boxes (outline included).
Which labels an image carries, and which are placed first when not all fit, is a
``LabelPlan`` that is part of the render description (so it is hashed into the image key).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .structure import Structure

# Candidate offsets of the label's lower-left corner from the anchor pixel, in units of
# (label height): right-above first, then the other quadrants, then further out.
_OFFSETS = [(0.5, -0.5), (0.5, 1.2), (-1, -0.5), (-1, 1.2), (0.5, -1.8), (-1, -1.8), (0.5, 2.5), (-1, 2.5),
            (0.5, -3.1), (-1, -3.1), (0.5, 3.8), (-1, 3.8)]
OUTLINE_PX = 1      # the text is drawn with a 1-px dark outline; boxes include it


@dataclass(frozen=True)
class LabelPlan:
    """Which labels an image carries and which win when not all fit.

    ``residues``: "ARG 221" at each shown protein residue ("ARG 221.A" when ``chains``);
    ``ligand_atoms``: the ligand's heavy-atom names; ``residue_atoms``: residues
    ((chain, resseq, icode), …) whose heavy atoms are labelled with their atom names;
    ``first``: label ids (see ``label_id``) placed before all others, in that order.
    """
    residues: bool = True
    ligand_atoms: bool = True
    residue_atoms: tuple = ()
    chains: bool = False
    first: tuple = ()
    avoid: str = "ligand"         # atoms labels should not cover: "ligand", "all" or "none"

    @classmethod
    def from_style(cls, style: dict) -> "LabelPlan | None":
        cfg = style["labels"]
        if not cfg["enabled"]:
            return None
        return cls(residues=bool(cfg["residues"]), ligand_atoms=bool(cfg["ligand_atoms"]))

    def description(self) -> dict:
        return {"residues": self.residues, "ligand_atoms": self.ligand_atoms,
                "residue_atoms": [list(r) for r in self.residue_atoms], "chains": self.chains,
                "first": list(self.first), "avoid": self.avoid}


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
        for r in sorted(set(res[~s.ligand].tolist())):
            rows = np.nonzero(res == r)[0]
            if s.is_water[rows[0]]:
                continue
            names = s.name[rows].tolist()
            anchor = int(rows[names.index("CA")] if "CA" in names else rows[0])
            items.append((residue_text(s, anchor, plan.chains), anchor, "residue",
                          residue_id(s.chain[anchor], s.resseq[anchor], s.icode[anchor])))
    if want_atoms:
        for i in np.nonzero(~s.ligand & ~s.is_hydrogen)[0]:
            if (str(s.chain[i]), int(s.resseq[i]), str(s.icode[i])) in want_atoms:
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


def boxes_clash(a, b, gap: float) -> bool:
    """Whether two boxes [u0, v0, u1, v1] are closer than ``gap`` pixels (or overlap)."""
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def covers(box, circles: np.ndarray, own: int = -1) -> bool:
    """Whether a box overlaps any of the circles (rows u, v, r in pixels, atom row) other than
    the circle of atom ``own`` (a label sits next to its own atom)."""
    if circles is None or not len(circles):
        return False
    circles = circles[circles[:, 3] != own]
    cu = np.clip(circles[:, 0], box[0], box[2])
    cv = np.clip(circles[:, 1], box[1], box[3])
    return bool((((circles[:, 0] - cu) ** 2 + (circles[:, 1] - cv) ** 2) < circles[:, 2] ** 2).any())


def layout_labels(items, pixels: np.ndarray, in_front: np.ndarray, style: dict,
                  width: int, height: int, obstacles: np.ndarray | None = None, may_cover=None) -> list[dict]:
    """Place each label near its anchor, in item order, at least ``labels.gap_px`` from every
    label placed before it and inside the frame (greedy).

    ``obstacles`` (rows u, v, r, atom row): atoms that labels should not cover. A label takes the first
    candidate place free of other labels and obstacles; failing that, a label whose id is in
    ``may_cover`` takes the first place free of other labels, any other label is left out.

    Labels whose anchor is outside the image or behind the camera are dropped. Returns
    dicts with text, kind, id, atom row, box [u0, v0, u1, v1] (pixels, top-left origin, outline
    included) and ``overlaps`` when no free place was found; with ``drop_overlapping`` such a
    label gets box None and is not drawn.
    """
    placed: list[dict] = []
    boxes: list[tuple] = []
    gap = float(style["labels"]["gap_px"])
    for item in items:
        text, atom, kind = item[:3]
        lid = item[3] if len(item) > 3 else None
        u, v = pixels[atom]
        if not in_front[atom] or not (0 <= u < width and 0 <= v < height):
            continue
        w, h = text_box_size(text, style, width)
        if w > width or h > height:                  # cannot fit inside the frame at all
            placed.append({"text": text, "kind": kind, "id": lid, "atom": atom, "box": None, "overlaps": True})
            continue
        best, covering, fallback = None, None, None
        for dx, dy in _OFFSETS:
            u0 = u + (dx * h if dx > 0 else -w - 0.5 * h)
            v1 = v - dy * h            # v grows downwards; the box's bottom edge
            u0 = int(round(float(np.clip(u0, 0, width - w))))
            v1 = int(round(float(np.clip(v1, h, height))))
            box = (u0, v1 - h, u0 + w, v1)
            if fallback is None:
                fallback = box
            if any(boxes_clash(box, b, gap) for b in boxes):
                continue
            if not covers(box, obstacles, atom):
                best = box
                break
            if covering is None:
                covering = box
        if best is None and covering is not None and (may_cover is None or lid in may_cover):
            best = covering
        box, overlaps = (best, False) if best is not None else (fallback, True)
        entry = {"text": text, "kind": kind, "id": lid, "atom": atom}
        if overlaps and style["labels"]["drop_overlapping"]:
            placed.append({**entry, "box": None, "overlaps": True})
            continue
        boxes.append(box)
        placed.append({**entry, "box": list(box), "overlaps": overlaps})
    return placed
