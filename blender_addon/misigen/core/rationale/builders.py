"""Rationale builders, one per program kind: observations from the sidecars → derived numbers → answer.

Each builder (a task type's ``TaskType.rationale``) gets the record, its images' ``View``s (1-based,
options after the images), a ``Facts`` collector and a template ``Writer``; it returns nothing and raises ``NoRationale`` when the images
do not support a derivation that ends in the record's answer (then the record carries none and
``validate`` says so). Candidates (atoms, bonds) are tried in a fixed order, so the same sidecars
always give the same rationale.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ..op_grammar import format_number
from ..data_files import load_table
from .evidence import Fact, Facts, View, atom_key, evaluate, fmt

AXIS_WORD = {"x": "across the screen", "y": "up/down the screen", "z": "toward the viewer"}
SLOP = 0.4      # Å: ChimeraX's default distance relaxation (the prompt states it)


class NoRationale(Exception):
    """The images do not support a step-by-step derivation of this record's answer."""


# ------------------------------------------------------------------ shared readings
def ordered_bonds(view: View, also: list[View] = (), both_also: bool = False) -> list[tuple[str, str]]:
    """Bonds whose two atoms are citable in ``view`` (and the first, or both, in ``also``), the
    flattest first (smallest depth difference per Å of bond: its pixel length then gives the scale)."""
    out = []
    for i, j in view.bonds():
        a, b = view.atoms[i], view.atoms[j]
        if a["element"] == "H" or b["element"] == "H":
            continue
        ka, kb = atom_key(a), atom_key(b)
        for x, y in ((ka, kb), (kb, ka)):
            if not (view.citable(x) and view.citable(y)):
                continue
            if not all(o.citable(x) and (not both_also or o.citable(y)) for o in also):
                continue
            d = np.linalg.norm(view.xyz(x) - view.xyz(y))
            out.append((abs(view.xyz(x)[2] - view.xyz(y)[2]) / max(d, 1e-6), x, y))
            break
    out.sort(key=lambda t: (round(t[0], 6), t[1], t[2]))
    return [(x, y) for _, x, y in out]


def scale_from_bond(F: Facts, view: View, a: str, b: str, tag: str) -> tuple[str, str, str]:
    """Quote the bond's Å length and pixel length in ``view``; returns (length, px, scale) texts."""
    F.pixel(view, a, f"{tag}a")
    F.pixel(view, b, f"{tag}b")
    L = F.length(view, a, b, f"{tag}_len")
    px = F.calc(f"{tag}_px", f"sqrt(({tag}b_u - {tag}a_u)**2 + ({tag}b_v - {tag}a_v)**2)", 1)
    sc = F.calc(f"{tag}_scale", f"{tag}_px / {tag}_len", 2)
    return L, px, sc


def step_round(F: Facts, name: str, src: str, step: float) -> float | None:
    """Round a quoted estimate to the answer's step; None when it sits near a tie (a reader could
    round either way), so the builder tries other evidence."""
    x = F.values[src] / step
    if abs(x - round(x)) > 0.4:
        return None
    value = round(x) * step
    F.add(Fact("round", name, value, 6, expr=src, extra={"step": step}))
    return float(format_number(value, as_float=True))


def nearest_view(names: list, want: str):
    return names.index(want) + 1 if want in names else None


# ------------------------------------------------------------------ T1 translation (move x|y)
def one_move(rec, V) -> tuple:
    """(op, reference view number, after view number, their sidecar views, value step) of a
    one-move cloze (T1, T3): the after image is compared with the start view of the same camera."""
    p = rec["program"]
    ref = nearest_view(p["start_views"], p["after_view"]) or 1
    after = len(p["start_views"]) + 1
    return p["ops"][0], ref, after, V[ref], V[after], float(p.get("value_step", 1.0))


