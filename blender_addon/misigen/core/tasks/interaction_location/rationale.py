"""T8's rationale: where the H-bond's centre is in the reference image (its two atoms' pixels, or,
when one is hidden there, a citable atom nearby and the offsets read in the views sharing the front's
axes), a bond near its depth for the pixel scale, and the moves that centre it rounded to the step."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...op_grammar import format_number
from ...rationale.evidence import Fact, Facts, View, fmt
from ...rationale.readings import NoRationale, ordered_bonds, scale_from_bond, step_round, view_number
from ..shared.hbond import bond_keys
from .program import LocationProgram

# views sharing the front's x axis, and its y axis (sign −1: mirrored)
X_VIEWS, Y_VIEWS = (("top", 1), ("bottom", 1), ("back", -1)), (("left", 1), ("right", 1), ("back", 1))


@dataclass
class _Centre:
    """The H-bond centre's offset from the image centre (px quoted as ``du``, ``dv``) and how to say it."""
    du: str
    dv: str
    depth: float                     # camera-frame depth of the point the offset was read at
    hidden: bool                     # an H-bond atom is hidden in the reference view
    ax: str                          # the x move, from ``du`` and the bond scale (and the hidden offsets)
    by: str
    say: Callable                    # (W, width, height) → writes how the centre was found


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
    return _Centre(du, dv, (A.xyz(pk)[2] + A.xyz(lk)[2]) / 2, False, "-du / bond_scale", "dv / bond_scale", say)


def _linking_atom(rec, V, A: View, pk: str, lk: str):
    """A citable atom near the H-bond, and for each H-bond atom the images (and signs) that show its
    offset from it along the front's x and y axes with both atoms citable; None when there is none."""
    def sharing(names, keys):
        for name, sign in names:
            k = view_number(rec, V, name, True)
            if k and all(V[k].citable(x) for x in keys):
                return k, sign
        return None
    mid = (A.xyz(pk) + A.xyz(lk)) / 2
    cands = sorted((float(np.linalg.norm(A.xyz(k) - mid)), k) for k in A.index
                   if k not in (pk, lk) and A.citable(k))
    for _, k in cands[:120]:
        got = [sharing(X_VIEWS, (pk, k)), sharing(Y_VIEWS, (pk, k)), sharing(X_VIEWS, (lk, k)),
               sharing(Y_VIEWS, (lk, k))]
        if all(got):
            return k, got
    return None


def _hidden_centre(F: Facts, rec, V, A: View, ref: int, pk: str, lk: str) -> _Centre:
    """An H-bond atom is hidden in the front view: its place is read from a nearby atom that is citable,
    through views that share the front's x axis (top, bottom) and y axis (left, right, back)."""
    found = _linking_atom(rec, V, A, pk, lk)
    if found is None:
        raise NoRationale("an H-bond atom is hidden in the reference view and no citable atom links it")
    seen, ((xi1, xs1), (yi1, _), (xi2, xs2), (yi2, _)) = found
    su, sv = F.pixel(A, seen, "hs")
    F.comp(V[xi1], seen, pk, "x", "rx1")
    F.comp(V[xi2], seen, lk, "x", "rx2")
    vx1 = F.calc("vx1", "rx1" if xs1 > 0 else "-rx1", 2)
    vx2 = F.calc("vx2", "rx2" if xs2 > 0 else "-rx2", 2)
    vy1, vy2 = F.comp(V[yi1], seen, pk, "y", "vy1"), F.comp(V[yi2], seen, lk, "y", "vy2")

    def where(k, sign):
        return f"image {k}" + (", mirrored" if sign < 0 else "")
    vx = F.calc("vx", "(vx1 + vx2) / 2", 2)
    vy = F.calc("vy", "(vy1 + vy2) / 2", 2)
    du = F.calc("du", "hs_u - width / 2", 1)
    dv = F.calc("dv", "hs_v - height / 2", 1)

    def say(W, w, h):
        W.say("atoms_hidden", ref=ref, seen=A.name(seen), p=A.name(pk), l=A.name(lk), u=su, v=sv,
              vx1=vx1, vx2=vx2, vy1=vy1, vy2=vy2, vx=vx, vy=vy, x1img=where(xi1, xs1), y1img=where(yi1, 1),
              x2img=where(xi2, xs2), y2img=where(yi2, 1))
        W.say("offset_hidden", width=w, height=h, du=du, dv=dv, seen=A.name(seen))
    return _Centre(du, dv, A.xyz(seen)[2], True, "-(du / bond_scale + vx)", "dv / bond_scale - vy", say)


def location(rec, V, F: Facts, W) -> None:
    p = LocationProgram.from_dict(rec["program"])
    if p.interaction != "hbond":
        raise NoRationale("rationales cover hydrogen bonds only")
    ref = view_number(rec, V, p.view)
    A = V[ref]
    pk, lk = bond_keys(p.hbond)
    w = F.add(Fact("camera", "width", A.width, 0, ref, comp="width"))
    h = F.add(Fact("camera", "height", A.height, 0, ref, comp="height"))
    if A.citable(pk) and A.citable(lk):
        centre = _visible_centre(F, A, ref, pk, lk)
    elif p.view == "front":
        centre = _hidden_centre(F, rec, V, A, ref, pk, lk)
    else:
        raise NoRationale("the H-bond's atoms are not citable in the reference view")
    prec = float(1.0 if p.precision is None else p.precision)
    want = {o["axis"]: float(o["value"]) for o in p.ops}
    bonds = ordered_bonds(A)
    bonds.sort(key=lambda t: (round(abs((A.xyz(t[0])[2] + A.xyz(t[1])[2]) / 2 - centre.depth), 1), t))
    for a, b in bonds[:60]:
        F2 = Facts()
        F2.items, F2.values = list(F.items), dict(F.values)
        L, px, sc = scale_from_bond(F2, A, a, b, "bond")
        if F2.values["bond_px"] < 8:
            continue
        ax = F2.calc("ax", centre.ax, 2)
        by = F2.calc("by", centre.by, 2)
        va, vb = step_round(F2, "a", "ax", prec), step_round(F2, "b", "by", prec)
        if va is None or vb is None or (va, vb) != (want.get("x"), want.get("y")):
            continue
        F.items, F.values = F2.items, F2.values
        F.answer(rec["answer"])
        move = f"move x {format_number(va)}, move y {format_number(vb)}"
        centre.say(W, w, h)
        W.say("scale", bond=f"{A.name(a)} – {A.name(b)}", length=L, px=px, scale=sc, ref=ref)
        hidden = centre.hidden
        W.say("move_hidden" if hidden else "move", ax=ax, by=by, precision=format_number(prec),
              a=format_number(va), b=format_number(vb), move=move, letter=rec["answer"], du=centre.du, dv=centre.dv,
              scale=sc, vx=fmt(F.values["vx"], 2) if hidden else "", vy=fmt(F.values["vy"], 2) if hidden else "")
        W.say("answer", answer=rec["answer"])
        return
    raise NoRationale("no bond near the H-bond's depth gives a scale that rounds to the answer")
