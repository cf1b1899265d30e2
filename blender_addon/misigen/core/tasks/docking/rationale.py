"""T7's rationale: the roll, stated (no image shows the ligand in its pose, so it is read from how the
ligand's shape fits the cavity, not measured), and the move from where the moved ligand's centre is in
the combined view (the mean pixel position of its drawn atoms) to the ring that marks where its centre
sat, in Å at the ring's own scale (its radius is stated in Å), an estimate rounded to whole Å. The ring lies
at the ligand's own depth (the move is along x only), so its scale holds for the whole move."""
from __future__ import annotations

from ...op_grammar import format_number
from ...rationale.estimates import ambiguous, margin_rounding, quote_error, reading_error
from ...rationale.evidence import Facts
from ...rationale.readings import NoRationale, ops_text, step_round
from ...rationale.scales import ring_scale, say_scale
from .program import DockingProgram

MOVE_STEP = 1.0      # Å: the moves are whole Å (the spec's check)


def redock(rec, V, F: Facts, W) -> None:
    p = DockingProgram.from_dict(rec["program"])
    n = len(rec["images"])
    C = V[n]
    roll_op, move_op = p.ops[0], p.ops[1]
    lig = F.centre(C, "ligand", "u", "lig_u")
    site = F.marker(C, "u", "site_u")
    F.marker(C, "v", "site_v")
    du = F.calc("du", "site_u - lig_u", 1)
    scale = ring_scale(F, C, "s")
    est = F.calc("est", f"du / {scale.name}", 1, estimate=True)
    margin_rounding(F, F.values["est"], float(move_op["value"]), MOVE_STEP,
                    reading_error(F, F.values["est"], [scale]))
    value = step_round(F, "value", "est", MOVE_STEP)
    if value != float(move_op["value"]):
        raise NoRationale("the ring's offset does not round to the answer's move")
    F.answer(rec["answer"])
    side = "right" if F.values["lig_u"] > F.values["site_u"] else "left"
    W.say("turn", ligand_images=f"{n - 3}–{n - 1}", roll=ops_text([roll_op]))
    W.say("offset", img=n, lig=lig, site=site, side=side, du=du, scale=say_scale(W, scale), est=est,
          value=format_number(value), move=ops_text([move_op]))
    if ambiguous(F):
        W.say("uncertain", err=quote_error(F, "est", [scale]))
    W.say("answer", answer=rec["answer"])
