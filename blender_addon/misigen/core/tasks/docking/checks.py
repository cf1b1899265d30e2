"""How T7's answers are checked: re-derived on the sidecars (``validate``), scored (composite),
drawn at random (``baseline``), guessed blind (the audit's op majorities) and graded (difficulty)."""
from __future__ import annotations

import numpy as np

from ...quality import difficulty
from ...scene import geometry
from ...op_grammar import Op, format_ops, parse_ops
from ..baselines import grid, grid_step
from ..composite import closeness
from ..rederive import TOLERANCE
from .program import DockingProgram

ROLL_STEP = 15.0     # °: the roll step the difficulty's "one roll step further" assumes


def redock(rec: dict, sidecar) -> list[str]:
    """The answer, applied to the moved ligand of the last image about its own centre, re-docks it."""
    combined = sidecar(rec["images"][-1])
    lig_centre = DockingProgram.from_dict(rec["program"]).ligand_centre
    if combined is None or lig_centre is None or not combined.ligand.any():
        return [] if lig_centre is None else ["docking: the last image shows no ligand"]
    moved = combined.world[combined.ligand]
    m, _ = geometry.compose(parse_ops(rec["answer"]), moved.mean(axis=0))
    back = geometry.apply(m, moved).mean(axis=0)
    err = float(np.abs(back - np.asarray(lig_centre, float)).max())
    if err > TOLERANCE * 5:
        return [f"docking: {rec['answer']!r} leaves the ligand centre {err:.2f} Å from its bound place"]
    return []


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def composite(strict: str, truth: str, program: dict, exact: int) -> float:
    """Rotation half + translation half (found by verb, in either order). Rotation: 0 unless one roll
    about the right axis, else 0.5 × max(0, 1 − |â − a| / span), span = the width of ``roll_range``.
    Translation: 0 unless one move along the right axis with sign(d̂) = sign(d), else
    0.5 × max(0, 1 − |d̂ − d| / |d|)."""
    true = parse_ops(truth)
    t_roll = next(o for o in true if o.verb == "roll")
    t_move = next(o for o in true if o.verb == "move")
    pred = parse_ops(strict)
    rolls = [o for o in pred if o.verb == "roll"]
    moves = [o for o in pred if o.verb == "move"]
    roll_range = DockingProgram.from_dict(program).roll_range
    lo, hi = (-90.0, 90.0) if roll_range is None else roll_range
    score = 0.0
    if len(rolls) == 1 and rolls[0].axis == t_roll.axis:
        score += 0.5 * closeness(rolls[0].value, t_roll.value, float(hi) - float(lo))
    if len(moves) == 1 and moves[0].axis == t_move.axis and _sign(moves[0].value) == _sign(t_move.value) != 0:
        score += 0.5 * closeness(moves[0].value, t_move.value, abs(t_move.value))
    return score


def random_space(records):
    """A roll then a move, each on its grid (``roll_range``, ``move_range``)."""
    truths = [parse_ops(r["answer"]) for r in records]
    rolls = [o for t in truths for o in t if o.verb == "roll"]
    moves = [o for t in truths for o in t if o.verb == "move"]
    progs = [DockingProgram.from_dict(r.get("program")) for r in records]
    r_lo = min([p.roll_range[0] for p in progs if p.roll_range is not None] or [-90.0])
    r_hi = max([p.roll_range[1] for p in progs if p.roll_range is not None] or [90.0])
    m_lo = min([p.move_range[0] for p in progs if p.move_range is not None] or [min(o.value for o in moves)])
    m_hi = max([p.move_range[1] for p in progs if p.move_range is not None] or [max(o.value for o in moves)])
    roll_axes = sorted({o.axis for o in rolls})
    move_axes = sorted({o.axis for o in moves})
    roll_values = grid(r_lo, r_hi, grid_step([o.value for o in rolls] + [r_lo, r_hi]))
    move_values = grid(m_lo, m_hi, grid_step([o.value for o in moves]))
    return lambda rec, rng, atoms: format_ops([Op("roll", rng.choice(roll_axes), rng.choice(roll_values)),
                                               Op("move", rng.choice(move_axes), rng.choice(move_values))])


def difficulty_part(rec: dict, sidecars: dict) -> dict:
    """The answer's size, and the smaller pixel gap of one roll step or 1 Å more (ligand atoms)."""
    p = DockingProgram.from_dict(rec["program"])
    ops = p.ops
    comb = difficulty.images(rec, sidecars)[-1]
    lig = [i for i, a in enumerate(comb["atoms"]) if a["ligand"]]
    g_roll = difficulty.step_gap(comb, ops[0], ROLL_STEP, lig,
                                 difficulty.camera_xyz(comb, lig).mean(axis=0))
    g_move = difficulty.step_gap(comb, {"op": "move", "axis": "x"}, p.move_step or 1.0, lig)
    return {"magnitude": difficulty.rounded(sum(abs(float(o["value"])) for o in ops), 2),
            "option_gap_px": difficulty.rounded(min(g_roll, g_move), 2), "_answer_atoms": "ligand"}


def feature_space(program: dict, feat: str) -> int:
    """How many values an op feature can take (for the audit's chance)."""
    axes = DockingProgram.from_dict(program).roll_axes
    return {"roll axis": len("xyz" if axes is None else axes), "roll sign": 2, "move axis": 1,
            "move sign": 2}.get(feat, 0)
