"""T8's rationale: where the H-bond's centre is in the reference image (its two atoms' pixels, or, when
one is hidden there, a citable atom nearby and the pixel offsets to the H-bond's atoms read in the views
that show the front's x and y axes, each at its own scale), a nearby bond of standard length for the
pixel scale, and the moves that centre it, estimates rounded to the step.

The reader picks the option nearest its estimate: the reading margin is how far, in reading errors, the
estimate from the first reference bond is from the boundary with the nearest other option."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...op_grammar import format_number
from ...rationale.estimates import ambiguous, image_axes, midpoint, quote_error, reading_error, record, view_of
from ...rationale.evidence import Fact, Facts, View, fmt
from ...rationale.readings import NoRationale, scale_words, step_round, view_number
from ...rationale.scales import bond_scale, reference_bonds, say_scale, scale_near
from ..shared.hbond import bond_keys
from .program import LocationProgram


@dataclass
class _Centre:
    """The H-bond centre's offset from the image centre (px quoted as ``du``, ``dv``) and how to say it."""
    du: str
    dv: str
    near: tuple                      # the pixel where the offset was read (for the reference bond)
    hidden: bool                     # an H-bond atom is hidden in the reference view
    ax: str                          # the x move, from ``du`` and the bond scale (and the hidden offsets)
    by: str
    say: Callable                    # (W, width, height) → writes how the centre was found
    scales: list                     # the scales of the side readings (hidden case)


def _visible_centre(F: Facts, A: View, ref: int, pk: str, lk: str) -> _Centre:
    pu, pv = F.pixel(A, pk, "hp")
    lu, lv = F.pixel(A, lk, "hl")
    mu = F.calc("mu", "(hp_u + hl_u) / 2", 1)
    mv = F.calc("mv", "(hp_v + hl_v) / 2", 1)
    du = F.calc("du", "mu - width / 2", 1)
    dv = F.calc("dv", "mv - height / 2", 1)

    def say(W, w, h):
        W.say("atoms", ref=ref, p=A.name(pk), l=A.name(lk), pu=pu, pv=pv, lu=lu, lv=lv, mu=mu, mv=mv)
        W.say("offset", width=w, height=h, du=du, dv=dv)
    return _Centre(du, dv, midpoint(A, (pk, lk)), False, "-du / bond_scale", "dv / bond_scale", say, [])


def _axis_view(views: list[View], keys, axis: str):
    """The first canonical view citing ``keys`` whose u or v shows the front's ``axis``: (view, comp, sign)."""
    for v in views:
        name = view_of(v)
        if not name or not all(v.citable(k) for k in keys):
            continue
        for comp, (ax, sign) in zip("uv", image_axes(name)):
            if ax == axis:
                return v, comp, sign
    return None


def _linking_atom(views: list[View], A: View, pk: str, lk: str):
    """A citable atom near the H-bond (the nearest first) and, for each H-bond atom and each of the
    front's x and y axes, a view showing that axis with both atoms citable; None when there is none."""
    mid = (A.xyz(pk) + A.xyz(lk)) / 2
    cands = sorted((float(np.linalg.norm(A.xyz(k) - mid)), k) for k in A.index if k not in (pk, lk) and A.citable(k))
    others = [v for v in views if v is not A]
    for _, k in cands[:120]:
        got = [_axis_view(others, (k, x), axis) for x in (pk, lk) for axis in "xy"]
        if all(got):
            return k, got
    return None


def _hidden_centre(F: Facts, W, views: list[View], A: View, ref: int, pk: str, lk: str) -> _Centre:
    """An H-bond atom is hidden in the front view: its place is read from a nearby citable atom, through
    the pixel offsets to it in views that show the front's x axis (top, bottom, back) and y axis (left,
    right, back), each at its own px/Å scale there."""
    found = _linking_atom(views, A, pk, lk)
    if found is None:
        raise NoRationale("an H-bond atom is hidden in the reference view and no citable atom links it")
    seen, readings = found
    su, sv = F.pixel(A, seen, "hs")
    words, scales = [], []
    for (v, comp, sign), (x, axis, tag) in zip(readings, ((pk, "x", "x1"), (pk, "y", "y1"), (lk, "x", "x2"),
                                                          (lk, "y", "y2"))):
        off = F.offset(v, seen, x, comp, f"o{tag}")
        sc = scale_near(F, v, midpoint(v, (seen, x)), f"s{tag}")
        scales.append(sc)
        val = F.calc(f"v{tag}", f"{'-' if sign < 0 else ''}o{tag} / {sc.name}", 2, estimate=True)
        words.append(W.phrase("side", atom=A.name(x), axis=axis, img=v.k, view=view_of(v), off=off,
                              dir="across" if comp == "u" else "down", scale=say_scale(W, sc), value=val))
    vx = F.calc("vx", "(vx1 + vx2) / 2", 2, estimate=True)
    vy = F.calc("vy", "(vy1 + vy2) / 2", 2, estimate=True)
    du = F.calc("du", "hs_u - width / 2", 1)
    dv = F.calc("dv", "hs_v - height / 2", 1)

    def say(W, w, h):
        W.say("atoms_hidden", ref=ref, seen=A.name(seen), p=A.name(pk), l=A.name(lk), u=su, v=sv,
              readings="; ".join(words), vx=vx, vy=vy)
        W.say("offset_hidden", width=w, height=h, du=du, dv=dv, seen=A.name(seen))
    return _Centre(du, dv, (A.pixel(seen)[0], A.pixel(seen)[1]), True, "-(du / bond_scale + vx)",
                   "dv / bond_scale - vy", say, scales)


