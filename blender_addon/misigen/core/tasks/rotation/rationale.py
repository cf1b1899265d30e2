"""T2's rationale: two pixel vectors between citable atoms (across and down in the reference image,
their depth from a side or top view), each allowed roll applied to them, and the one whose predicted
pixel offsets fit the after-image best. The reading margin: how many reading errors (px) the next
best roll's fit is worse than the answer's (negative: another roll fits better)."""
from __future__ import annotations

from ...rationale.estimates import record
from ...rationale.evidence import Facts
from ...rationale.readings import NoRationale, nearest_view, ops_text
from ...rationale.vectors import (fit_error, fit_error_value, fit_noise, observe, pick_atoms, predicted, read_vectors,
                                  vectors_text, z_view)
from ..shared.cloze import ClozeProgram


def roll(rec, V, F: Facts, W) -> None:
    p = ClozeProgram.from_dict(rec["program"])
    op = p.ops[0]
    views = p.start_views
    ref = nearest_view(views, p.after_view) or 1
    after = len(views) + 1
    zk = z_view(views)
    A, D, B = V[ref], V[zk], V[after]
    P, Q, S = pick_atoms(A, [D, B])
    vec = read_vectors(F, A, D, P, Q, S)
    obs = observe(F, B, P, Q, S, "o")
    values = p.values or []
    if rec["program"].get("value_step") is not None:
        F.given("step", rec["program"]["value_step"], "value_step")      # the finer grid the question states
    if not values:
        raise NoRationale("the program lists no allowed values")
    cands = [[{"op": "roll", "axis": ax, "value": v}] for ax in p.axes for v in values]
    errs = sorted(((fit_error_value(F, c, "", "o"), c) for c in cands), key=lambda t: (round(t[0], 9), ops_text(t[1])))
    noise = fit_noise(F, "")
    truth = next(e for e, c in errs if ops_text(c) == ops_text([op]))
    best, second = errs[0][1], errs[1][1]
    if ops_text(best) != ops_text([op]):
        record(F, (errs[0][0] - truth) / noise)
        raise NoRationale("the vector fit does not single out the answer")
    record(F, (errs[1][0] - errs[0][0]) / noise)
    e1 = fit_error(F, "err_best", best, "", "o")
    e2 = fit_error(F, "err_next", second, "", "o")
    pred = predicted(F, best, "", "p")
    F.answer(rec["answer"])
    W.say("vectors_intro", ref=ref, zimg=zk, after=after)
    vectors_text(W, P, Q, S, A, D, vec)
    W.say("depth", ref=ref, zimg=zk, **vec)
    W.say("observed", after=after, du1=obs[0][0], dv1=obs[0][1], du2=obs[1][0], dv2=obs[1][1])
    W.say("fit", ops=ops_text(best), du1=pred[0], dv1=pred[1], du2=pred[2], dv2=pred[3], err=e1,
          next=ops_text(second), err_next=e2, n=len(cands))
    W.say("answer", answer=rec["answer"])