def move_xy(rec, V, F: Facts, W) -> None:
    op, ref, after, A, B, step = one_move(rec, V)
    for a, b in ordered_bonds(A, [B]):
        F2 = Facts()
        ua, va = F2.pixel(A, a, "s")
        ub, vb = F2.pixel(B, a, "t")
        du = F2.calc("du", "t_u - s_u", 1)
        dv = F2.calc("dv", "t_v - s_v", 1)
        L, px, sc = scale_from_bond(F2, A, a, b, "bond")
        axis = "x" if abs(F2.values["du"]) >= abs(F2.values["dv"]) else "y"
        est = F2.calc("est", "du / bond_scale" if axis == "x" else "-dv / bond_scale", 2)
        value = step_round(F2, "value", "est", step)
        if value is None or axis != op["axis"] or value != float(op["value"]) or F2.values["bond_px"] < 8:
            continue
        F.items, F.values = F2.items, F2.values
        F.answer(rec["answer"])
        W.say("same_camera", ref=ref, after=after)
        W.say("track", atom=A.name(a), ref=ref, after=after, u1=ua, v1=va, u2=ub, v2=vb, du=du, dv=dv)
        W.say("axis", axis=axis, direction="horizontal" if axis == "x" else "vertical",
              sign=("to the right" if value > 0 else "to the left") if axis == "x" else
              ("upward" if value > 0 else "downward"))
        W.say("scale", bond=f"{A.name(a)} – {A.name(b)}", length=L, px=px, scale=sc, ref=ref)
        W.say("value", shift=du if axis == "x" else dv, scale=sc, est=est, step=format_number(step),
              value=format_number(value), sign_rule="x points right" if axis == "x" else "y points up, pixel rows down")
        W.say("answer", answer=rec["answer"])
        return
    raise NoRationale("no bond citable in both images whose shift and scale give the answer")


# ------------------------------------------------------------------ T3 zooming (move z)
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


# ------------------------------------------------------------------ rotations: vectors read in 3D
def _rot(comps: tuple, axis: str, a) -> tuple:
    """Expressions of a vector's (x, y, z) after 'roll axis a' (right-hand rule)."""
    x, y, z = comps
    a = format_number(a)
    if axis == "x":
        return x, f"({y})*cos({a}) - ({z})*sin({a})", f"({y})*sin({a}) + ({z})*cos({a})"
    if axis == "y":
        return f"({x})*cos({a}) + ({z})*sin({a})", y, f"-({x})*sin({a}) + ({z})*cos({a})"
    return f"({x})*cos({a}) - ({y})*sin({a})", f"({x})*sin({a}) + ({y})*cos({a})", z


def predict(comps: tuple, ops: list) -> tuple:
    for o in ops:
        if o["op"] == "roll":
            comps = _rot(comps, o["axis"], o["value"])
    return comps


def z_view(start_views: list):
    """(image number, component, sign) where the front's z is read: left view x = z, top view y = −z."""
    if "left" in start_views:
        return start_views.index("left") + 1, "x", 1
    if "right" in start_views:
        return start_views.index("right") + 1, "x", -1
    if "top" in start_views:
        return start_views.index("top") + 1, "y", -1
    if "bottom" in start_views:
        return start_views.index("bottom") + 1, "y", 1
    raise NoRationale("no start view shows depth")


def pick_atoms(front: View, others: list[View]) -> tuple[str, str, str]:
    """Three atoms citable in every image given: P, the farthest Q, the S farthest off the line PQ."""
    keys = [k for k in sorted(front.index) if front.citable(k) and all(o.citable(k) for o in others)]
    if len(keys) < 3:
        raise NoRationale("fewer than three atoms are citable in every image the derivation needs")
    xyz = np.array([front.xyz(k) for k in keys])
    c = xyz.mean(axis=0)
    p = int(np.argmin(((xyz - c) ** 2).sum(1)))
    qi = int(np.argmax(((xyz - xyz[p]) ** 2).sum(1)))
    u = (xyz[qi] - xyz[p]) / max(np.linalg.norm(xyz[qi] - xyz[p]), 1e-9)
    off = xyz - xyz[p]
    perp = off - np.outer(off @ u, u)
    si = int(np.argmax((perp ** 2).sum(1)))
    return keys[p], keys[qi], keys[si]


def read_vectors(F: Facts, front: View, depth: View, zcomp: str, zsign: int, P, Q, S, tag="") -> list[tuple]:
    """Quote PQ and PS in 3D: x, y from the front image, z from the depth image."""
    out = []
    for n, b in (("1", Q), ("2", S)):
        x = F.comp(front, P, b, "x", f"{tag}x{n}")
        y = F.comp(front, P, b, "y", f"{tag}y{n}")
        raw = F.comp(depth, P, b, zcomp, f"{tag}r{n}")
        z = F.calc(f"{tag}z{n}", f"{'-' if zsign < 0 else ''}{tag}r{n}", 2)
        out.append((x, y, z, raw))
    return out


