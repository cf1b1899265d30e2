"""3D quantities estimated from pixel readings, and how far such an estimate is from changing an answer.

No image shows a distance between two atoms: a reader estimates it. In one image two atoms are
(du, dv) px apart; a second image, turned 90° to it, shows the offset the first cannot (its depth) as
a horizontal or vertical pixel offset; each image's px/Å scale where the atoms are (``scales.py``)
turns pixels into Å. Which image axis shows which direction follows from the views the prompt names
(``image_axes``: the left view's horizontal axis is the front's depth, …). The components, the
distance and an angle are ``calc`` facts over those readings, quoted as "about …".

``reading_error`` is how far such an estimate may be off (``core/data/reading.yaml``); a builder
records in ``Facts.margins`` how many reading errors separate its estimate from the value that would
change the answer (negative: the estimate points to another answer). The least is the record's
``reading_margin``: below 1 the images alone leave the answer open within a reading's error.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..scene.geometry import canonical_views, rotation_matrix, view_ops
from .evidence import Fact, Facts, NoRationale, View, fmt
from .scales import Scale, reading_table, say_scale, scale_near

AXES = "xyz"


@lru_cache(maxsize=None)
def image_axes(view: str) -> tuple[tuple[str, int], tuple[str, int]]:
    """For a canonical view: which front axis (and sign) its u (right) and its v (down) show."""
    r = np.eye(3)
    for op in view_ops(view):
        r = rotation_matrix(op.axis, op.value) @ r
    u = int(np.argmax(np.abs(r[0])))
    v = int(np.argmax(np.abs(r[1])))
    return (AXES[u], int(round(r[0, u]))), (AXES[v], -int(round(r[1, v])))


def view_of(view: View) -> str | None:
    """The canonical view an image shows (its render's ops are that view's), or None."""
    ops = (view.car.get("description") or {}).get("ops", {})
    if set(ops) - {"all"}:
        return None
    want = ops.get("all", [])
    for name, steps in canonical_views().items():
        if [o.as_dict() for o in steps] == want:
            return name
    return None


@dataclass
class Vector:
    """An estimated vector between two atoms, in the front view's frame (x right, y up, z toward the
    viewer): ``comps`` axis → the calc fact holding it (Å); ``say``: its readings, in the words of the
    template's ``section`` (``reading``: two views; ``reading_linked``: the hidden offset through a
    third atom)."""
    comps: dict
    images: tuple
    say: dict
    scales: tuple
    section: str = "reading"


def view_pair(views: list[View], keys) -> tuple[View, View, str] | None:
    """Two canonical views in which every atom of ``keys`` is citable, the second showing the direction
    the first cannot (its depth): (first, second, that axis). Of all such pairs, the one whose atoms lie
    nearest their images' centres (pixels): off-centre, a depth difference shifts an offset (perspective)."""
    named = [(v, view_of(v)) for v in views]
    named = [(v, n) for v, n in named if n and all(v.citable(k) for k in keys)]
    best = None
    for a, na in named:
        (ua, _), (va, _) = image_axes(na)
        missing = next(x for x in AXES if x not in (ua, va))
        for b, nb in named:
            if b is not a and missing in (image_axes(nb)[0][0], image_axes(nb)[1][0]):
                lever = max(_off_centre(a, keys), _off_centre(b, keys))
                if best is None or lever < best[0] - 1e-9:
                    best = (lever, a, b, missing)
    return None if best is None else best[1:]


def _off_centre(view: View, keys) -> float:
    u, v = midpoint(view, keys)
    return round(float(np.hypot(u - view.width / 2, v - view.height / 2)) / view.width, 6)


def midpoint(view: View, keys) -> tuple[float, float]:
    pts = [view.pixel(k) for k in keys]
    return float(np.mean([p[0] for p in pts])), float(np.mean([p[1] for p in pts]))


def depth_reading(B: View, missing: str) -> tuple[str, int]:
    """Which pixel axis of image B ("u" or "v") shows the front axis ``missing``, and its sign."""
    (ub, su), (_, sv) = image_axes(view_of(B))
    return ("u", su) if ub == missing else ("v", sv)


