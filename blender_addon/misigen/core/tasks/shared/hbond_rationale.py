"""The rationale readings the interaction-list tasks share (T4 residue–ligand, T9 pocket–ligand): each
interaction's distance estimated from two views (``core/rationale/estimates.py``) against its
criterion's limit, and for an H-bond the heavy-atom angle at the acceptor, also estimated.

A distance within the limit is quoted "within"; one past it by less than its reading error "at the
limit, as close as a reading can tell"; one further past it has no derivation from the images (the
record then has no rationale). Each bond's margin, in reading errors, goes to ``Facts.margins``.
"""
from __future__ import annotations

import numpy as np

from ...data_files import load_table
from ...rationale.estimates import (angle, depth_reading, distance, estimate_vector, margin_above, margin_below, midpoint,
                                    read_vector, reading_error, two_view, view_pair)
from ...rationale.scales import scale_near
from ...rationale.evidence import Fact, Facts, View, atom_key
from ...rationale.limits import MAX_NO, SHARED_PROTON, SLOP, acceptor_limit
from ...rationale.readings import NoRationale
from .hbond import POLAR, bond_keys


def _estimate(F: Facts, W, views: list[View], a: str, b: str, tag: str, what: str):
    """The a→b distance read from the images: (view pair or None, vector, distance text)."""
    try:
        vec, pair = estimate_vector(F, W, views, a, b, f"{tag}v")
    except NoRationale as exc:
        raise NoRationale(f"{what}: {exc}") from None
    return pair, vec, distance(F, vec, f"{tag}_d")


def _against_limit(F: Facts, name: str, limit_name: str, scales) -> str:
    """'hbond' (within the limit), 'near' (past it within a reading's error); NoRationale further out."""
    d, lim = F.values[name], F.values[limit_name]
    err = reading_error(F, d, scales, two_views=True)
    margin_below(F, d, lim, err)
    if d <= lim:
        return "within"
    if d <= lim + err:
        return "near"
    raise NoRationale("an interaction's estimated distance is past its limit by more than a reading's error")


def hbond_lines(F: Facts, W, views: list[View], bonds: list[dict], tag: str) -> None:
    for n, b in enumerate(bonds):
        pk, lk = bond_keys(b)
        t = f"{tag}{n}"
        donor, acceptor = (pk, lk) if b.get("donor") in ("protein", "shared") else (lk, pk)
        pair, vec, dist = _estimate(F, W, views, acceptor, donor, t, f"H-bond of {b['resname']} {b['resseq']}")
        scales, reading = vec.scales, W.phrase(vec.section, **vec.say)
        A = next(v for v in views if v.k == vec.images[0])
        if b.get("donor") == "shared":
            lim = F.add(Fact("limit", f"{t}_lim", SHARED_PROTON, 2, extra={"criterion": b["criterion"]}))
            side = _against_limit(F, f"{t}_d", f"{t}_lim", scales)
            W.say("shared" if side == "within" else "shared_near", reading=reading, dist=dist, limit=lim)
            continue
        got = acceptor_limit(b.get("criterion", ""))
        if got is None:
            raise NoRationale(f"unknown criterion {b.get('criterion')!r}")
        lim = F.add(Fact("limit", f"{t}_lim", got[0] + SLOP, 2, extra={"criterion": b["criterion"]}))
        side = _against_limit(F, f"{t}_d", f"{t}_lim", scales)
        ang = ""
        base = _acceptor_base(pair[0], pair[1], acceptor, donor) if pair is not None else None
        if base is not None:
            A, B, missing = pair
            vb = read_vector(F, W, A, B, missing, acceptor, base, f"{t}w", scales[0])
            deg = angle(F, vec, vb, f"{t}_ang")
            ang = W.phrase("angle", base=A.name(base), acceptor=A.name(acceptor), donor=A.name(donor),
                           du=vb.say["du"], dv=vb.say["dv"], dw=vb.say["dw"], img=A.k, img2=B.k, angle=deg)
        W.say("hbond" if side == "within" else "hbond_near", donor=A.name(donor), acceptor=A.name(acceptor),
              rule=got[1], reading=reading, dist=dist, limit=lim, angle=ang)


def _acceptor_base(A: View, B: View, acceptor: str, donor: str) -> str | None:
    """A heavy atom bonded to the acceptor and citable in both images (for the angle at it)."""
    i = A.row(acceptor)
    for a, b in A.bonds():
        j = b if a == i else a if b == i else None
        if j is None:
            continue
        k = atom_key(A.atoms[j])
        if A.atoms[j]["element"] != "H" and k != donor and A.citable(k) and B.citable(k):
            return k
    return None