def observe(F: Facts, view: View, P, Q, S, tag: str) -> list[tuple]:
    return [(F.comp(view, P, b, "x", f"{tag}x{n}"), F.comp(view, P, b, "y", f"{tag}y{n}"))
            for n, b in (("1", Q), ("2", S))]


def fit_error(F: Facts, name: str, ops: list, src: str, obs: str) -> str:
    """RMS difference (Å) between the predicted in-plane components of both vectors and the observed."""
    terms = []
    for n in ("1", "2"):
        px, py, _ = predict((f"{src}x{n}", f"{src}y{n}", f"{src}z{n}"), ops)
        terms += [f"(({px}) - {obs}x{n})**2", f"(({py}) - {obs}y{n})**2"]
    return F.calc(name, f"sqrt(({' + '.join(terms)}) / 4)", 2)


def ops_text(ops: list) -> str:
    return ", ".join(f"{o['op']} {o['axis']} {format_number(o['value'])}" for o in ops)


def _vec_text(W, P, Q, S, front, vec, ref, zk):
    W.say("vectors", p=front.name(P), q=front.name(Q), s=front.name(S), ref=ref, zimg=zk,
          x1=vec[0][0], y1=vec[0][1], z1=vec[0][2], x2=vec[1][0], y2=vec[1][1], z2=vec[1][2])


def roll(rec, V, F: Facts, W) -> None:
    p = rec["program"]
    op = p["ops"][0]
    views = p["start_views"]
    ref = nearest_view(views, p["after_view"]) or 1
    after = len(views) + 1
    zk, zcomp, zsign = z_view(views)
    A, D, B = V[ref], V[zk], V[after]
    P, Q, S = pick_atoms(A, [D, B])
    vec = read_vectors(F, A, D, zcomp, zsign, P, Q, S)
    obs = observe(F, B, P, Q, S, "o")
    values = p.get("values") or []
    if not values:
        raise NoRationale("the program lists no allowed values")
    cands = [[{"op": "roll", "axis": ax, "value": v}] for ax in p["axes"] for v in values]
    errs = []
    for c in cands:
        errs.append((_err_value(F, c, "", "o"), c))
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
    _vec_text(W, P, Q, S, A, vec, ref, zk)
    W.say("observed", after=after, x1=obs[0][0], y1=obs[0][1], x2=obs[1][0], y2=obs[1][1])
    W.say("fit", ops=ops_text(best), px1=pred[0], py1=pred[1], px2=pred[2], py2=pred[3], err=e1,
          next=ops_text(second), err_next=e2, n=len(cands))
    W.say("answer", answer=rec["answer"])


def _err_value(F: Facts, ops, src, obs) -> float:
    terms = []
    for n in ("1", "2"):
        px, py, _ = predict((f"{src}x{n}", f"{src}y{n}", f"{src}z{n}"), ops)
        terms += [f"(({px}) - {obs}x{n})**2", f"(({py}) - {obs}y{n})**2"]
    return evaluate(f"sqrt(({' + '.join(terms)}) / 4)", F.values)


