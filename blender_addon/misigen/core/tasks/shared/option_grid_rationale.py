"""The rationale of T5 and T6: two vectors of the reference read in pixels (depth from a side view),
the rotations that fit what image 4 shows, the shift of the drawing's centre (pixels, then Å at the
scale there: the scale bar where drawn, else a bond of standard length), the program, then where that
program puts the target in each option image. The reading margin: how many reading errors the second
best option is worse than the answer (negative: another option fits the readings better)."""
from __future__ import annotations

import math

from ...rationale.estimates import record
from ...rationale.evidence import Facts, View
from ...rationale.readings import NoRationale, nearest_view, ops_text
from ...rationale.scales import say_scale, scale_near
from ...rationale.vectors import (fit_error, fit_noise, observe, pick_atoms, predict, predicted, read_vectors,
                                  vectors_text, z_view)
from .option_grid_program import ChoiceProgram


def choice(rec, V, F: Facts, W) -> None:
    p = ChoiceProgram.from_dict(rec["program"])
    roles = p.image_roles
    starts = [r for r in roles if r not in ("reference after",) and not r.startswith("target ")]
    ref = nearest_view(starts, p.after_view) or 1
    after = roles.index("reference after") + 1
    zk = z_view(starts)
    A, D, B = V[ref], V[zk], V[after]
    n_img = len(rec["images"])
    opts = [V[n_img + 1 + k] for k in range(len(p.options))]
    true = p.ops
    P, Q, S = pick_atoms(A, [D, B] + (opts if p.target == "after_image" else []))
    vec = read_vectors(F, A, D, P, Q, S)
    obs = observe(F, B, P, Q, S, "o")
    moves = [o for o in true if o["op"] == "move"]
    e_true = fit_error(F, "err_ref", true, "", "o")
    if F.values["err_ref"] > 2 * fit_noise(F, ""):
        raise NoRationale("the reference's pixel vectors do not fit its program")
    F.answer(rec["answer"])
    W.say("vectors_intro", ref=ref, zimg=zk, after=after)
    vectors_text(W, P, Q, S, A, D, vec)
    W.say("depth", ref=ref, zimg=zk, **vec)
    W.say("observed", after=after, du1=obs[0][0], dv1=obs[0][1], du2=obs[1][0], dv2=obs[1][1])
    rolls = [o for o in true if o["op"] == "roll"]
    _fit_rolls(F, W, rolls, [o["ops"] for o in p.options], e_true)
    if moves:
        _centre_shift(F, W, A, B, "c", moves)
    W.say("program", ops=ops_text(true))
    if p.target == "after_image":
        # image 4's vectors are the program applied to the start vectors; apply it once more
        for n in ("1", "2"):
            for c, e in zip("xyz", predict((f"x{n}", f"y{n}", f"z{n}"), true)):
                F.calc(f"a{c}{n}", e, 1)
        T = B
        W.say("target_again", after=after, ops=ops_text(true))
    else:
        T, (P, Q, S) = _target_vectors(F, W, V, roles, p.after_view, opts)
    pred = predicted(F, rolls, "a", "ap")
    W.say("predicted", ops=ops_text(rolls), du1=pred[0], dv1=pred[1], du2=pred[2], dv2=pred[3])
    shifted = moves if p.target != "after_image" else []       # the target's centre moves by the translation
    rows = _option_rows(F, W, rec, [o["letter"] for o in p.options], opts, (P, Q, S), rolls, shifted, T)
    W.say("options", rows="; ".join(rows))
    W.say("answer", answer=rec["answer"])


def _centre_shift(F: Facts, W, A: View, B: View, tag: str, moves: list) -> None:
    """Where the centre of the drawn atoms moved from image A to image B (same camera), in px and Å."""
    u1, v1 = F.centre(A, "all", "u", f"{tag}1u"), F.centre(A, "all", "v", f"{tag}1v")
    u4, v4 = F.centre(B, "all", "u", f"{tag}4u"), F.centre(B, "all", "v", f"{tag}4v")
    du, dv = F.calc(f"{tag}du", f"{tag}4u - {tag}1u", 1), F.calc(f"{tag}dv", f"{tag}4v - {tag}1v", 1)
    sc = scale_near(F, A, (F.values[f"{tag}1u"], F.values[f"{tag}1v"]), f"{tag}s", prefer_bar=True)
    mx = F.calc(f"{tag}mx", f"{tag}du / {sc.name}", 1, estimate=True)
    my = F.calc(f"{tag}my", f"-{tag}dv / {sc.name}", 1, estimate=True)
    W.say("centre_shift", ref=A.k, after=B.k, u1=u1, v1=v1, u4=u4, v4=v4, du=du, dv=dv, scale=say_scale(W, sc),
          mx=mx, my=my, moves=ops_text(moves))