def closest_polar_pair(F: Facts, W, views: list[View], rtext: str) -> None:
    """A residue without an H-bond: its closest N/O pair to the ligand (the structure says which; every
    view shows the same atoms), its distance estimated from two views, against the widest N/O limit."""
    v0 = views[0]
    prot = [atom_key(a) for a in v0.atoms if not a["ligand"] and a["element"] in POLAR]
    lig = [atom_key(a) for a in v0.atoms if a["ligand"] and a["element"] in POLAR]
    pairs = sorted((float(np.linalg.norm(v0.xyz(pk) - v0.xyz(lk))), pk, lk) for pk in prot for lk in lig)
    if not pairs:
        W.say("no_polar", residue=rtext)
        return
    _, pk, lk = pairs[0]
    _, vec, dist = _estimate(F, W, views, pk, lk, "n", "the closest N/O pair")
    A, scales = next(v for v in views if v.k == vec.images[0]), vec.scales
    lim = F.add(Fact("limit", "n_lim", MAX_NO + SLOP, 2, extra={"criterion": "widest N/O"}))
    d = F.values["n_d"]
    err = reading_error(F, d, scales, two_views=True)
    far = d > F.values["n_lim"]
    # a No is decided by distance only when the pair is out of reach; within it, by types and angles
    margin_above(F, d, F.values["n_lim"], err)
    W.say("none_far" if far else "none_near", p=A.name(pk), l=A.name(lk), reading=W.phrase(vec.section, **vec.say),
          dist=dist, limit=lim)


def kind_answer(rec, views, F: Facts, W, kind: str, found: list, residue: str | None) -> None:
    """Interaction kinds beyond H-bonds (residue-level answers): each interaction's two groups, cited by
    one labelled atom each, and the distance between the groups' centres (the pixel centres of their
    named atoms, as the finder measures it in 3D) estimated from two views, against the kind's limit. A
    'No' has no derivation from the images here (the groups that could interact are the finder's
    typing, not something drawn)."""
    if not found:
        raise NoRationale(f"no derivation of a 'No' for {kind}")
    limit = float(load_table("interactions/other_criteria.yaml")[kind]["max_distance"])
    W.say("kind_intro", kind=kind.replace("_", " "), n=len(found), residue=residue or "the pocket")
    for n, it in enumerate(found):
        res = f"P:{it['chain']}:{it['resseq']}{it['icode']}:"
        pk, lk = res + it["protein_atom"], f"L:{it['ligand_atom']}"
        pg, lg = tuple(res + a for a in it["protein_atoms"]), tuple(f"L:{a}" for a in it["ligand_atoms"])
        t = f"k{n}"
        pair = _group_pair(views, pk, lk, pg + lg)
        if pair is None:
            raise NoRationale(f"{kind}: no two views cite both groups and show all their atoms")
        A, B, missing = pair
        vec = read_group_vector(F, W, A, B, missing, pg, lg, f"{t}v", pk, lk)
        dist = distance(F, vec, f"{t}_d")
        lim = F.add(Fact("limit", f"{t}_lim", limit, 2, extra={"criterion": f"kind:{kind}"}))
        side = _against_limit(F, f"{t}_d", f"{t}_lim", vec.scales)
        W.say("kind_pair" if side == "within" else "kind_pair_near", p=A.name(pk), l=A.name(lk),
              pgroup=", ".join(it["protein_atoms"]), lgroup=", ".join(it["ligand_atoms"]),
              reading=W.phrase(vec.section, **vec.say), dist=dist, limit=lim)
    F.answer(rec["answer"])
    W.say("answer", answer=rec["answer"])


def _group_pair(views: list[View], pk: str, lk: str, atoms: tuple):
    """A view pair citing the groups' labelled atoms in which every atom of both groups is visible."""
    shown = [v for v in views if all(v.row(k) is not None and v.atoms[v.row(k)]["visible"] for k in atoms)]
    return view_pair(shown, (pk, lk))


def read_group_vector(F: Facts, W, A: View, B: View, missing: str, pg: tuple, lg: tuple, tag: str, pk: str, lk: str):
    """The vector between two groups' pixel centres, read as ``read_vector`` reads one between atoms (its
    scales where the groups' labelled atoms ``pk``, ``lk`` are)."""
    sa = scale_near(F, A, midpoint(A, (pk, lk)), f"{tag}_sa")
    for V, t in ((A, "a"), (B, "b")):
        for g, side in ((pg, "p"), (lg, "l")):
            for c in "uv":
                F.centre(V, "atoms", c, f"{tag}{t}{side}_{c}", atoms=g)
    F.calc(f"{tag}_du", f"{tag}al_u - {tag}ap_u", 1)
    F.calc(f"{tag}_dv", f"{tag}al_v - {tag}ap_v", 1)
    wc = depth_reading(B, missing)[0]
    sc = "v" if wc == "u" else "u"
    F.calc(f"{tag}_dw", f"{tag}bl_{wc} - {tag}bp_{wc}", 1)
    F.calc(f"{tag}_ds", f"{tag}bl_{sc} - {tag}bp_{sc}", 1)
    return two_view(F, W, A, B, missing, tag, sa, lambda: scale_near(F, B, midpoint(B, (pk, lk)), f"{tag}_sb"),
                    "the residue's group's centre", "the ligand's")


__all__ = ["hbond_lines", "closest_polar_pair", "kind_answer", "read_group_vector"]
