"""The H-bond distance limits a rationale quotes and ``replay`` checks: the precise limit of the
acceptor rule the finder matched, relaxed by ChimeraX's default slop, and the limits of the two
cases without one rule. Every number is read from ``core/data/interactions/hbond_criteria.yaml``
(``core.chemistry.interactions.hbond_limits``).
"""
from __future__ import annotations

from ..chemistry.interactions.hbond_limits import criterion_limit, relaxation, shared_proton_limit, widest_limit

SLOP = relaxation()["distance"]           # Å: ChimeraX's default distance relaxation (the prompt states it)
SHARED_PROTON = shared_proton_limit().distance   # Å: a shared proton's limit, not relaxed
MAX_NO = widest_limit("NO")               # Å: the widest precise N/O acceptor limit (before the relaxation)


def acceptor_limit(criterion: str) -> tuple[float, str] | None:
    """The precise distance limit (Å) of the acceptor rule the finder matched, and its name."""
    got = criterion_limit(criterion)
    return (got.distance, got.rule) if got is not None and got.relaxed else None


__all__ = ["SLOP", "SHARED_PROTON", "MAX_NO", "acceptor_limit"]