# ------------------------------------------------------------------ T5, T6 (option images)
def choice(rec, V, F: Facts, W) -> None:
    p = rec["program"]
    roles = p["image_roles"]
    starts = [r for r in roles if r not in ("reference after",) and not r.startswith("target ")]
    ref = nearest_view(starts, p["after_view"]) or 1
    after = roles.index("reference after") + 1
    zk, zcomp, zsign = z_view(starts)
    A, D, B = V[ref], V[zk], V[after]
    n_img = len(rec["images"])
    opts = [V[n_img + 1 + k] for k in range(len(p["options"]))]
    programs = [o["ops"] for o in p["options"]]
    true = p["ops"]
    letters = [o["letter"] for o in p["options"]]
    P, Q, S = pick_atoms(A, [D, B] + (opts if p["target"] == "after_image" else []))
    vec = read_vectors(F, A, D, zcomp, zsign, P, Q, S)
    obs = observe(F, B, P, Q, S, "o")
    moves = [o for o in true if o["op"] == "move"]
    e_true = fit_error(F, "err_ref", true, "", "o")
    if F.values["err_ref"] > 0.1:
        raise NoRationale("the reference's vectors do not fit its program")
    F.answer(rec["answer"])
    W.say("vectors_intro", ref=ref, zimg=zk, after=after)
    _vec_text(W, P, Q, S, A, vec, ref, zk)
    W.say("observed", after=after, x1=obs[0][0], y1=obs[0][1], x2=obs[1][0], y2=obs[1][1])
    rolls = [o for o in true if o["op"] == "roll"]
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
    if moves:
        cx = [F.comp(V[ref], None, "", c, f"c1{c}") for c in "xy"]
        cx4 = [F.comp(B, None, "", c, f"c4{c}") for c in "xy"]
        dx, dy = F.calc("cdx", "c4x - c1x", 2), F.calc("cdy", "c4y - c1y", 2)
        W.say("centre_shift", ref=ref, after=after, x1=cx[0], y1=cx[1], x4=cx4[0], y4=cx4[1], dx=dx, dy=dy,
              moves=ops_text(moves))
    W.say("program", ops=ops_text(true))
    # the options: where the same program puts the target
    if p["target"] == "after_image":
        # image 4's vectors in 3D are the program applied to the start vectors; apply it once more
        src = [predict((f"x{n}", f"y{n}", f"z{n}"), true) for n in ("1", "2")]
        for n, comps in zip(("1", "2"), src):
            for c, e in zip("xyz", comps):
                F.calc(f"a{c}{n}", e, 2)
        tag, T = "a", B
        W.say("target_again", after=after, ops=ops_text(true))
        _predicted(F, W, rolls, tag)
    else:
        t_roles = [r[len("target "):] for r in roles if r.startswith("target ")]
        t0 = roles.index("target " + p["after_view"]) + 1 if ("target " + p["after_view"]) in roles else None
        tz, tzc, tzs = z_view(t_roles)
        tz += roles.index("target " + t_roles[0])
        T, TD = V[t0], V[tz]
        P2, Q2, S2 = pick_atoms(T, [TD] + opts)
        tvec = read_vectors(F, T, TD, tzc, tzs, P2, Q2, S2, tag="a")
        W.say("target_vectors", p=T.name(P2), q=T.name(Q2), s=T.name(S2), ref=t0, zimg=tz,
              x1=tvec[0][0], y1=tvec[0][1], z1=tvec[0][2], x2=tvec[1][0], y2=tvec[1][1], z2=tvec[1][2])
        P, Q, S = P2, Q2, S2
        tag = "a"
        _predicted(F, W, rolls, tag)
    rows, best = [], None
    for k, (L, o) in enumerate(zip(letters, opts)):
        ob = observe(F, o, P, Q, S, f"q{k}_")
        e = fit_error(F, f"err_opt{k}", rolls, tag, f"q{k}_")
        shift = ""
        if moves and p["target"] != "after_image":      # the target's centre moves by the translation
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
        if moves and p["target"] != "after_image":
            want = {o2["axis"]: o2["value"] for o2 in moves}
            bad += math.hypot(F.values[f"q{k}dx"] - want.get("x", 0.0), F.values[f"q{k}dy"] - want.get("y", 0.0))
        if best is None or bad < best[0]:
            best = (bad, L)
    if best[1] != rec["answer"] or best[0] > 0.2:
        raise NoRationale("the option readings do not single out the answer")
    W.say("options", rows="; ".join(rows))
    W.say("answer", answer=rec["answer"])


def _predicted(F: Facts, W, rolls, tag: str) -> None:
    vals = []
    for n in ("1", "2"):
        px, py, _ = predict((f"{tag}x{n}", f"{tag}y{n}", f"{tag}z{n}"), rolls)
        vals += [F.calc(f"{tag}px{n}", px, 2), F.calc(f"{tag}py{n}", py, 2)]
    W.say("predicted", ops=ops_text(rolls), px1=vals[0], py1=vals[1], px2=vals[2], py2=vals[3])


# ------------------------------------------------------------------ T7 docking
def redock(rec, V, F: Facts, W) -> None:
    p = rec["program"]
    n = len(rec["images"])
    C = V[n]
    roll_op, move_op = p["ops"][0], p["ops"][1]
    x_now = F.comp(C, None, "", "x", "lig_x", ligand=True)
    w2c = np.asarray(C.car["camera"]["world_to_camera"], float)
    site = (w2c @ np.append(np.asarray(p["ligand_centre"], float), 1.0))[0]
    x_site = F.add(Fact("site", "site_x", float(site), 2, n, comp="x"))
    est = F.calc("est", "site_x - lig_x", 2)
    value = step_round(F, "value", "est", float(p.get("move_step", 1.0)))
    if value != float(move_op["value"]):
        raise NoRationale("the site offset does not round to the answer's move")
    F.answer(rec["answer"])
    side = "right" if F.values["lig_x"] > F.values["site_x"] else "left"
    W.say("turn", ligand_images=f"{n - 3}–{n - 1}", roll=ops_text([roll_op]))
    W.say("offset", img=n, x_now=x_now, x_site=x_site, side=side, est=est, value=format_number(value),
          move=ops_text([move_op]))
    W.say("answer", answer=rec["answer"])


