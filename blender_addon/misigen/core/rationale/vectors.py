"""Rotations read from the images in pixels: two vectors between citable atoms (their pixel offsets
across and down in the front image, their depth from the offsets a side or top image shows, brought
to the front image's size by the offsets both images share), turned by candidate rolls and compared
with the pixel offsets another image shows (T2's one roll, the option grids of T5 and T6).

Every quantity is in px at the front image's scale: a rotation needs no Å. A vector is (x, y, z) with
x = the offset across, y = minus the offset down (y points up), z toward the viewer.
"""
from __future__ import annotations

import numpy as np

from ..op_grammar import format_number
from .estimates import depth_reading, image_axes, view_of
from .evidence import Facts, NoRationale, View, evaluate
from .readings import ops_text
from .scales import reading_table


def _rot(comps: tuple, axis: str, a) -> tuple:
    """Expressions of a vector's (x, y, z) after 'roll axis a' (right-hand rule)."""
    x, y, z = comps
    a = format_number(a)
    if axis == "x":
        return x, f"({y})*cos({a}) - ({z})*sin({a})", f"({y})*sin({a}) + ({z})*cos({a})"
    if axis == "y":
        return f"({x})*cos({a}) + ({z})*sin({a})", y, f"-({x})*sin({a}) + ({z})*cos({a})"
    return f"({x})*cos({a}) - ({y})*sin({a})", f"({x})*sin({a}) + ({y})*cos({a})", z


def predict(comps: tuple, ops: list) -> tuple:
    for o in ops:
        if o["op"] == "roll":
            comps = _rot(comps, o["axis"], o["value"])
    return comps


def z_view(start_views: list):
    """The image number of the first start view that shows the front's depth (left, right, top, bottom)."""
    for k, name in enumerate(start_views, 1):
        if name != "front" and name in ("left", "right", "top", "bottom"):
            return k
    raise NoRationale("no start view shows depth")


def pick_atoms(front: View, others: list[View]) -> tuple[str, str, str]:
    """Three atoms citable in every image given, chosen by their pixels in the front image: P nearest
    the image centre, Q the farthest from P and S the farthest off the line PQ, both within
    ``vectors.radius`` × the image width of P (``core/data/reading.yaml``; twice, three times that, then
    any distance, where fewer atoms are citable)."""
    keys = [k for k in sorted(front.index) if front.citable(k) and all(o.citable(k) for o in others)]
    if len(keys) < 3:
        raise NoRationale("fewer than three atoms are citable in every image the derivation needs")
    uv = np.array([front.pixel(k) for k in keys], float)
    p = int(np.argmin(((uv - [front.width / 2, front.height / 2]) ** 2).sum(1)))
    d2 = ((uv - uv[p]) ** 2).sum(1)
    radius = float(reading_table()["vectors"]["radius"]) * front.width
    for r in (radius, 2 * radius, 3 * radius, np.inf):
        near = d2 <= r ** 2
        qi = int(np.argmax(np.where(near, d2, -1.0)))
        u = (uv[qi] - uv[p]) / max(np.linalg.norm(uv[qi] - uv[p]), 1e-9)
        off = uv - uv[p]
        perp = ((off - np.outer(off @ u, u)) ** 2).sum(1)
        si = int(np.argmax(np.where(near, perp, -1.0)))
        if len({p, qi, si}) == 3 and perp[si] > 1.0:
            return keys[p], keys[qi], keys[si]
    raise NoRationale("the citable atoms lie on one line")


