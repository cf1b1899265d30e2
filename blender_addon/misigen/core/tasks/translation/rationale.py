"""T1's rationale: one atom tracked from the reference image to the after-image, and a bond of known
length for the pixel scale: the shift in Å, rounded to the command's step."""
from __future__ import annotations

from ...op_grammar import format_number
from ...rationale.evidence import Facts
from ...rationale.readings import NoRationale, ordered_bonds, scale_from_bond, step_round
from ..shared.cloze import one_move


def move_xy(rec, V, F: Facts, W) -> None:
    op, ref, after, A, B, step = one_move(rec, V)
    for a, b in ordered_bonds(A, [B]):
        F2 = Facts()
        ua, va = F2.pixel(A, a, "s")
        ub, vb = F2.pixel(B, a, "t")
        du = F2.calc("du", "t_u - s_u", 1)
        dv = F2.calc("dv", "t_v - s_v", 1)
        L, px, sc = scale_from_bond(F2, A, a, b, "bond")
        axis = "x" if abs(F2.values["du"]) >= abs(F2.values["dv"]) else "y"
        est = F2.calc("est", "du / bond_scale" if axis == "x" else "-dv / bond_scale", 2)
        value = step_round(F2, "value", "est", step)
        if value is None or axis != op["axis"] or value != float(op["value"]) or F2.values["bond_px"] < 8:
            continue
        F.items, F.values = F2.items, F2.values
        F.answer(rec["answer"])
        W.say("same_camera", ref=ref, after=after)
        W.say("track", atom=A.name(a), ref=ref, after=after, u1=ua, v1=va, u2=ub, v2=vb, du=du, dv=dv)
        W.say("axis", axis=axis, direction="horizontal" if axis == "x" else "vertical",
              sign=("to the right" if value > 0 else "to the left") if axis == "x" else
              ("upward" if value > 0 else "downward"))
        W.say("scale", bond=f"{A.name(a)} – {A.name(b)}", length=L, px=px, scale=sc, ref=ref)
        W.say("value", shift=du if axis == "x" else dv, scale=sc, est=est, step=format_number(step),
              value=format_number(value), sign_rule="x points right" if axis == "x" else "y points up, pixel rows down")
        W.say("answer", answer=rec["answer"])
        return
    raise NoRationale("no bond citable in both images whose shift and scale give the answer")