def two_view(F: Facts, W, A: View, B: View, missing: str, tag: str, sa: Scale, scale_b, a: str, b: str) -> Vector:
    """The components (Å) of the offsets quoted as ``<tag>_du``, ``<tag>_dv`` (in A) and ``<tag>_dw`` (in
    B, along the axis that shows ``missing``), ``<tag>_ds`` (in B, along the axis A shows too). B's size
    relative to A's is the ratio of the shared offsets where both are long enough (``vectors.min_shared_px``):
    then A's scale alone turns pixels into Å; else B's own scale (``scale_b()``)."""
    (ua, su), (va, sv) = image_axes(view_of(A))
    wc, wsign = depth_reading(B, missing)
    sc = "v" if wc == "u" else "u"
    shared = dict(zip("uv", image_axes(view_of(B))))[sc][0]
    ac = "u" if ua == shared else "v"
    comps = {ua: f"{tag}_{ua}", va: f"{tag}_{va}", missing: f"{tag}_{missing}"}
    F.calc(comps[ua], f"{'-' if su < 0 else ''}{tag}_du / {sa.name}", 2, estimate=True)
    F.calc(comps[va], f"{'-' if sv < 0 else ''}{tag}_dv / {sa.name}", 2, estimate=True)
    least = float(reading_table()["vectors"]["min_shared_px"])
    words = {"img": A.k, "view": view_of(A), "img2": B.k, "view2": view_of(B), "a": a, "b": b,
             "du": _quoted(F, f"{tag}_du"), "dv": _quoted(F, f"{tag}_dv"), "dw": _quoted(F, f"{tag}_dw"),
             "ds": _quoted(F, f"{tag}_ds"), "da": _quoted(F, f"{tag}_d{ac}"), "dir": _dir(wc), "sdir": _dir(sc),
             "adir": _dir(ac),
             "scale": say_scale(W, sa)}
    if min(abs(F.values[f"{tag}_ds"]), abs(F.values[f"{tag}_d{ac}"])) >= least:
        words["k"] = F.calc(f"{tag}_k", f"abs({tag}_d{ac}) / abs({tag}_ds)", 2)
        F.calc(comps[missing], f"{'-' if wsign < 0 else ''}{tag}_dw * {tag}_k / {sa.name}", 2, estimate=True)
        return Vector(comps, (A.k, B.k), words, (sa,), "reading_ratio")
    sb = scale_b()
    words["scale2"] = say_scale(W, sb)
    F.calc(comps[missing], f"{'-' if wsign < 0 else ''}{tag}_dw / {sb.name}", 2, estimate=True)
    return Vector(comps, (A.k, B.k), words, (sa, sb), "reading")


def _dir(comp: str) -> str:
    return "across" if comp == "u" else "down"


def _quoted(F: Facts, name: str) -> str:
    f = next(x for x in reversed(F.items) if x.name == name)
    return fmt(f.value, f.nd)


def read_vector(F: Facts, W, A: View, B: View, missing: str, a: str, b: str, tag: str, sa: Scale | None = None) -> Vector:
    """Quote a→b's pixel offsets in A and B, and estimate its components (Å) (``two_view``); ``sa``: A's
    scale where a and b are (read near them when not given)."""
    sa = sa or scale_near(F, A, midpoint(A, (a, b)), f"{tag}_sa")
    F.offset(A, a, b, "u", f"{tag}_du")
    F.offset(A, a, b, "v", f"{tag}_dv")
    wc = depth_reading(B, missing)[0]
    F.offset(B, a, b, wc, f"{tag}_dw")
    F.offset(B, a, b, "v" if wc == "u" else "u", f"{tag}_ds")
    return two_view(F, W, A, B, missing, tag, sa, lambda: scale_near(F, B, midpoint(B, (a, b)), f"{tag}_sb"),
                    A.name(a), A.name(b))


