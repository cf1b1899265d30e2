"""The px/Å scale of an image where a rationale measures: from a bond drawn there, or the scale bar.

A perspective image has no single scale: px per Å falls with the distance from the camera. A reader
takes it where they measure, from a bond between two labelled atoms whose length they know (a
standard covalent length, ``core/data/reading.yaml``: protein backbone bonds by atom name, any other
by its elements), choosing among the few nearest bonds the one that looks least foreshortened (most
px per standard Å: a pixel criterion). Where no such bond is near and the image has a scale bar
(misi_plus), the bar: its Å text over its pixel length, which holds at the depth of the centre of
rotation. The rationale says which.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ..data_files import load_table
from .evidence import Fact, Facts, NoRationale, View, decimals


@lru_cache(maxsize=1)
def reading_table() -> dict:
    return load_table("reading.yaml")


def _pair(table: dict, x: str, y: str):
    return table.get(f"{x}-{y}", table.get(f"{y}-{x}"))


def standard_length(view: View, a: str, b: str) -> tuple[float, float, str] | None:
    """(length Å, spread Å, what it is, e.g. "backbone CA–C" or "C–C") of the bonded pair a–b;
    None when they are not bonded or the table has no such bond."""
    if not view.bonded(a, b):
        return None
    t = reading_table()
    A, B = view.atoms[view.row(a)], view.atoms[view.row(b)]
    if not A["ligand"] and not B["ligand"]:
        same = (A["chain"], A["resseq"], A["icode"]) == (B["chain"], B["resseq"], B["icode"])
        got = _pair(t["protein"], A["name"], B["name"]) if same else None
        if got is None and not same and {A["name"], B["name"]} == {"C", "N"}:
            got = t["peptide"]["C-N"]
            return float(got), float(t["protein_spread"]), "peptide C–N"
        if got is not None:
            x, y = (A["name"], B["name"]) if f"{A['name']}-{B['name']}" in t["protein"] else (B["name"], A["name"])
            part = "backbone" if {x, y} <= {"N", "CA", "C", "O", "CB"} else A["resname"]
            return float(got), float(t["protein_spread"]), f"{part} {x}–{y}"
    ea, eb = sorted((view.element(a), view.element(b)))
    got = _pair(t["elements"], ea, eb)
    if got is None:
        return None
    return float(got[0]), float(got[1]), f"{ea.capitalize()}–{eb.capitalize()}"


@dataclass
class Scale:
    """A px/Å reading: ``name`` the fact holding it, ``text`` its quoted value, ``relative`` the
    reference's own uncertainty (spread / length), ``say``: the words the template gives it."""
    name: str
    text: str
    relative: float
    say: dict
    section: str                     # the template section that words it: "bond_scale", "bar_scale", "ring_scale"
    image: int = 0                   # the image it was read in, and the reference bond's atoms (none: the bar)
    atoms: tuple = ()


def reference_bonds(view: View, near) -> list[tuple[str, str]]:
    """Bonds of two citable heavy atoms with a standard length, the nearest (pixels, their midpoint to
    ``near``) first; the first ``reference.candidates`` reordered by px per standard Å, most first."""
    cfg = reading_table()["reference"]
    out = []
    for i, j in view.bonds():
        A, B = view.atoms[i], view.atoms[j]
        if A["element"] == "H" or B["element"] == "H":
            continue
        ka, kb = view.keys[i], view.keys[j]
        if not (view.citable(ka) and view.citable(kb)):
            continue
        std = standard_length(view, ka, kb)
        if std is None:
            continue
        px = math.dist(A["pixel"], B["pixel"])
        if px < float(cfg["min_px"]):
            continue
        mid = ((A["pixel"][0] + B["pixel"][0]) / 2, (A["pixel"][1] + B["pixel"][1]) / 2)
        out.append((round(math.dist(mid, near), 3), -round(px / std[0], 4), min(ka, kb), max(ka, kb)))
    out.sort()
    head = sorted(out[:int(cfg["candidates"])], key=lambda t: (t[1], t[0], t[2]))
    return [(a, b) for _, _, a, b in head + out[int(cfg["candidates"]):]]


def bond_scale(F: Facts, view: View, a: str, b: str, tag: str) -> Scale:
    """Quote the bond's standard length and pixel length in ``view``, and the scale they give."""
    length, spread, what = standard_length(view, a, b)
    L = F.add(Fact("standard", f"{tag}_len", length, 2, view.k, (a, b)))
    px = F.span(view, a, b, f"{tag}_px")
    sc = F.calc(f"{tag}_scale", f"{tag}_px / {tag}_len", 2)
    return Scale(f"{tag}_scale", sc, spread / length,
                 {"bond": f"{view.name(a)} – {view.name(b)}", "what": what, "length": L, "px": px, "scale": sc,
                  "img": view.k}, "bond_scale", view.k, (a, b))


def bar_scale(F: Facts, view: View, tag: str) -> Scale | None:
    """The scale bar of ``view`` (None when it has none): its Å text over its pixel length."""
    bar = view.car.get("scale_bar")
    if not bar:
        return None
    (u0, v0), (u1, v1) = bar["points"]
    L = F.add(Fact("bar", f"{tag}_len", float(bar["length"]), decimals(bar["length"]), view.k, comp="length"))
    px = F.add(Fact("bar", f"{tag}_px", math.dist((u0, v0), (u1, v1)), 1, view.k, comp="px"))
    sc = F.calc(f"{tag}_scale", f"{tag}_px / {tag}_len", 2)
    return Scale(f"{tag}_scale", sc, 0.0, {"length": L, "px": px, "scale": sc, "img": view.k}, "bar_scale", view.k)


def ring_scale(F: Facts, view: View, tag: str) -> Scale:
    """The site marker of ``view``: its radius in px over its radius in Å (the prompt states it)."""
    L = F.marker(view, "radius_angstrom", f"{tag}_len")
    px = F.marker(view, "radius_px", f"{tag}_px")
    sc = F.calc(f"{tag}_scale", f"{tag}_px / {tag}_len", 2)
    return Scale(f"{tag}_scale", sc, 0.0, {"length": L, "px": px, "scale": sc, "img": view.k}, "ring_scale", view.k)


def scale_near(F: Facts, view: View, near, tag: str, prefer_bar: bool = False) -> Scale:
    """The scale where ``near`` (a pixel position) is: the best nearby reference bond, else the scale
    bar; ``NoRationale`` when the image has neither. ``prefer_bar``: what is measured lies at the depth
    of the centre of rotation (the centre of the drawn atoms), where the bar holds: the bar first."""
    if prefer_bar and view.car.get("scale_bar"):
        return bar_scale(F, view, tag)
    bonds = reference_bonds(view, near)
    if bonds:
        return bond_scale(F, view, *bonds[0], tag)
    bar = bar_scale(F, view, tag)
    if bar is None:
        raise NoRationale(f"image {view.k} has no labelled bond of known length and no scale bar")
    return bar


def say_scale(W, scale: Scale) -> str:
    """The template's words for how a scale was read (a phrase of a sentence)."""
    return W.phrase(scale.section, **scale.say)


__all__ = ["reading_table", "standard_length", "Scale", "reference_bonds", "bond_scale", "bar_scale", "ring_scale", "scale_near",
           "say_scale"]