# ------------------------------------------------------------------ H-bond tasks
def acceptor_limit(criterion: str) -> tuple[float, str] | None:
    """The precise distance limit (Å) of the acceptor rule the finder matched, and its name."""
    m = re.match(r"\s*acceptor #(\d+) (.*?)( syn| anti)?\s*/", criterion or "")
    if m:
        rule = next((r for r in load_table("interactions/hbond_criteria.yaml")["acceptors"]
                     if int(r["id"]) == int(m.group(1))), None)
        if rule is None:
            return None
        if "r" in rule:
            return float(rule["r"]), m.group(2).strip()
        side = (m.group(3) or "").strip()
        rs = [float(rule[s]["r"]) for s in (("syn", "anti") if not side else (side,)) if s in rule]
        return (max(rs), f"{m.group(2).strip()}{' ' + side if side else ''}") if rs else None
    m = re.match(r"\s*acceptor (?:generic )?(\S+)", criterion or "")
    gen = load_table("interactions/hbond_criteria.yaml").get("generic_acceptors", {})
    if m and m.group(1) in gen and "r" in gen[m.group(1)]:
        return float(gen[m.group(1)]["r"]), m.group(1)
    return None


def bond_keys(b: dict) -> tuple[str, str]:
    return f"P:{b['chain']}:{b['resseq']}{b['icode']}:{b['protein_atom']}", f"L:{b['ligand_atom']}"


def cite_somewhere(views: list[View], keys) -> View | None:
    for v in views:
        if all(v.citable(k) for k in keys):
            return v
    return None


def hbond_lines(F: Facts, W, views: list[View], bonds: list[dict], tag: str) -> list[str]:
    out = []
    for n, b in enumerate(bonds):
        pk, lk = bond_keys(b)
        v = cite_somewhere(views, (pk, lk))
        if v is None:
            vp, vl = cite_somewhere(views, (pk,)), cite_somewhere(views, (lk,))
            if vp is None or vl is None:
                raise NoRationale(f"H-bond atom of {b['resname']} {b['resseq']} not citable in any image")
            where = (f"{vp.name(pk)} at ({', '.join(F.pixel(vp, pk, f'{tag}{n}p'))}) in image {vp.k}, "
                     f"{vl.name(lk)} at ({', '.join(F.pixel(vl, lk, f'{tag}{n}l'))}) in image {vl.k}")
            v = vp
        else:
            where = (f"{v.name(pk)} at ({', '.join(F.pixel(v, pk, f'{tag}{n}p'))}) and {v.name(lk)} at "
                     f"({', '.join(F.pixel(v, lk, f'{tag}{n}l'))}) in image {v.k}")
        dist = F.length(v, pk, lk, f"{tag}{n}_d")
        if b.get("donor") == "shared":
            limit = 2.65              # shared proton: not relaxed (core/data/interactions/hbond_criteria.yaml)
            lim_text = F.add(Fact("limit", f"{tag}{n}_lim", limit, 2, extra={"criterion": b["criterion"]}))
            W.say("shared", where=where, dist=dist, limit=lim_text)
        else:
            got = acceptor_limit(b.get("criterion", ""))
            donor, acceptor = (pk, lk) if b.get("donor") == "protein" else (lk, pk)
            if got is None:
                raise NoRationale(f"unknown criterion {b.get('criterion')!r}")
            lim_text = F.add(Fact("limit", f"{tag}{n}_lim", got[0] + SLOP, 2, extra={"criterion": b["criterion"]}))
            angle = ""
            base = _acceptor_base(v, acceptor, donor)
            if base is not None:
                ang = F.angle3(v, base, acceptor, donor, f"{tag}{n}_ang")
                angle = f"; the angle {v.name(base)} – {v.name(acceptor)} ··· {v.name(donor)} is {ang}°"
            W.say("hbond", where=where, donor=v.name(donor), acceptor=v.name(acceptor), dist=dist, limit=lim_text,
                  rule=got[1], angle=angle)
        if F.values[f"{tag}{n}_d"] > F.values[f"{tag}{n}_lim"]:
            raise NoRationale("an H-bond's distance exceeds its limit")
        out.append(f"{pk}|{lk}")
    return out


