"""T3's rationale: the depth of a bond from its pixel length (perspective focal length), and the
depth after the move from how far one of its atoms moved off the image centre."""
from __future__ import annotations

from ...op_grammar import format_number
from ...rationale.evidence import Fact, Facts, fmt
from ...rationale.readings import NoRationale, ordered_bonds, scale_from_bond, step_round
from ..shared.cloze import one_move


def move_z(rec, V, F: Facts, W) -> None:
    op, ref, after, A, B, step = one_move(rec, V)
    if not A.perspective:
        raise NoRationale("move z needs a perspective camera")
    for a, b in ordered_bonds(A, [B]):
        F2 = Facts()
        w = F2.add(Fact("camera", "width", A.width, 0, ref, comp="width"))
        h = F2.add(Fact("camera", "height", A.height, 0, ref, comp="height"))
        fov = F2.add(Fact("camera", "fov", A.fov, 0, ref, comp="fov"))
        f = F2.calc("f", "width / 2 / tan(fov / 2)", 1)
        L, px1, _ = scale_from_bond(F2, A, a, b, "s")
        z1 = F2.calc("z1", "f * s_len / s_px", 1)
        u2, v2 = F2.pixel(B, a, "t")
        r1 = F2.calc("r1", "sqrt((sa_u - width / 2)**2 + (sa_v - height / 2)**2)", 1)
        r2 = F2.calc("r2", "sqrt((t_u - width / 2)**2 + (t_v - height / 2)**2)", 1)
        if F2.values["r1"] < 30 or F2.values["s_px"] < 8:
            continue
        z2 = F2.calc("z2", "z1 * r1 / r2", 1)
        est = F2.calc("est", "z1 - z2", 1)
        value = step_round(F2, "value", "est", step)
        if value != float(op["value"]):
            continue
        F.items, F.values = F2.items, F2.values
        F.answer(rec["answer"])
        W.say("same_camera", ref=ref, after=after)
        W.say("focal", width=w, fov=fov, f=f)
        W.say("bond", bond=f"{A.name(a)} – {A.name(b)}", length=L, ref=ref, px1=px1, f=f, z1=z1)
        W.say("radial", atom=A.name(a), ref=ref, after=after, u1=fmt(F2.values["sa_u"], 1),
              v1=fmt(F2.values["sa_v"], 1), u2=u2, v2=v2, width=w, height=h, r1=r1, r2=r2, z1=z1, z2=z2)
        W.say("value", z1=z1, z2=z2, est=est, value=format_number(value), step=format_number(step))
        W.say("answer", answer=rec["answer"])
        return
    raise NoRationale("no bond citable in both images whose size change gives the answer")

