"""Wrong options for the multiple-choice tasks, built so that only the reasoning picks the answer.

Shortcut-free design ("product"): the four options are the full 2×2 product of two changes,
each an involution with a randomly drawn partner (sign: v ↔ −v; magnitude: |v| ↔ |v'| with the
sign kept; axis: a ↔ a'; for T8's moves: negate (a, b) ↔ (−a, −b) and swap (a, b) ↔ (b, a)).
The true program is one cell. Because each change pairs values symmetrically (the partner of
the partner is the original, drawn with the same probability), every option stands in the same
relation to the other three, and given the four options each is equally likely to be the
answer: guessers that compare options with each other (odd one out, most central, shared
values, median, smallest move) stay at chance.

MiSI-Bench's own schemes (``paper``) stay available: T5/T6 ``magnitude_both``,
``flip_first``, ``axis_first``; T8 sign and magnitude perturbations of the true move.
"""
from __future__ import annotations

import numpy as np

from ..op_grammar import Op
from .common import range_values

SCHEMES = ("magnitude_both", "flip_first", "axis_first")
CHANGES = ("sign", "magnitude", "axis")
MOVE_CHANGES = ("negate", "swap", "flip_x", "flip_y")


# ------------------------------------------------------------------ T5 / T6 programs
def step_ops(step: dict) -> list[Op]:
    return [Op(step["verb"], ax, v) for ax in step["axes"] for v in range_values(step["values"])]


def candidate_programs(d: dict) -> list[tuple]:
    s1, s2 = d["steps"]
    return [(a, b) for a in step_ops(s1) for b in step_ops(s2)
            if not (d["distinct_axes"] and a.axis == b.axis)]


def partners(op: Op, change: str, step: dict) -> list[Op]:
    """Every value the change may pair ``op`` with (each pairing is symmetric)."""
    vals = range_values(step["values"])
    if change == "sign":
        return [Op(op.verb, op.axis, -op.value)] if -op.value in vals else []
    if change == "magnitude":
        return [Op(op.verb, op.axis, v) for v in vals if (v > 0) == (op.value > 0) and abs(v) != abs(op.value)]
    if change == "axis":
        return [Op(op.verb, ax, op.value) for ax in step["axes"] if ax != op.axis]
    raise ValueError(change)


def change_map(change: str, partner: Op):
    """The change as a map on any op of its step, given the partner drawn for the true op: a sign
    flip, a magnitude (sign kept) or an axis. Such maps commute, also on the same step."""
    if change == "sign":
        return lambda op: Op(op.verb, op.axis, -op.value)
    if change == "magnitude":
        return lambda op: Op(op.verb, op.axis, abs(partner.value) if op.value > 0 else -abs(partner.value))
    return lambda op: Op(op.verb, partner.axis, op.value)


def product_grids(prog: tuple, changes: list[dict], d: dict, rng: np.random.Generator):
    """Candidate 2×2 option grids for the true program, in random order: lists of four programs
    [true, change-1 only, change-2 only, both], every one a valid, distinct candidate."""
    valid = set(candidate_programs(d))
    c1, c2 = changes
    p1 = partners(prog[c1["step"]], c1["change"], d["steps"][c1["step"]])
    p2 = partners(prog[c2["step"]], c2["change"], d["steps"][c2["step"]])
    pairs = [(a, b) for a in p1 for b in p2]
    for k in rng.permutation(len(pairs)):
        a, b = pairs[int(k)]
        f1, f2 = change_map(c1["change"], a), change_map(c2["change"], b)
        one = _with(prog, c1["step"], f1(prog[c1["step"]]))
        two = _with(prog, c2["step"], f2(prog[c2["step"]]))
        both = _with(one, c2["step"], f2(one[c2["step"]]))
        grid = [prog, one, two, both]
        if all(g in valid for g in grid) and len(set(grid)) == 4:
            yield grid


def _with(prog: tuple, step: int, op: Op) -> tuple:
    out = list(prog)
    out[step] = op
    return tuple(out)


def _other_magnitudes(op: Op, step: dict) -> list[Op]:
    return [Op(op.verb, op.axis, v) for v in range_values(step["values"])
            if (v > 0) == (op.value > 0) and abs(v) != abs(op.value)]


def scheme_distractors(scheme: str, prog: tuple, d: dict) -> list[tuple]:
    """MiSI-Bench's schemes: every distractor program the scheme allows (deterministic order)."""
    (o1, o2), (s1, s2) = prog, d["steps"]
    vals1 = range_values(s1["values"])
    if scheme == "magnitude_both":
        firsts = _other_magnitudes(o1, s1)
    elif scheme == "flip_first":
        firsts = [Op(o1.verb, o1.axis, -o1.value)] if -o1.value in vals1 else []
    elif scheme == "axis_first":
        firsts = [Op(o1.verb, ax, o1.value) for ax in s1["axes"] if ax != o1.axis]
    else:
        raise ValueError(scheme)
    out = [(a, b) for a in firsts for b in _other_magnitudes(o2, s2)
           if not (d["distinct_axes"] and a.axis == b.axis)]
    return [p for p in out if p != prog]


# ------------------------------------------------------------------ T8 moves
def move_change(change: str, ab: tuple) -> tuple:
    a, b = ab
    return {"negate": (-a, -b), "swap": (b, a), "flip_x": (-a, b), "flip_y": (a, -b)}[change]


def changes_commute(c1: str, c2: str) -> bool:
    """The 2×2 product is a group (every option in the same relation) only if the changes commute."""
    p = (3.0, 7.0)
    return c1 != c2 and move_change(c1, move_change(c2, p)) == move_change(c2, move_change(c1, p))


def move_grid(ab: tuple, changes: list[str]) -> list[tuple]:
    """[true, change-1, change-2, both] for a move (a, b)."""
    one = move_change(changes[0], ab)
    return [ab, one, move_change(changes[1], ab), move_change(changes[1], one)]


def paper_move_distractors(a: float, b: float, dd: dict, rng: np.random.Generator, round_to) -> list[tuple]:
    """MiSI-Bench's T8 decoys: sign and magnitude perturbations of the true move (a, b)."""
    cands = []
    if dd["sign_flips"]:
        cands += [(-a, b), (a, -b), (-a, -b)]
    for s in dd["scales"]:
        cands += [(a * s, b), (a, b * s)]
    for s in dd["scales"]:
        for t in dd["scales"]:
            cands.append((a * s, b * t))
    for o in dd["offsets"]:
        cands += [(a + o, b), (a - o, b), (a, b + o), (a, b - o)]
    cands = [(round_to(x), round_to(y)) for x, y in cands]
    return [cands[int(k)] for k in rng.permutation(len(cands))]