def _acceptor_base(v: View, acceptor: str, donor: str) -> str | None:
    """A heavy atom bonded to the acceptor and citable in the same image (for the angle at it)."""
    i = v.row(acceptor)
    for a, b in v.bonds():
        j = b if a == i else a if b == i else None
        if j is None:
            continue
        k = atom_key(v.atoms[j])
        if v.atoms[j]["element"] != "H" and k != donor and v.citable(k):
            return k
    return None


POLAR = ("N", "O")
MAX_NO = 3.53      # Å: the widest precise N/O acceptor limit of the criteria (before the 0.4 Å relaxation)


def residue_hbonds(rec, V, F: Facts, W) -> None:
    p = rec["program"]
    views = [V[k] for k in range(1, len(rec["images"]) + 1)]
    res = p["residue"]
    rtext = f"{res['resname']} {res['resseq']}{res['icode']}"
    if p.get("interaction", "hbond") != "hbond":
        return _kind_answer(rec, views, F, W, rtext)
    bonds = p.get("hbonds", [])
    W.say("intro", residue=rtext, n=len(views))
    if bonds:
        hbond_lines(F, W, views, bonds, "b")
    else:
        # the closest N/O pair of residue and ligand (every view shows the same atoms), each atom cited
        # where it is visible and labelled
        v0 = views[0]
        prot = [atom_key(a) for a in v0.atoms if not a["ligand"] and a["element"] in POLAR]
        lig = [atom_key(a) for a in v0.atoms if a["ligand"] and a["element"] in POLAR]
        pairs = sorted((float(np.linalg.norm(v0.xyz(pk) - v0.xyz(lk))), pk, lk) for pk in prot for lk in lig)
        if not pairs:
            W.say("no_polar", residue=rtext)
        else:
            _, pk, lk = pairs[0]
            vp, vl = cite_somewhere(views, (pk, lk)) or cite_somewhere(views, (pk,)), \
                cite_somewhere(views, (pk, lk)) or cite_somewhere(views, (lk,))
            if vp is None or vl is None:
                raise NoRationale("the closest N/O pair is not citable in any image")
            pu = F.pixel(vp, pk, "np")
            lu = F.pixel(vl, lk, "nl")
            dist = F.length(vp, pk, lk, "n_d")
            lim = F.add(Fact("limit", "n_lim", MAX_NO + SLOP, 2, extra={"criterion": "widest N/O"}))
            section = "none_far" if F.values["n_d"] > F.values["n_lim"] else "none_near"
            where = (f"{vp.name(pk)} at ({', '.join(pu)}) and {vl.name(lk)} at ({', '.join(lu)}) in image {vp.k}"
                     if vp is vl else f"{vp.name(pk)} at ({', '.join(pu)}) in image {vp.k} and {vl.name(lk)} at "
                                      f"({', '.join(lu)}) in image {vl.k}")
            W.say(section, where=where, dist=dist, limit=lim)
    F.answer(rec["answer"])
    W.say("answer", answer=rec["answer"])


def pocket_hbonds(rec, V, F: Facts, W) -> None:
    p = rec["program"]
    views = [V[k] for k in range(1, len(rec["images"]) + 1)]
    if p.get("interaction", "hbond") != "hbond":
        return _kind_answer(rec, views, F, W, None)
    bonds = p.get("hbonds", [])
    W.say("intro", n=len(bonds), views=len(views))
    hbond_lines(F, W, views, bonds, "b")
    F.answer(rec["answer"])
    W.say("answer", answer=rec["answer"])


