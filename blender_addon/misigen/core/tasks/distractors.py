"""Wrong options for the multiple-choice tasks, built so that only the WHOLE reasoning picks the answer.

Shortcut-free design ("product"): the four options are the full 2×2 product of two changes that
act on DIFFERENT steps of the true program (T5: the translation × the rotation; T6: the first
roll × the second; T8: the x move × the y move). Knowing one step exactly still leaves two
options, so every step is needed (``core/quality/necessity.py`` measures it). Which change a factor makes
is drawn at random per question among the spec's kinds (sign: v ↔ −v; magnitude: |v| ↔ |v'| with
the sign kept; axis: a ↔ a'). Each change pairs values symmetrically (the partner of the partner
is the original, drawn with the same probability), so every option stands in the same relation
to the other three and, given the four options, each is equally likely to be the answer:
guessers that compare options with each other (odd one out, most central, shared values,
median, smallest move) stay at chance.

T8's true move comes from the geometry, not from a uniform grid, so a magnitude partner
``|v| ± Δ`` is accepted with probability min(1, w(|v'|) / w(|v|)) (Metropolis–Hastings) under a
prior ``w`` of true magnitudes measured on real complexes; otherwise the factor falls back to a
sign flip. Then P(truth) × P(partner | truth) is symmetric in the pair, and the smaller and the
larger of two magnitudes are equally likely to be the answer.

MiSI-Bench's own schemes (``paper``) stay available: T5/T6 ``magnitude_both``,
``flip_first``, ``axis_first``; T8 sign and magnitude perturbations of the true move.
"""
from __future__ import annotations

import numpy as np

from ..op_grammar import Op
from .common import range_values

SCHEMES = ("magnitude_both", "flip_first", "axis_first")
CHANGES = ("sign", "magnitude", "axis")


# ------------------------------------------------------------------ T5 / T6 programs
def step_ops(step: dict) -> list[Op]:
    return [Op(step["verb"], ax, v) for ax in step["axes"] for v in range_values(step["values"])]


def candidate_programs(d: dict) -> list[tuple]:
    s1, s2 = d["steps"]
    return [(a, b) for a in step_ops(s1) for b in step_ops(s2)
            if not (d["distinct_axes"] and a.axis == b.axis)]


def partners(op: Op, change: str, step: dict, near: int | None = None) -> list[Op]:
    """Every value the change may pair ``op`` with (each pairing is symmetric). ``near`` (0 or 1,
    drawn per question whatever the answer): the magnitude partner is the neighbouring magnitude
    in the pairing of neighbours that starts at that offset ((m0, m1), (m2, m3), … or (m1, m2), …);
    a magnitude that pairing leaves out has none. Either pairing is its own inverse, so an option
    set says nothing about which of its two magnitudes is the answer."""
    vals = range_values(step["values"])
    if change == "sign":
        return [Op(op.verb, op.axis, -op.value)] if -op.value in vals else []
    if change == "magnitude" and near is not None:
        mags = sorted({abs(v) for v in vals if (v > 0) == (op.value > 0)})
        k = mags.index(abs(op.value)) - near
        mate = k + 1 if k % 2 == 0 else k - 1
        if k < 0 or not 0 <= mate + near < len(mags):
            return []
        m = mags[mate + near]
        return [Op(op.verb, op.axis, m if op.value > 0 else -m)]
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


def product_grids(prog: tuple, factors: list[dict], d: dict, rng: np.random.Generator, near: bool = False):
    """Candidate 2×2 option grids for the true program, in random order: pairs (grid, kinds) with
    grid = [true, factor-1 only, factor-2 only, both] (every one a valid, distinct candidate) and
    kinds = the change each factor made. A factor is {step, changes: [kind, …]}: the kinds are
    tried in an order drawn per question, each with its partners in random order. ``near``
    (``decoys: near``): magnitude partners are neighbouring magnitudes (``partners``), the
    pairing's offset drawn per factor, and kinds with more magnitude changes are tried first (the
    order never depends on the answer)."""
    valid = set(candidate_programs(d))
    f1, f2 = factors
    kinds = [(k1, k2) for k1 in f1["changes"] for k2 in f2["changes"] if (f1["step"], k1) != (f2["step"], k2)]
    offsets = (int(rng.integers(2)), int(rng.integers(2))) if near else (None, None)
    order = rng.permutation(len(kinds))
    if near:
        order = sorted(order, key=lambda k: -list(kinds[int(k)]).count("magnitude"))
    for ki in order:
        c1, c2 = kinds[int(ki)]
        p1 = partners(prog[f1["step"]], c1, d["steps"][f1["step"]], offsets[0])
        p2 = partners(prog[f2["step"]], c2, d["steps"][f2["step"]], offsets[1])
        pairs = [(a, b) for a in p1 for b in p2]
        for k in rng.permutation(len(pairs)):
            a, b = pairs[int(k)]
            m1, m2 = change_map(c1, a), change_map(c2, b)
            one = _with(prog, f1["step"], m1(prog[f1["step"]]))
            two = _with(prog, f2["step"], m2(prog[f2["step"]]))
            both = _with(one, f2["step"], m2(one[f2["step"]]))
            grid = [prog, one, two, both]
            if all(g in valid for g in grid) and len(set(grid)) == 4:
                yield grid, (c1, c2)


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
def prior_weight(table: list, m: float) -> float:
    """The prior weight of a true magnitude ``m`` (Å): linear between the table's [Å, weight]
    points, constant beyond its ends."""
    xs, ws = zip(*sorted((float(x), float(w)) for x, w in table))
    return float(np.interp(m, xs, ws))


def move_partner(v: float, product: dict, precision: float, rng: np.random.Generator, round_to) -> tuple:
    """(kind, partner) for one true move component ``v`` (≠ 0). With probability ``try_magnitude``
    a magnitude partner sign(v)·(|v| ± Δ), Δ from ``magnitude_steps``, is proposed and accepted by
    the Metropolis–Hastings rule under ``magnitude_prior`` (see the module docstring); a refused or
    impossible one (|v| − Δ below the precision) falls back to the sign flip −v."""
    if rng.random() < float(product["try_magnitude"]):
        steps = product["magnitude_steps"]
        delta = float(steps[int(rng.integers(len(steps)))]) * (1 if rng.random() < 0.5 else -1)
        m = round_to(abs(v) + delta)
        table = product.get("magnitude_prior")
        ok = m >= precision - 1e-9 and (not table or rng.random() < min(
            1.0, prior_weight(table, m) / max(prior_weight(table, abs(v)), 1e-12)))
        if ok:
            return "magnitude", (m if v > 0 else -m)
    return "sign", -v


def move_grid(ab: tuple, partners: tuple) -> list[tuple]:
    """[true, x changed, y changed, both] for a move (a, b) and the partners (a', b')."""
    (a, b), (a2, b2) = ab, partners
    return [(a, b), (a2, b), (a, b2), (a2, b2)]


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