def linked_views(views: list[View], A: View, missing: str, a: str, b: str, candidates) -> tuple | None:
    """A third atom c and two views showing the front axis ``missing``, one citing a and c, one c and b
    (when no view shows that axis with a and b both citable): (c, B1, B2), the first candidate that has
    them, or None."""
    showing = [v for v in views if v is not A and view_of(v)
               and missing in (image_axes(view_of(v))[0][0], image_axes(view_of(v))[1][0])]
    for c in candidates:
        b1 = next((v for v in showing if v.citable(a) and v.citable(c)), None)
        b2 = next((v for v in showing if v.citable(c) and v.citable(b)), None)
        if b1 is not None and b2 is not None:
            return c, b1, b2
    return None


def read_linked_vector(F: Facts, W, A: View, links: tuple, missing: str, a: str, b: str, tag: str) -> Vector:
    """a→b read in A, and the offset A hides as a→c in one view plus c→b in another (``links``: c, B1, B2),
    each at its own scale."""
    c, b1, b2 = links
    sa = scale_near(F, A, midpoint(A, (a, b)), f"{tag}_sa")
    s1 = scale_near(F, b1, midpoint(b1, (a, c)), f"{tag}_s1")
    s2 = scale_near(F, b2, midpoint(b2, (c, b)), f"{tag}_s2")
    du = F.offset(A, a, b, "u", f"{tag}_du")
    dv = F.offset(A, a, b, "v", f"{tag}_dv")
    (c1, g1), (c2, g2) = depth_reading(b1, missing), depth_reading(b2, missing)
    w1 = F.offset(b1, a, c, c1, f"{tag}_dw1")
    w2 = F.offset(b2, c, b, c2, f"{tag}_dw2")
    (ua, su), (va, sv) = image_axes(view_of(A))
    comps = {ua: f"{tag}_{ua}", va: f"{tag}_{va}", missing: f"{tag}_{missing}"}
    F.calc(comps[ua], f"{'-' if su < 0 else ''}{tag}_du / {sa.name}", 2, estimate=True)
    F.calc(comps[va], f"{'-' if sv < 0 else ''}{tag}_dv / {sa.name}", 2, estimate=True)
    F.calc(comps[missing], f"{'-' if g1 < 0 else ''}{tag}_dw1 / {s1.name} {'-' if g2 < 0 else '+'} "
                           f"{tag}_dw2 / {s2.name}", 2, estimate=True)
    say = {"img": A.k, "view": view_of(A), "a": A.name(a), "b": A.name(b), "c": b1.name(c), "du": du, "dv": dv,
           "img2": b1.k, "view2": view_of(b1), "dw1": w1, "dir1": "across" if c1 == "u" else "down",
           "img3": b2.k, "view3": view_of(b2), "dw2": w2, "dir2": "across" if c2 == "u" else "down",
           "scale": say_scale(W, sa), "scale2": say_scale(W, s1), "scale3": say_scale(W, s2)}
    return Vector(comps, (A.k, b1.k, b2.k), say, (sa, s1, s2), "reading_linked")


def estimate_vector(F: Facts, W, views: list[View], a: str, b: str, tag: str) -> tuple[Vector, tuple | None]:
    """a→b from the images: two views citing both (``view_pair``), else one view citing both and the
    offset it hides through a third atom (``linked_views``; the structure says which atoms are near);
    (vector, (A, B, missing) when two views sufficed). ``NoRationale`` when neither reading exists."""
    pair = view_pair(views, (a, b))
    if pair is not None:
        A, B, missing = pair
        return read_vector(F, W, A, B, missing, a, b, tag), pair
    for A in views:
        name = view_of(A)
        if not name or not (A.citable(a) and A.citable(b)):
            continue
        (ua, _), (va, _) = image_axes(name)
        missing = next(x for x in AXES if x not in (ua, va))
        mid = (A.xyz(a) + A.xyz(b)) / 2
        near = sorted((float(np.linalg.norm(A.xyz(k) - mid)), k) for k in A.index if k not in (a, b)
                      and A.atoms[A.row(k)]["element"] != "H")
        links = linked_views(views, A, missing, a, b, [k for _, k in near[:60]])
        if links is not None:
            return read_linked_vector(F, W, A, links, missing, a, b, tag), None
    raise NoRationale("no view cites both atoms, or none shows the offset it hides")


