"""T9's rationale: each H-bond of the pocket, its distance (and the angle at the acceptor) estimated
from two views against its rule's limit (other interaction kinds: each pair of groups against the
kind's limit)."""
from __future__ import annotations

from ...rationale.evidence import Facts
from ..shared.hbond_rationale import hbond_lines, kind_answer
from .program import PocketProgram


def pocket_hbonds(rec, V, F: Facts, W) -> None:
    p = PocketProgram.from_dict(rec["program"])
    views = [V[k] for k in range(1, len(rec["images"]) + 1)]
    if p.interaction != "hbond":
        return kind_answer(rec, views, F, W, p.interaction, p.interactions or [], None)
    bonds = p.hbonds or []
    W.say("intro", n=len(bonds), views=len(views))
    hbond_lines(F, W, views, bonds, "b")
    F.answer(rec["answer"])
    W.say("answer", answer=rec["answer"])