def _kind_answer(rec, views, F: Facts, W, residue: str | None) -> None:
    """Interaction kinds beyond H-bonds (residue-level answers): each interaction's two groups cited by
    one labelled atom each, and the distance between the groups' centres (the centroids of their named
    atoms, as the finder measures it) against the kind's limit. A 'No' has no derivation from the
    images here (the groups that could interact are the finder's typing, not something drawn)."""
    p = rec["program"]
    kind = p["interaction"]
    found = p.get("interactions") or []
    if not found:
        raise NoRationale(f"no derivation of a 'No' for {kind}")
    limit = float(load_table("interactions/other_criteria.yaml")[kind]["max_distance"])
    W.say("kind_intro", kind=kind.replace("_", " "), n=len(found), residue=residue or "the pocket")
    for n, it in enumerate(found):
        res = f"P:{it['chain']}:{it['resseq']}{it['icode']}:"
        pk, lk = res + it["protein_atom"], f"L:{it['ligand_atom']}"
        group = tuple(res + a for a in it["protein_atoms"]) + ("|",) + tuple(f"L:{a}" for a in it["ligand_atoms"])
        vp = cite_somewhere(views, (pk, lk)) or cite_somewhere(views, (pk,))
        vl = cite_somewhere(views, (pk, lk)) or cite_somewhere(views, (lk,))
        if vp is None or vl is None:
            raise NoRationale(f"{kind} atoms not citable in any image")
        pu, lu = ", ".join(F.pixel(vp, pk, f"k{n}p")), ", ".join(F.pixel(vl, lk, f"k{n}l"))
        where = (f"in image {vp.k}, {vp.name(pk)} at ({pu})" + (" and" if vp is vl else f"; in image {vl.k},")
                 + f" {vl.name(lk)} at ({lu})")
        v = vp
        dist = F.add(Fact("groups", f"k{n}_d", _group_distance(v, group), 2, v.k, group))
        if abs(F.values[f"k{n}_d"] - float(it["distance"])) > 0.02:
            raise NoRationale(f"{kind}: the named atoms' centres do not give the finder's distance")
        lim = F.add(Fact("limit", f"k{n}_lim", limit, 2, extra={"criterion": f"kind:{kind}"}))
        W.say("kind_pair", where=where, pgroup=", ".join(it["protein_atoms"]), lgroup=", ".join(it["ligand_atoms"]),
              dist=dist, limit=lim)
    F.answer(rec["answer"])
    W.say("answer", answer=rec["answer"])


def _group_distance(v: View, group: tuple) -> float:
    cut = group.index("|")
    a = np.mean([v.xyz(k) for k in group[:cut]], axis=0)
    b = np.mean([v.xyz(k) for k in group[cut + 1:]], axis=0)
    return float(np.linalg.norm(a - b))


