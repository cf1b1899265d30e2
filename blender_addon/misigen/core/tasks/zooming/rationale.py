"""T3's rationale: the distance of a bond from the camera from its pixel length (the prompt's field of
view gives the focal length, the bond's standard length its size), and the distance after the move
from how far one of its atoms moved off the image centre: estimates, rounded to the command's step.

Bonds are tried least foreshortened-looking first; the reading margin is the first one's."""
from __future__ import annotations

from ...op_grammar import format_number
from ...rationale.estimates import ambiguous, margin_rounding, quote_error, reading_error
from ...rationale.evidence import Fact, Facts, fmt
from ...rationale.readings import NoRationale, ordered_bonds, scale_words, step_round
from ...rationale.scales import bond_scale
from ..shared.cloze import one_move


def _read(F: Facts, A, B, ref: int, a: str, b: str, step: float):
    w = F.add(Fact("camera", "width", A.width, 0, ref, comp="width"))
    h = F.add(Fact("camera", "height", A.height, 0, ref, comp="height"))
    fov = F.add(Fact("camera", "fov", A.fov, 0, ref, comp="fov"))
    f = F.calc("f", "width / 2 / tan(fov / 2)", 1)
    F.pixel(A, a, "sa")
    scale = bond_scale(F, A, a, b, "s")
    z1 = F.calc("z1", "f * s_len / s_px", 1, estimate=True)
    u2, v2 = F.pixel(B, a, "t")
    r1 = F.calc("r1", "sqrt((sa_u - width / 2)**2 + (sa_v - height / 2)**2)", 1)
    r2 = F.calc("r2", "sqrt((t_u - width / 2)**2 + (t_v - height / 2)**2)", 1)
    if F.values["r1"] < 30:
        return None
    z2 = F.calc("z2", "z1 * r1 / r2", 1, estimate=True)
    est = F.calc("est", "z1 - z2", 1, estimate=True)
    return dict(width=w, height=h, fov=fov, f=f, z1=z1, z2=z2, u2=u2, v2=v2, r1=r1, r2=r2, est=est), scale, \
        step_round(F, "value", "est", step)


def move_z(rec, V, F: Facts, W) -> None:
    op, ref, after, A, B, step = one_move(rec, V)
    if not A.perspective:
        raise NoRationale("move z needs a perspective camera")
    if rec["program"].get("value_step") is not None:
        F.given("step", step, "value_step")
    first = True
    for a, b in ordered_bonds(A, [B]):
        F2 = F.fork()
        got = _read(F2, A, B, ref, a, b, step)
        if got is None:
            continue
        t, scale, value = got
        if first:
            margin_rounding(F, F2.values["est"], float(op["value"]), step, reading_error(F2, F2.values["est"], [scale]))
            first = False
        if value != float(op["value"]):
            continue
        F2.margins = F.margins
        F.adopt(F2)
        F.answer(rec["answer"])
        W.say("same_camera", ref=ref, after=after)
        W.say("focal", width=t["width"], fov=t["fov"], f=t["f"])
        W.say("bond", **scale_words(A, a, b), length=scale.say["length"], ref=ref, px1=scale.say["px"], f=t["f"],
              z1=t["z1"])
        W.say("radial", atom=A.name(a), ref=ref, after=after, u1=fmt(F.values["sa_u"], 1), v1=fmt(F.values["sa_v"], 1),
              u2=t["u2"], v2=t["v2"], width=t["width"], height=t["height"], r1=t["r1"], r2=t["r2"], z1=t["z1"],
              z2=t["z2"])
        W.say("value", z1=t["z1"], z2=t["z2"], est=t["est"], value=format_number(value), step=format_number(step))
        if ambiguous(F):
            W.say("uncertain", err=quote_error(F, "est", [scale]))
        W.say("answer", answer=rec["answer"])
        return
    raise NoRationale("no bond citable in both images whose size change gives the answer")
