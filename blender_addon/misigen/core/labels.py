"""Label texts and their placement on the image, computed without Blender.

The font is monospace, so a label's box is exact from its length; Blender draws the
text where this module says, and the sidecar records the same boxes.
"""
from __future__ import annotations

import numpy as np

from .structure import Structure

# Candidate offsets of the label's lower-left corner from the anchor pixel, in units of
# (label height): right-above first, then the other quadrants, then further out.
_OFFSETS = [(0.5, -0.5), (0.5, 1.2), (-1, -0.5), (-1, 1.2), (0.5, -1.8), (-1, -1.8), (0.5, 2.5), (-1, 2.5)]


def residue_text(s: Structure, i: int) -> str:
    return f"{s.resname[i]} {s.resseq[i]}{s.icode[i]}"


def label_items(s: Structure, style: dict) -> list[tuple[str, int, str]]:
    """(text, anchor atom row, kind) for every label the style asks for, in a stable order."""
    cfg = style["labels"]
    items = []
    if not cfg["enabled"]:
        return items
    if cfg["residues"]:
        res = s.residue_index()
        for r in sorted(set(res[~s.ligand].tolist())):
            rows = np.nonzero(res == r)[0]
            if s.is_water[rows[0]]:
                continue
            names = s.name[rows].tolist()
            anchor = rows[names.index("CA")] if "CA" in names else rows[0]
            items.append((residue_text(s, int(anchor)), int(anchor), "residue"))
    if cfg["ligand_atoms"]:
        for i in np.nonzero(s.ligand & ~s.is_hydrogen)[0]:
            items.append((str(s.name[i]), int(i), "ligand_atom"))
    return items


def font_px(style: dict, width: int) -> int:
    return max(8, int(round(style["labels"]["size_px"] * width / 512)))


def text_box_size(text: str, style: dict, width: int) -> tuple[int, int]:
    size = font_px(style, width)
    cfg = style["labels"]
    return int(np.ceil(len(text) * cfg["char_width"] * size)), int(np.ceil(cfg["cap_height"] * size))


def layout_labels(items, pixels: np.ndarray, in_front: np.ndarray, style: dict,
                  width: int, height: int) -> list[dict]:
    """Place each label near its anchor without overlapping earlier ones (greedy).

    Labels whose anchor is outside the image or behind the camera are dropped. Returns
    dicts with text, kind, atom row, box [u0, v0, u1, v1] (pixels, top-left origin) and
    ``overlaps`` when no free place was found; with ``drop_overlapping`` such a label gets
    box None and is not drawn.
    """
    placed: list[dict] = []
    boxes: list[tuple] = []
    pad = 1
    for text, atom, kind in items:
        u, v = pixels[atom]
        if not in_front[atom] or not (0 <= u < width and 0 <= v < height):
            continue
        w, h = text_box_size(text, style, width)
        best = None
        for dx, dy in _OFFSETS:
            u0 = u + (dx * h if dx > 0 else -w - 0.5 * h)
            v1 = v - dy * h            # v grows downwards; the box's bottom edge
            u0 = float(np.clip(u0, 0, width - w))
            v1 = float(np.clip(v1, h, height))
            box = (int(round(u0)), int(round(v1 - h)), int(round(u0)) + w, int(round(v1)))
            clash = any(box[0] < b[2] + pad and b[0] < box[2] + pad and box[1] < b[3] + pad and b[1] < box[3] + pad
                        for b in boxes)
            if not clash:
                best = (box, False)
                break
            if best is None:
                best = (box, True)
        box, overlaps = best
        if overlaps and style["labels"]["drop_overlapping"]:
            placed.append({"text": text, "kind": kind, "atom": atom, "box": None, "overlaps": True})
            continue
        boxes.append(box)
        placed.append({"text": text, "kind": kind, "atom": atom, "box": list(box), "overlaps": overlaps})
    return placed