def location(rec, V, F: Facts, W) -> None:
    p = rec["program"]
    if p.get("interaction", "hbond") != "hbond":
        raise NoRationale("rationales cover hydrogen bonds only")
    ref = _view_number(rec, V, p["view"])
    A = V[ref]
    pk, lk = bond_keys(p["hbond"])
    w = F.add(Fact("camera", "width", A.width, 0, ref, comp="width"))
    h = F.add(Fact("camera", "height", A.height, 0, ref, comp="height"))
    if A.citable(pk) and A.citable(lk):
        hidden = None
        pu, pv = F.pixel(A, pk, "hp")
        lu, lv = F.pixel(A, lk, "hl")
        mu = F.calc("mu", "(hp_u + hl_u) / 2", 1)
        mv = F.calc("mv", "(hp_v + hl_v) / 2", 1)
        du = F.calc("du", "mu - width / 2", 1)
        dv = F.calc("dv", "mv - height / 2", 1)
        anchor_depth = (A.xyz(pk)[2] + A.xyz(lk)[2]) / 2
    elif p["view"] == "front":
        # an H-bond atom is hidden here: its place is read from a nearby atom that is citable, through
        # views that share the front's x axis (top, bottom) and y axis (left, right, back)
        hidden = True
        need = (pk, lk)

        def sharing(names, keys):
            """(image, sign) of the first view that shows the front's axis (sign −1: mirrored)."""
            for name, sign in names:
                k = _view_number(rec, V, name, True)
                if k and all(V[k].citable(x) for x in keys):
                    return k, sign
            return None
        mid = (A.xyz(pk) + A.xyz(lk)) / 2
        cands = sorted((float(np.linalg.norm(A.xyz(k) - mid)), k) for k in A.index
                       if k not in need and A.citable(k))
        x_views, y_views = (("top", 1), ("bottom", 1), ("back", -1)), (("left", 1), ("right", 1), ("back", 1))
        found = None
        for _, k in cands[:120]:
            # each component of each offset from the view that shows it with both atoms citable
            got = [sharing(x_views, (pk, k)), sharing(y_views, (pk, k)), sharing(x_views, (lk, k)),
                   sharing(y_views, (lk, k))]
            if all(got):
                found = (k, got)
                break
        if found is None:
            raise NoRationale("an H-bond atom is hidden in the reference view and no citable atom links it")
        seen, ((xi1, xs1), (yi1, _), (xi2, xs2), (yi2, _)) = found
        su, sv = F.pixel(A, seen, "hs")
        F.comp(V[xi1], seen, pk, "x", "rx1")
        F.comp(V[xi2], seen, lk, "x", "rx2")
        vx1 = F.calc("vx1", "rx1" if xs1 > 0 else "-rx1", 2)
        vx2 = F.calc("vx2", "rx2" if xs2 > 0 else "-rx2", 2)
        vy1, vy2 = F.comp(V[yi1], seen, pk, "y", "vy1"), F.comp(V[yi2], seen, lk, "y", "vy2")

        def where(k, sign):
            return f"image {k}" + (", mirrored" if sign < 0 else "")
        vx = F.calc("vx", "(vx1 + vx2) / 2", 2)
        vy = F.calc("vy", "(vy1 + vy2) / 2", 2)
        du = F.calc("du", "hs_u - width / 2", 1)
        dv = F.calc("dv", "hs_v - height / 2", 1)
        anchor_depth = A.xyz(seen)[2]
    else:
        raise NoRationale("the H-bond's atoms are not citable in the reference view")
    prec = float(p.get("precision", 1.0))
    want = {o["axis"]: float(o["value"]) for o in p["ops"]}
    bonds = ordered_bonds(A)
    bonds.sort(key=lambda t: (round(abs((A.xyz(t[0])[2] + A.xyz(t[1])[2]) / 2 - anchor_depth), 1), t))
    for a, b in bonds[:60]:
        F2 = Facts()
        F2.items, F2.values = list(F.items), dict(F.values)
        L, px, sc = scale_from_bond(F2, A, a, b, "bond")
        if F2.values["bond_px"] < 8:
            continue
        if hidden is None:
            ax = F2.calc("ax", "-du / bond_scale", 2)
            by = F2.calc("by", "dv / bond_scale", 2)
        else:
            ax = F2.calc("ax", "-(du / bond_scale + vx)", 2)
            by = F2.calc("by", "dv / bond_scale - vy", 2)
        va, vb = step_round(F2, "a", "ax", prec), step_round(F2, "b", "by", prec)
        if va is None or vb is None or (va, vb) != (want.get("x"), want.get("y")):
            continue
        F.items, F.values = F2.items, F2.values
        F.answer(rec["answer"])
        move = f"move x {format_number(va)}, move y {format_number(vb)}"
        if hidden is None:
            W.say("atoms", ref=ref, p=A.name(pk), l=A.name(lk), pu=pu, pv=pv, lu=lu, lv=lv, mu=mu, mv=mv)
            W.say("offset", width=w, height=h, du=du, dv=dv)
        else:
            W.say("atoms_hidden", ref=ref, seen=A.name(seen), p=A.name(pk), l=A.name(lk), u=su, v=sv,
                  vx1=vx1, vx2=vx2, vy1=vy1, vy2=vy2, vx=vx, vy=vy, x1img=where(xi1, xs1), y1img=where(yi1, 1),
                  x2img=where(xi2, xs2), y2img=where(yi2, 1))
            W.say("offset_hidden", width=w, height=h, du=du, dv=dv, seen=A.name(seen))
        W.say("scale", bond=f"{A.name(a)} – {A.name(b)}", length=L, px=px, scale=sc, ref=ref)
        W.say("move" if hidden is None else "move_hidden", ax=ax, by=by, precision=format_number(prec),
              a=format_number(va), b=format_number(vb), move=move, letter=rec["answer"], du=du, dv=dv, scale=sc,
              vx=fmt(F.values["vx"], 2) if hidden else "", vy=fmt(F.values["vy"], 2) if hidden else "")
        W.say("answer", answer=rec["answer"])
        return
    raise NoRationale("no bond near the H-bond's depth gives a scale that rounds to the answer")


def _view_number(rec, V, view: str, optional: bool = False) -> int | None:
    """The image showing canonical ``view``: its render description's ops are that view's."""
    from ..geometry import view_ops
    want = [o.as_dict() for o in view_ops(view)]
    for k in range(1, len(rec["images"]) + 1):
        if (V[k].car.get("description") or {}).get("ops", {}).get("all", []) == want:
            return k
    if optional:
        return None
    raise NoRationale(f"no image shows the {view} view")


__all__ = ["NoRationale", "acceptor_limit", "move_xy", "move_z", "roll", "choice", "redock", "residue_hbonds",
           "pocket_hbonds", "location"]
