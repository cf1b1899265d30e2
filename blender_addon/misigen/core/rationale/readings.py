"""Readings every rationale builder may use: which bonds give a pixel scale (a standard length over
its pixel length), rounding a quoted estimate to the answer's step, which image shows a view, where
an atom is citable.

A builder (a task's ``TaskType.rationale``) gets the record, its images' ``View``s (1-based,
options after the images), a ``Facts`` collector and a template ``Writer``; it returns nothing
and raises ``NoRationale`` when the images do not support a derivation that ends in the record's
answer (then the record carries none and ``validate`` says so). Candidates (atoms, bonds) are
tried in a fixed order, so the same sidecars always give the same rationale.
"""
from __future__ import annotations

import numpy as np

from ..scene.geometry import view_ops
from ..op_grammar import format_number
from .evidence import Fact, Facts, NoRationale, View
from .scales import bond_scale, standard_length


def ordered_bonds(view: View, also: list[View] = (), both_also: bool = False) -> list[tuple[str, str]]:
    """Bonds of a known standard length whose two atoms are citable in ``view`` (and the first, or
    both, in ``also``), the least foreshortened-looking first (most px per standard Å: its pixel length
    then gives the scale)."""
    out = []
    for i, j in view.bonds():
        a, b = view.atoms[i], view.atoms[j]
        if a["element"] == "H" or b["element"] == "H":
            continue
        ka, kb = view.keys[i], view.keys[j]
        std = standard_length(view, ka, kb)
        if std is None:
            continue
        for x, y in ((ka, kb), (kb, ka)):
            if not (view.citable(x) and view.citable(y)):
                continue
            if not all(o.citable(x) and (not both_also or o.citable(y)) for o in also):
                continue
            px = float(np.hypot(*(np.subtract(view.pixel(x), view.pixel(y)))))
            out.append((-round(px / std[0], 4), x, y))
            break
    out.sort()
    return [(x, y) for _, x, y in out]


def scale_from_bond(F: Facts, view: View, a: str, b: str, tag: str) -> tuple[str, str, str]:
    """Quote the bond's standard length and pixel length in ``view``; returns (length, px, scale) texts
    (facts ``<tag>_len``, ``<tag>_px``, ``<tag>_scale``)."""
    s = bond_scale(F, view, a, b, tag)
    return s.say["length"], s.say["px"], s.text


def scale_words(view: View, a: str, b: str) -> dict:
    """How a template names a reference bond: ``bond`` (its atoms) and ``what`` (its kind)."""
    return {"bond": f"{view.name(a)} – {view.name(b)}", "what": standard_length(view, a, b)[2]}


def step_round(F: Facts, name: str, src: str, step: float) -> float | None:
    """Round a quoted estimate to the answer's step; None when it sits near a tie (a reader could
    round either way), so the builder tries other evidence."""
    x = F.values[src] / step
    if abs(x - round(x)) > 0.4:
        return None
    value = round(x) * step
    F.add(Fact("round", name, value, 6, expr=src, extra={"step": step}))
    return float(format_number(value, as_float=True))


def nearest_view(names: list, want: str):
    return names.index(want) + 1 if want in names else None


def cite_somewhere(views: list[View], keys) -> View | None:
    for v in views:
        if all(v.citable(k) for k in keys):
            return v
    return None


def ops_text(ops: list) -> str:
    return ", ".join(f"{o['op']} {o['axis']} {format_number(o['value'])}" for o in ops)


def view_number(rec, V, view: str, optional: bool = False) -> int | None:
    """The image showing canonical ``view``: its render description's ops are that view's."""
    want = [o.as_dict() for o in view_ops(view)]
    for k in range(1, len(rec["images"]) + 1):
        if (V[k].car.get("description") or {}).get("ops", {}).get("all", []) == want:
            return k
    if optional:
        return None
    raise NoRationale(f"no image shows the {view} view")


__all__ = ["NoRationale", "ordered_bonds", "scale_from_bond", "scale_words", "step_round", "nearest_view", "cite_somewhere",
           "ops_text", "view_number"]
