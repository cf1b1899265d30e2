"""T7's rationale: the roll read off the ligand-alone views, and the move from where the moved
ligand's centre is in the combined view to where its site is."""
from __future__ import annotations

import numpy as np

from ...op_grammar import format_number
from ...rationale.evidence import Fact, Facts
from ...rationale.readings import NoRationale, ops_text, step_round
from .program import DockingProgram

MOVE_STEP = 1.0      # Å: the moves are whole Å (the spec's check)


def redock(rec, V, F: Facts, W) -> None:
    p = DockingProgram.from_dict(rec["program"])
    n = len(rec["images"])
    C = V[n]
    roll_op, move_op = p.ops[0], p.ops[1]
    x_now = F.comp(C, None, "", "x", "lig_x", ligand=True)
    w2c = np.asarray(C.car["camera"]["world_to_camera"], float)
    site = (w2c @ np.append(np.asarray(p.ligand_centre, float), 1.0))[0]
    x_site = F.add(Fact("site", "site_x", float(site), 2, n, comp="x"))
    est = F.calc("est", "site_x - lig_x", 2)
    value = step_round(F, "value", "est", MOVE_STEP)
    if value != float(move_op["value"]):
        raise NoRationale("the site offset does not round to the answer's move")
    F.answer(rec["answer"])
    side = "right" if F.values["lig_x"] > F.values["site_x"] else "left"
    W.say("turn", ligand_images=f"{n - 3}–{n - 1}", roll=ops_text([roll_op]))
    W.say("offset", img=n, x_now=x_now, x_site=x_site, side=side, est=est, value=format_number(value),
          move=ops_text([move_op]))
    W.say("answer", answer=rec["answer"])
