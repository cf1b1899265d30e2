"""The rationale of T5 and T6: two vectors of the reference read in 3D, the rotations that fit what
image 4 shows, the program, then where that program puts the target in each option image."""
from __future__ import annotations

import math

from ...rationale.evidence import Facts
from ...rationale.readings import NoRationale, nearest_view, ops_text
from ...rationale.vectors import fit_error, observe, pick_atoms, predict, read_vectors, vectors_text, z_view
from .option_grid_program import ChoiceProgram


def choice(rec, V, F: Facts, W) -> None:
    p = ChoiceProgram.from_dict(rec["program"])
    roles = p.image_roles
    starts = [r for r in roles if r not in ("reference after",) and not r.startswith("target ")]
    ref = nearest_view(starts, p.after_view) or 1
    after = roles.index("reference after") + 1
    zk, zcomp, zsign = z_view(starts)
    A, D, B = V[ref], V[zk], V[after]
    n_img = len(rec["images"])
    opts = [V[n_img + 1 + k] for k in range(len(p.options))]
    true = p.ops
    P, Q, S = pick_atoms(A, [D, B] + (opts if p.target == "after_image" else []))
    vec = read_vectors(F, A, D, zcomp, zsign, P, Q, S)
    obs = observe(F, B, P, Q, S, "o")
    moves = [o for o in true if o["op"] == "move"]
    e_true = fit_error(F, "err_ref", true, "", "o")
    if F.values["err_ref"] > 0.1:
        raise NoRationale("the reference's vectors do not fit its program")
    F.answer(rec["answer"])
    W.say("vectors_intro", ref=ref, zimg=zk, after=after)
    vectors_text(W, P, Q, S, A, vec, ref, zk)
    W.say("observed", after=after, x1=obs[0][0], y1=obs[0][1], x2=obs[1][0], y2=obs[1][1])
    rolls = [o for o in true if o["op"] == "roll"]
    _fit_rolls(F, W, rolls, [o["ops"] for o in p.options], e_true)
    if moves:
        cx = [F.comp(V[ref], None, "", c, f"c1{c}") for c in "xy"]
        cx4 = [F.comp(B, None, "", c, f"c4{c}") for c in "xy"]
        dx, dy = F.calc("cdx", "c4x - c1x", 2), F.calc("cdy", "c4y - c1y", 2)
        W.say("centre_shift", ref=ref, after=after, x1=cx[0], y1=cx[1], x4=cx4[0], y4=cx4[1], dx=dx, dy=dy,
              moves=ops_text(moves))
    W.say("program", ops=ops_text(true))
    # the options: where the same program puts the target
    if p.target == "after_image":
        # image 4's vectors in 3D are the program applied to the start vectors; apply it once more
        src = [predict((f"x{n}", f"y{n}", f"z{n}"), true) for n in ("1", "2")]
        for n, comps in zip(("1", "2"), src):
            for c, e in zip("xyz", comps):
                F.calc(f"a{c}{n}", e, 2)
        T = B
        W.say("target_again", after=after, ops=ops_text(true))
    else:
        T, (P, Q, S) = _target_vectors(F, W, V, roles, p.after_view, opts)
    _predicted(F, W, rolls, "a")
    shifted = moves if p.target != "after_image" else []       # the target's centre moves by the translation
    rows = _option_rows(F, rec, [o["letter"] for o in p.options], opts, (P, Q, S), rolls, shifted, T)
    W.say("options", rows="; ".join(rows))
    W.say("answer", answer=rec["answer"])


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
        alt = "; ".join(f"{ops_text(o)} would be off by {e} Å" for o, e in zip(others, alt_errs))
    W.say("fit_rolls", ops=ops_text(rolls), err=e_true, alternatives=alt or "no other rotation is in question")


def _target_vectors(F: Facts, W, V, roles: list, after_view: str, opts: list) -> tuple:
    """T5: the other complex's own two vectors, read in 3D from its start views (tag ``a``)."""
    t_roles = [r[len("target "):] for r in roles if r.startswith("target ")]
    t0 = roles.index("target " + after_view) + 1 if ("target " + after_view) in roles else None
    tz, tzc, tzs = z_view(t_roles)
    tz += roles.index("target " + t_roles[0])
    T, TD = V[t0], V[tz]
    P2, Q2, S2 = pick_atoms(T, [TD] + opts)
    tvec = read_vectors(F, T, TD, tzc, tzs, P2, Q2, S2, tag="a")
    W.say("target_vectors", p=T.name(P2), q=T.name(Q2), s=T.name(S2), ref=t0, zimg=tz,
          x1=tvec[0][0], y1=tvec[0][1], z1=tvec[0][2], x2=tvec[1][0], y2=tvec[1][1], z2=tvec[1][2])
    return T, (P2, Q2, S2)


def _option_rows(F: Facts, rec, letters: list, opts: list, atoms: tuple, rolls: list, moves: list, T) -> list[str]:
    """Each option's vectors against the prediction (and its centre's shift against the moves); the
    best must be the answer."""
    P, Q, S = atoms
    rows, best = [], None
    for k, (L, o) in enumerate(zip(letters, opts)):
        ob = observe(F, o, P, Q, S, f"q{k}_")
        e = fit_error(F, f"err_opt{k}", rolls, "a", f"q{k}_")
        shift = ""
        if moves:
            if k == 0:
                for c in "xy":
                    F.comp(T, None, "", c, f"tc{c}")
            for c in "xy":
                F.comp(o, None, "", c, f"q{k}c{c}")
            sdx = F.calc(f"q{k}dx", f"q{k}cx - tcx", 2)
            sdy = F.calc(f"q{k}dy", f"q{k}cy - tcy", 2)
            shift = f"; its centre moved x {sdx}, y {sdy} Å"
        rows.append(f"{L}: vectors x {ob[0][0]}, y {ob[0][1]} and x {ob[1][0]}, y {ob[1][1]} Å, off by {e} Å{shift}")
        bad = F.values[f"err_opt{k}"]
        if moves:
            want = {o2["axis"]: o2["value"] for o2 in moves}
            bad += math.hypot(F.values[f"q{k}dx"] - want.get("x", 0.0), F.values[f"q{k}dy"] - want.get("y", 0.0))
        if best is None or bad < best[0]:
            best = (bad, L)
    if best[1] != rec["answer"] or best[0] > 0.2:
        raise NoRationale("the option readings do not single out the answer")
    return rows


def _predicted(F: Facts, W, rolls, tag: str) -> None:
    vals = []
    for n in ("1", "2"):
        px, py, _ = predict((f"{tag}x{n}", f"{tag}y{n}", f"{tag}z{n}"), rolls)
        vals += [F.calc(f"{tag}px{n}", px, 2), F.calc(f"{tag}py{n}", py, 2)]
    W.say("predicted", ops=ops_text(rolls), px1=vals[0], py1=vals[1], px2=vals[2], py2=vals[3])
