"""T1's rationale: one atom tracked from the reference image to the after-image, and a bond of standard
length for the pixel scale: the shift in Å, an estimate, rounded to the command's step.

Bonds are tried least foreshortened-looking first; the first is the one a reader would take, so the
reading margin is that bond's (the rationale may use a later one whose reading gives the answer)."""
from __future__ import annotations

from ...op_grammar import format_number
from ...rationale.estimates import ambiguous, margin_rounding, quote_error, reading_error
from ...rationale.evidence import Facts
from ...rationale.readings import NoRationale, ordered_bonds, scale_words, step_round
from ...rationale.scales import bond_scale
from ..shared.cloze import one_move


def _read(F: Facts, A, B, a: str, b: str, step: float):
    """The shift of atom a at the scale of bond a–b: (texts, axis, rounded value or None, scale)."""
    ua, va = F.pixel(A, a, "s")
    ub, vb = F.pixel(B, a, "t")
    du = F.calc("du", "t_u - s_u", 1)
    dv = F.calc("dv", "t_v - s_v", 1)
    scale = bond_scale(F, A, a, b, "bond")
    axis = "x" if abs(F.values["du"]) >= abs(F.values["dv"]) else "y"
    est = F.calc("est", "du / bond_scale" if axis == "x" else "-dv / bond_scale", 2, estimate=True)
    return (ua, va, ub, vb, du, dv, est), axis, step_round(F, "value", "est", step), scale


def move_xy(rec, V, F: Facts, W) -> None:
    op, ref, after, A, B, step = one_move(rec, V)
    for n, (a, b) in enumerate(ordered_bonds(A, [B])):
        F2 = F.fork()
        if rec["program"].get("value_step") is not None:
            F2.given("step", step, "value_step")
        (ua, va, ub, vb, du, dv, est), axis, value, scale = _read(F2, A, B, a, b, step)
        if n == 0:
            err = reading_error(F2, F2.values["est"], [scale])
            if axis == op["axis"]:
                margin_rounding(F, F2.values["est"], float(op["value"]), step, err)
            else:
                F.margins.append(-1.0)          # the reader's first reading points along the other axis
        if value is None or axis != op["axis"] or value != float(op["value"]):
            continue
        F2.margins = F.margins
        F.adopt(F2)
        F.answer(rec["answer"])
        W.say("same_camera", ref=ref, after=after)
        W.say("track", atom=A.name(a), ref=ref, after=after, u1=ua, v1=va, u2=ub, v2=vb, du=du, dv=dv)
        W.say("axis", axis=axis, direction="horizontal" if axis == "x" else "vertical",
              sign=("to the right" if value > 0 else "to the left") if axis == "x" else
              ("upward" if value > 0 else "downward"))
        W.say("scale", **scale_words(A, a, b), length=scale.say["length"], px=scale.say["px"], scale=scale.text,
              ref=ref)
        W.say("value", shift=du if axis == "x" else dv, scale=scale.text, est=est, step=format_number(step),
              value=format_number(value), sign_rule="x points right" if axis == "x" else "y points up, pixel rows down")
        if ambiguous(F):
            W.say("uncertain", err=quote_error(F, "est", [scale]))
        W.say("answer", answer=rec["answer"])
        return
    raise NoRationale("no bond citable in both images whose shift and scale give the answer")