def read_vectors(F: Facts, A: View, D: View, P, Q, S, tag="") -> dict:
    """PQ and PS in px at A's scale: x, y from A's offsets, z from D's (brought to A's size by the
    offsets D shares with A). Facts ``<tag>x1 … <tag>z2``; returns the quoted texts for the template."""
    if view_of(A) != "front":
        raise NoRationale("the vectors are read in the front view's frame")
    name = view_of(D)
    if name is None:
        raise NoRationale(f"image {D.k} is not a view that shows depth")
    zc, zs = depth_reading(D, "z")
    sc = "v" if zc == "u" else "u"                      # D's other axis: the front's x or y, shared with A
    shared = dict(zip("uv", image_axes(name)))[sc][0]
    ac = "u" if shared == "x" else "v"                 # the same axis in A
    out = {"zdir": "across" if zc == "u" else "down", "sdir": "across" if sc == "u" else "down", "zview": name,
           "adir": "across" if ac == "u" else "down"}
    for n, b in (("1", Q), ("2", S)):
        out[f"du{n}"] = F.offset(A, P, b, "u", f"{tag}du{n}")
        out[f"dv{n}"] = F.offset(A, P, b, "v", f"{tag}dv{n}")
        out[f"dz{n}"] = F.offset(D, P, b, zc, f"{tag}dz{n}")
        out[f"ds{n}"] = F.offset(D, P, b, sc, f"{tag}ds{n}")
        out[f"da{n}"] = out[f"d{ac}{n}"]
    den = abs(F.values[f"{tag}ds1"]) + abs(F.values[f"{tag}ds2"])
    if den < 10:
        raise NoRationale("the side view's shared offsets are too short to compare sizes")
    out["k"] = F.calc(f"{tag}k", f"(abs({tag}d{ac}1) + abs({tag}d{ac}2)) / (abs({tag}ds1) + abs({tag}ds2))", 2)
    for n in ("1", "2"):
        F.calc(f"{tag}x{n}", f"{tag}du{n}", 1)
        F.calc(f"{tag}y{n}", f"-{tag}dv{n}", 1)
        out[f"z{n}"] = F.calc(f"{tag}z{n}", f"{'-' if zs < 0 else ''}{tag}k * {tag}dz{n}", 1)
    return out


def observe(F: Facts, view: View, P, Q, S, tag: str) -> list[tuple]:
    """PQ and PS's pixel offsets (across, down) in ``view``; facts ``<tag>x1``, ``<tag>y1`` (y up) …"""
    out = []
    for n, b in (("1", Q), ("2", S)):
        du = F.offset(view, P, b, "u", f"{tag}du{n}")
        dv = F.offset(view, P, b, "v", f"{tag}dv{n}")
        F.calc(f"{tag}x{n}", f"{tag}du{n}", 1)
        F.calc(f"{tag}y{n}", f"-{tag}dv{n}", 1)
        out.append((du, dv))
    return out


def _terms(ops, src, obs) -> str:
    terms = []
    for n in ("1", "2"):
        px, py, _ = predict((f"{src}x{n}", f"{src}y{n}", f"{src}z{n}"), ops)
        terms += [f"(({px}) - {obs}x{n})**2", f"(({py}) - {obs}y{n})**2"]
    return f"sqrt(({' + '.join(terms)}) / 4)"


def fit_error(F: Facts, name: str, ops: list, src: str, obs: str) -> str:
    """RMS difference (px) between the predicted offsets of both vectors and the observed ones."""
    return F.calc(name, _terms(ops, src, obs), 1)


def fit_error_value(F: Facts, ops, src, obs) -> float:
    return evaluate(_terms(ops, src, obs), F.values)


def predicted(F: Facts, ops, src: str, tag: str) -> list[str]:
    """The predicted offsets (across, down) of both vectors after ``ops``, quoted: [du1, dv1, du2, dv2]."""
    out = []
    for n in ("1", "2"):
        px, py, _ = predict((f"{src}x{n}", f"{src}y{n}", f"{src}z{n}"), ops)
        out += [F.calc(f"{tag}du{n}", px, 1), F.calc(f"{tag}dv{n}", f"-({py})", 1)]
    return out


def fit_noise(F: Facts, src: str) -> float:
    """How far (px) a predicted offset may be off from reading errors: ``relative`` of the vectors'
    mean length plus ``pixels`` (``core/data/reading.yaml``)."""
    cfg = reading_table()["error"]
    lengths = [np.linalg.norm([F.values[f"{src}{c}{n}"] for c in "xyz"]) for n in ("1", "2")]
    return float(cfg["relative"]) * float(np.mean(lengths)) + float(cfg["pixels"])


def vectors_text(W, P, Q, S, A: View, D: View, vec: dict, section: str = "vectors") -> None:
    W.say(section, p=A.name(P), q=A.name(Q), s=A.name(S), ref=A.k, zimg=D.k, **vec)


__all__ = ["predict", "z_view", "pick_atoms", "read_vectors", "observe", "fit_error", "fit_error_value", "predicted",
           "fit_noise", "vectors_text", "ops_text"]
