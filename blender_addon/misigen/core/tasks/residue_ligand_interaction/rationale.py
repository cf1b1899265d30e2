"""T4's rationale: each H-bond of the residue with its distance and angle against its rule's limit;
for a No, the residue's closest N/O pair to the ligand against the widest N/O limit."""
from __future__ import annotations

import numpy as np

from ...rationale.evidence import Fact, Facts, atom_key
from ...rationale.limits import MAX_NO, SLOP
from ...rationale.readings import NoRationale, cite_somewhere
from ..shared.hbond import POLAR, hbond_lines, kind_answer
from .program import ResidueProgram


def residue_hbonds(rec, V, F: Facts, W) -> None:
    p = ResidueProgram.from_dict(rec["program"])
    views = [V[k] for k in range(1, len(rec["images"]) + 1)]
    res = p.residue
    rtext = f"{res['resname']} {res['resseq']}{res['icode']}"
    if p.interaction != "hbond":
        return kind_answer(rec, views, F, W, p.interaction, p.interactions or [], rtext)
    bonds = p.hbonds or []
    W.say("intro", residue=rtext, n=len(views))
    if bonds:
        hbond_lines(F, W, views, bonds, "b")
    else:
        _closest_polar_pair(F, W, views, rtext)
    F.answer(rec["answer"])
    W.say("answer", answer=rec["answer"])


def _closest_polar_pair(F: Facts, W, views, rtext: str) -> None:
    """The closest N/O pair of residue and ligand (every view shows the same atoms), each atom cited
    where it is visible and labelled, against the widest N/O limit."""
    v0 = views[0]
    prot = [atom_key(a) for a in v0.atoms if not a["ligand"] and a["element"] in POLAR]
    lig = [atom_key(a) for a in v0.atoms if a["ligand"] and a["element"] in POLAR]
    pairs = sorted((float(np.linalg.norm(v0.xyz(pk) - v0.xyz(lk))), pk, lk) for pk in prot for lk in lig)
    if not pairs:
        W.say("no_polar", residue=rtext)
        return
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