def _option_margin(F: Facts, p: LocationProgram, ax: float, by: float, err: float) -> None:
    """Reading errors between the estimate and the boundary with the nearest other option (negative:
    the estimate is nearer another option)."""
    moves = [{o["axis"]: float(o["value"]) for o in opt["ops"]} for opt in p.options]
    mine = next(m for m, opt in zip(moves, p.options) if opt["correct"])
    a = np.array([mine.get("x", 0.0), mine.get("y", 0.0)])
    e = np.array([ax, by])
    best = math.inf
    for m in moves:
        o = np.array([m.get("x", 0.0), m.get("y", 0.0)])
        gap = float(np.linalg.norm(o - a))
        if gap > 0:
            best = min(best, (float(np.sum((e - o) ** 2) - np.sum((e - a) ** 2)) / (2 * gap)))
    if math.isfinite(best):
        record(F, best / err)


def location(rec, V, F: Facts, W) -> None:
    p = LocationProgram.from_dict(rec["program"])
    if p.interaction != "hbond":
        raise NoRationale("rationales cover hydrogen bonds only")
    ref = view_number(rec, V, p.view)
    A = V[ref]
    views = [V[k] for k in range(1, len(rec["images"]) + 1)]
    pk, lk = bond_keys(p.hbond)
    w = F.add(Fact("camera", "width", A.width, 0, ref, comp="width"))
    h = F.add(Fact("camera", "height", A.height, 0, ref, comp="height"))
    if A.citable(pk) and A.citable(lk):
        centre = _visible_centre(F, A, ref, pk, lk)
    elif p.view == "front":
        centre = _hidden_centre(F, W, views, A, ref, pk, lk)
    else:
        raise NoRationale("the H-bond's atoms are not citable in the reference view")
    prec = float(1.0 if p.precision is None else p.precision)
    if p.precision is not None:
        F.given("precision", prec, "precision")
    want = {o["axis"]: float(o["value"]) for o in p.ops}
    for n, (a, b) in enumerate(reference_bonds(A, centre.near)[:60]):
        F2 = F.fork()
        scale = bond_scale(F2, A, a, b, "bond")
        ax = F2.calc("ax", centre.ax, 2, estimate=True)
        by = F2.calc("by", centre.by, 2, estimate=True)
        if n == 0:
            size = math.hypot(F2.values["ax"], F2.values["by"])
            _option_margin(F, p, F2.values["ax"], F2.values["by"], reading_error(F2, size, [scale] + centre.scales))
        va, vb = step_round(F2, "a", "ax", prec), step_round(F2, "b", "by", prec)
        if va is None or vb is None or (va, vb) != (want.get("x"), want.get("y")):
            continue
        F2.margins = F.margins
        F.adopt(F2)
        F.answer(rec["answer"])
        move = f"move x {format_number(va)}, move y {format_number(vb)}"
        centre.say(W, w, h)
        W.say("scale", **scale_words(A, a, b), length=scale.say["length"], px=scale.say["px"], scale=scale.text,
              ref=ref)
        hidden = centre.hidden
        W.say("move_hidden" if hidden else "move", ax=ax, by=by, precision=format_number(prec),
              a=format_number(va), b=format_number(vb), move=move, letter=rec["answer"], du=centre.du, dv=centre.dv,
              scale=scale.text, vx=fmt(F.values["vx"], 2) if hidden else "", vy=fmt(F.values["vy"], 2) if hidden else "")
        if ambiguous(F):
            F.calc("size", "sqrt(ax**2 + by**2)", 2, estimate=True)
            W.say("uncertain", err=quote_error(F, "size", [scale] + centre.scales))
        W.say("answer", answer=rec["answer"])
        return
    raise NoRationale("no bond near the H-bond gives a scale that rounds to the answer")