def distance(F: Facts, vec: Vector, name: str) -> str:
    x, y, z = (vec.comps[a] for a in AXES)
    return F.calc(name, f"sqrt({x}**2 + {y}**2 + {z}**2)", 1, estimate=True)


def angle(F: Facts, v1: Vector, v2: Vector, name: str) -> str:
    """The angle (degrees) between two estimated vectors that start at the same atom."""
    dot = " + ".join(f"{v1.comps[a]} * {v2.comps[a]}" for a in AXES)
    n1 = "sqrt(" + " + ".join(f"{v1.comps[a]}**2" for a in AXES) + ")"
    n2 = "sqrt(" + " + ".join(f"{v2.comps[a]}**2" for a in AXES) + ")"
    return F.calc(name, f"acos(max(-1, min(1, ({dot}) / ({n1} * {n2}))))", 0, estimate=True)


def reading_error(F: Facts, est: float, scales, two_views: bool = False) -> float:
    """How far an estimate of ``est`` Å, read at ``scales`` (in one image, or in two: ``two_views``), may
    be off (Å): ``core/data/reading.yaml``'s relative error plus the references' own spread, and its
    pixel error at the finest scale used."""
    cfg = reading_table()["error"]
    scales = [s for s in scales if s is not None]
    rel = float(cfg["relative_two_views" if two_views else "relative"]) + max((s.relative for s in scales), default=0.0)
    px = float(cfg["pixels"]) / min((F.values[s.name] for s in scales), default=1.0)
    return rel * abs(est) + px


def quote_error(F: Facts, est: str, scales, two_views: bool = False) -> str:
    """``reading_error`` of the estimate named ``est``, as a quoted fact (an estimate in Å) over
    ``tolerance`` facts: the table's relative and pixel error, and the spread of the least certain
    reference bond's standard length."""
    cfg = reading_table()["error"]
    scales = [s for s in scales if s is not None]
    key = "relative_two_views" if two_views else "relative"
    F.add(Fact("tolerance", f"{est}_tol_rel", float(cfg[key]), 3, comp=key))
    F.add(Fact("tolerance", f"{est}_tol_px", float(cfg["pixels"]), 1, comp="pixels"))
    worst = max(scales, key=lambda s: s.relative)
    F.add(Fact("tolerance", f"{est}_tol_ref", worst.relative, 4, worst.image, worst.atoms, "spread"))
    finest = min(scales, key=lambda s: F.values[s.name]).name
    return F.calc(f"{est}_err", f"({est}_tol_rel + {est}_tol_ref) * abs({est}) + {est}_tol_px / {finest}", 1,
                  estimate=True)


def margin_below(F: Facts, est: float, limit: float, err: float) -> float:
    """Reading errors by which ``est`` is below ``limit`` (negative: above it); recorded."""
    return record(F, (limit - est) / err)


def margin_above(F: Facts, est: float, limit: float, err: float) -> float:
    return record(F, (est - limit) / err)


def margin_rounding(F: Facts, est: float, answer: float, step: float, err: float) -> float:
    """Reading errors by which ``est`` stays within the half-step around ``answer`` (negative: outside)."""
    lo, hi = answer - step / 2, answer + step / 2
    inside = min(est - lo, hi - est)
    return record(F, inside / err)


def record(F: Facts, margin: float) -> float:
    F.margins.append(round(float(margin), 3))
    return margin


def reading_margin(F: Facts) -> float | None:
    return min(F.margins) if F.margins else None


def ambiguous(F: Facts) -> bool:
    """Within a reading's error, the images leave the answer open (``reading_margin`` below 1)."""
    m = reading_margin(F)
    return m is not None and m < 1.0


__all__ = ["image_axes", "view_of", "Vector", "view_pair", "midpoint", "depth_reading", "two_view", "read_vector",
           "linked_views", "read_linked_vector", "estimate_vector", "distance", "angle", "reading_error", "quote_error", "margin_below",
           "margin_above", "margin_rounding", "record", "reading_margin", "ambiguous"]
