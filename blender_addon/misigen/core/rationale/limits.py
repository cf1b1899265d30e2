"""The H-bond distance limits a rationale quotes and ``replay`` checks: the precise limit of the
acceptor rule the finder matched (``core/data/interactions/hbond_criteria.yaml``), relaxed by
ChimeraX's default slop, and the limits of the two cases without one rule.
"""
from __future__ import annotations

import re

from ..data_files import load_table

SLOP = 0.4            # Å: ChimeraX's default distance relaxation (the prompt states it)
SHARED_PROTON = 2.65  # Å: a shared proton's limit, not relaxed (hbond_criteria.yaml)
MAX_NO = 3.53         # Å: the widest precise N/O acceptor limit of the criteria (before the relaxation)


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


__all__ = ["SLOP", "SHARED_PROTON", "MAX_NO", "acceptor_limit"]
