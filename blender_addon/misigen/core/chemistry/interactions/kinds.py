"""The interaction kinds the finder knows: one table, kind → its detector and its criteria.

The table's order is the order ``find_interactions`` runs them (and the order of
``INTERACTION_KINDS``). A kind's words (noun, plural) and the criterion its questions state are data
beside its numbers (``words`` in data/interactions/hbond_criteria.yaml and other_criteria.yaml).
Callers ask the table; nothing else lists the kinds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import other_interactions as other
from .hbond_rules import criteria
from .hbonds import find_hbonds


@dataclass(frozen=True)
class InteractionKind:
    name: str
    detect: Callable            # Search -> [Interaction] of this kind
    table: Callable[[], dict]   # its criteria (the values its words' criterion is formatted with)

    @property
    def noun(self) -> str:
        return self.table()["words"]["noun"]

    @property
    def plural(self) -> str:
        return self.table()["words"]["plural"]

    def criteria_text(self) -> str:
        """The criterion the ground truth uses, in words, with its numbers."""
        table = self.table()
        return table["words"]["criteria"].format(**table)

    def limit(self) -> float | None:
        """Its one distance limit (Å); None for H-bonds, whose limit is each acceptor rule's."""
        value = self.table().get("max_distance")
        return None if value is None else float(value)


def _hbond_table() -> dict:
    return {**criteria()["relaxation"], "words": criteria()["words"]}


def _hbonds(S) -> list:
    return find_hbonds(S.T, S.dist_slop, S.angle_slop)


def _other(kind: str) -> Callable[[], dict]:
    return lambda: other.other_criteria()[kind]


KINDS: dict[str, InteractionKind] = {k.name: k for k in (
    InteractionKind("hbond", _hbonds, _hbond_table),
    InteractionKind("salt_bridge", other.salt_bridges, _other("salt_bridge")),
    InteractionKind("pi_stacking", other.pi_stacking, _other("pi_stacking")),
    InteractionKind("cation_pi", other.cation_pi, _other("cation_pi")),
    InteractionKind("halogen_bond", other.halogen_bonds, _other("halogen_bond")),
    InteractionKind("metal", other.metal_coordination, _other("metal")),
    InteractionKind("hydrophobic", other.hydrophobic_contacts, _other("hydrophobic")),
)}


def kind(name: str) -> InteractionKind:
    if name not in KINDS:
        raise ValueError(f"unknown interaction kind {name!r}; choose from {tuple(KINDS)}")
    return KINDS[name]


__all__ = ["InteractionKind", "KINDS", "kind"]
