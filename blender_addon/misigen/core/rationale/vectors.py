"""Rotations read from the images: two vectors between citable atoms, in 3D (x and y from the front
image, z from a side or top image), rotated by candidate programs and compared with what another
image shows (T2's one roll, the option grids of T5 and T6).
"""
from __future__ import annotations

import numpy as np

from ..op_grammar import format_number
from .evidence import Facts, View, evaluate
from .readings import NoRationale, ops_text


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
    """(image number, component, sign) where the front's z is read: left view x = z, top view y = −z."""
    if "left" in start_views:
        return start_views.index("left") + 1, "x", 1
    if "right" in start_views:
        return start_views.index("right") + 1, "x", -1
    if "top" in start_views:
        return start_views.index("top") + 1, "y", -1
    if "bottom" in start_views:
        return start_views.index("bottom") + 1, "y", 1
    raise NoRationale("no start view shows depth")


def pick_atoms(front: View, others: list[View]) -> tuple[str, str, str]:
    """Three atoms citable in every image given: P, the farthest Q, the S farthest off the line PQ."""
    keys = [k for k in sorted(front.index) if front.citable(k) and all(o.citable(k) for o in others)]
    if len(keys) < 3:
        raise NoRationale("fewer than three atoms are citable in every image the derivation needs")
    xyz = np.array([front.xyz(k) for k in keys])
    c = xyz.mean(axis=0)
    p = int(np.argmin(((xyz - c) ** 2).sum(1)))
    qi = int(np.argmax(((xyz - xyz[p]) ** 2).sum(1)))
    u = (xyz[qi] - xyz[p]) / max(np.linalg.norm(xyz[qi] - xyz[p]), 1e-9)
    off = xyz - xyz[p]
    perp = off - np.outer(off @ u, u)
    si = int(np.argmax((perp ** 2).sum(1)))
    return keys[p], keys[qi], keys[si]


def read_vectors(F: Facts, front: View, depth: View, zcomp: str, zsign: int, P, Q, S, tag="") -> list[tuple]:
    """Quote PQ and PS in 3D: x, y from the front image, z from the depth image."""
    out = []
    for n, b in (("1", Q), ("2", S)):
        x = F.comp(front, P, b, "x", f"{tag}x{n}")
        y = F.comp(front, P, b, "y", f"{tag}y{n}")
        raw = F.comp(depth, P, b, zcomp, f"{tag}r{n}")
        z = F.calc(f"{tag}z{n}", f"{'-' if zsign < 0 else ''}{tag}r{n}", 2)
        out.append((x, y, z, raw))
    return out


def observe(F: Facts, view: View, P, Q, S, tag: str) -> list[tuple]:
    return [(F.comp(view, P, b, "x", f"{tag}x{n}"), F.comp(view, P, b, "y", f"{tag}y{n}"))
            for n, b in (("1", Q), ("2", S))]


def fit_error(F: Facts, name: str, ops: list, src: str, obs: str) -> str:
    """RMS difference (Å) between the predicted in-plane components of both vectors and the observed."""
    terms = []
    for n in ("1", "2"):
        px, py, _ = predict((f"{src}x{n}", f"{src}y{n}", f"{src}z{n}"), ops)
        terms += [f"(({px}) - {obs}x{n})**2", f"(({py}) - {obs}y{n})**2"]
    return F.calc(name, f"sqrt(({' + '.join(terms)}) / 4)", 2)


def vectors_text(W, P, Q, S, front, vec, ref, zk):
    W.say("vectors", p=front.name(P), q=front.name(Q), s=front.name(S), ref=ref, zimg=zk,
          x1=vec[0][0], y1=vec[0][1], z1=vec[0][2], x2=vec[1][0], y2=vec[1][1], z2=vec[1][2])


def fit_error_value(F: Facts, ops, src, obs) -> float:
    terms = []
    for n in ("1", "2"):
        px, py, _ = predict((f"{src}x{n}", f"{src}y{n}", f"{src}z{n}"), ops)
        terms += [f"(({px}) - {obs}x{n})**2", f"(({py}) - {obs}y{n})**2"]
    return evaluate(f"sqrt(({' + '.join(terms)}) / 4)", F.values)


__all__ = ["predict", "z_view", "pick_atoms", "read_vectors", "observe", "fit_error", "fit_error_value", "vectors_text",
           "ops_text"]
