"""Protein–ligand interactions: H-bonds (ChimeraX `hbonds` definition) and beyond.

    from misigen.core.interactions import find_interactions, Interaction, INTERACTION_KINDS
    find_interactions(structure, kinds=("hbond",), relax=True, dist_slop=0.4, angle_slop=20.0)

Criteria, sources and the choices made on the reference's quirks: docs/INTERACTIONS.md.
No bpy here.
"""
from __future__ import annotations

from .model import Interaction, format_table, sort_interactions

INTERACTION_KINDS = ("hbond", "salt_bridge", "pi_stacking", "cation_pi", "halogen_bond", "metal",
                     "hydrophobic")

__all__ = ["INTERACTION_KINDS", "Interaction", "find_interactions", "format_table"]


def find_interactions(structure, kinds=("hbond",), relax=True, dist_slop=0.4,
                      angle_slop=20.0, definition=None, keep=()) -> list[Interaction]:
    """Protein – ligand interactions of the named kinds, sorted by (chain, resseq, icode,
    protein atom, ligand atom, kind). The protein side is ``structure.pocket_candidates(keep)``:
    protein residues, plus metals/cofactors when ``keep`` names them; waters, buffers/additives
    and other copies of the ligand are never partners (they still shape the chemistry: a metal
    near a planar N stops it donating)."""
    if isinstance(kinds, str):
        kinds = tuple(k.strip() for k in kinds.split(",") if k.strip())
    unknown = [k for k in kinds if k not in INTERACTION_KINDS]
    if unknown:
        raise ValueError(f"unknown interaction kind(s) {unknown}; choose from {INTERACTION_KINDS}")
    if not structure.ligand.any():
        return []
    from .atom_typing import type_structure
    T = type_structure(structure, definition=definition)
    out: list[Interaction] = []
    if "hbond" in kinds:
        from .hbonds import find_hbonds
        ds, as_ = (dist_slop, angle_slop) if relax else (0.0, 0.0)
        out += find_hbonds(T, ds, as_)
    others = [k for k in kinds if k != "hbond"]
    if others:
        from .other_interactions import find_other
        out += find_other(T, others)
    partners = structure.pocket_candidates(keep)
    return sort_interactions([it for it in out if partners[it.protein_index]])
