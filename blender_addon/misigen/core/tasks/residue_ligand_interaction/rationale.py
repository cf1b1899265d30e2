"""T4's rationale: each H-bond of the residue, its distance (and the angle at the acceptor) estimated
from two views against its rule's limit; for a No, the residue's closest N/O pair to the ligand,
estimated alike, against the widest N/O limit."""
from __future__ import annotations

from ...rationale.evidence import Facts
from ..shared.hbond_rationale import closest_polar_pair, hbond_lines, kind_answer
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
        closest_polar_pair(F, W, views, rtext)
    F.answer(rec["answer"])
    W.say("answer", answer=rec["answer"])