def _fit_rolls(F: Facts, W, rolls: list, programs: list, e_true: str) -> None:
    """How well the true rotations fit image 4, and how badly the options' other rotations would."""
    others = []                      # the other rotations the options stand for, each once
    for prog in programs:
        r = [o for o in prog if o["op"] == "roll"]
        if ops_text(r) != ops_text(rolls) and ops_text(r) not in {ops_text(x) for x in others}:
            others.append(r)
    alt = ""
    if others:
        alt_errs = [fit_error(F, f"err_alt{k}", o, "", "o") for k, o in enumerate(others)]
        alt = "; ".join(W.phrase("alternative", ops=ops_text(o), err=e) for o, e in zip(others, alt_errs))
    W.say("fit_rolls", ops=ops_text(rolls), err=e_true, alternatives=alt or W.phrase("no_alternative"))


def _target_vectors(F: Facts, W, V, roles: list, after_view: str, opts: list) -> tuple:
    """T5: the other complex's own two vectors, read in pixels from its start views (tag ``a``)."""
    t_roles = [r[len("target "):] for r in roles if r.startswith("target ")]
    first = roles.index("target " + t_roles[0])
    t0 = roles.index("target " + after_view) + 1 if ("target " + after_view) in roles else None
    if t0 is None:
        raise NoRationale("no target image shows the after view")
    tz = z_view(t_roles) + first
    T, TD = V[t0], V[tz]
    P2, Q2, S2 = pick_atoms(T, [TD] + opts)
    tvec = read_vectors(F, T, TD, P2, Q2, S2, tag="a")
    vectors_text(W, P2, Q2, S2, T, TD, tvec, "target_vectors")
    W.say("target_depth", ref=t0, zimg=tz, **tvec)
    return T, (P2, Q2, S2)


def _option_rows(F: Facts, W, rec, letters: list, opts: list, atoms: tuple, rolls: list, moves: list, T) -> list[str]:
    """Each option's offsets against the prediction (and its centre's shift against the moves); the
    best must be the answer."""
    P, Q, S = atoms
    rows, scored = [], []
    noise = fit_noise(F, "a")
    want = {o2["axis"]: o2["value"] for o2 in moves}
    for k, (L, o) in enumerate(zip(letters, opts)):
        ob = observe(F, o, P, Q, S, f"q{k}_")
        e = fit_error(F, f"err_opt{k}", rolls, "a", f"q{k}_")
        bad = F.values[f"err_opt{k}"]
        shift = ""
        if moves:
            if k == 0:
                F.centre(T, "all", "u", "tcu")
                F.centre(T, "all", "v", "tcv")
                sc = scale_near(F, T, (F.values["tcu"], F.values["tcv"]), "ts", prefer_bar=True)
                W.say("target_scale", img=T.k, scale=say_scale(W, sc))
            F.centre(o, "all", "u", f"q{k}cu")
            F.centre(o, "all", "v", f"q{k}cv")
            mx = F.calc(f"q{k}mx", f"(q{k}cu - tcu) / ts_scale", 1, estimate=True)
            my = F.calc(f"q{k}my", f"-(q{k}cv - tcv) / ts_scale", 1, estimate=True)
            shift = W.phrase("option_shift", mx=mx, my=my)
            bad += F.values["ts_scale"] * math.hypot(F.values[f"q{k}mx"] - want.get("x", 0.0),
                                                     F.values[f"q{k}my"] - want.get("y", 0.0))
        rows.append(W.phrase("option", letter=L, du1=ob[0][0], dv1=ob[0][1], du2=ob[1][0], dv2=ob[1][1], err=e,
                             shift=shift))
        scored.append((bad, L))
    scored.sort()
    answer = next(b for b, L in scored if L == rec["answer"])
    rival = next(b for b, L in scored if L != rec["answer"])
    record(F, (rival - answer) / noise)
    if scored[0][1] != rec["answer"]:
        raise NoRationale("the option readings do not single out the answer")
    return rows
