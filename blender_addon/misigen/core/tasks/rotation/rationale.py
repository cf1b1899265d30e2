"""T2's rationale: two vectors between citable atoms read in 3D (x, y from the reference image, z from
a side or top view), each allowed roll applied to them, and the one that fits the after-image best."""
from __future__ import annotations

from ...rationale.evidence import Facts
from ...rationale.readings import NoRationale, nearest_view, ops_text
from ...rationale.vectors import (fit_error, fit_error_value, observe, pick_atoms, predict, read_vectors, vectors_text,
                                  z_view)
from ..shared.cloze import ClozeProgram


def roll(rec, V, F: Facts, W) -> None:
    p = ClozeProgram.from_dict(rec["program"])
    op = p.ops[0]
    views = p.start_views
    ref = nearest_view(views, p.after_view) or 1
    after = len(views) + 1
    zk, zcomp, zsign = z_view(views)
    A, D, B = V[ref], V[zk], V[after]
    P, Q, S = pick_atoms(A, [D, B])
    vec = read_vectors(F, A, D, zcomp, zsign, P, Q, S)
    obs = observe(F, B, P, Q, S, "o")
    values = p.values or []
    if not values:
        raise NoRationale("the program lists no allowed values")
    cands = [[{"op": "roll", "axis": ax, "value": v}] for ax in p.axes for v in values]
    errs = []
    for c in cands:
        errs.append((fit_error_value(F, c, "", "o"), c))
    errs.sort(key=lambda t: (round(t[0], 9), ops_text(t[1])))
    best, second = errs[0][1], errs[1][1]
    if ops_text(best) != ops_text([op]):
        raise NoRationale("the vector fit does not single out the answer")
    e1 = fit_error(F, "err_best", best, "", "o")
    e2 = fit_error(F, "err_next", second, "", "o")
    px = [predict((f"x{n}", f"y{n}", f"z{n}"), best)[:2] for n in ("1", "2")]
    pred = [F.calc(f"p{c}{n}", e, 2) for n, pair in zip(("1", "2"), px) for c, e in zip("xy", pair)]
    F.answer(rec["answer"])
    W.say("vectors_intro", ref=ref, zimg=zk, after=after)
    vectors_text(W, P, Q, S, A, vec, ref, zk)
    W.say("observed", after=after, x1=obs[0][0], y1=obs[0][1], x2=obs[1][0], y2=obs[1][1])
    W.say("fit", ops=ops_text(best), px1=pred[0], py1=pred[1], px2=pred[2], py2=pred[3], err=e1,
          next=ops_text(second), err_next=e2, n=len(cands))
    W.say("answer", answer=rec["answer"])

