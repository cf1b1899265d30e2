"""Protein–ligand interactions: H-bonds (ChimeraX `hbonds` definition) and beyond.

    from misigen.core.chemistry.interactions import find_interactions, Interaction, INTERACTION_KINDS, KINDS
    find_interactions(structure, kinds=("hbond", "salt_bridge"))   # slops: the criteria's relaxation

Each kind is one entry of ``KINDS`` (``kinds.py``: its detector, words and criteria). Criteria, sources
and the choices made on the reference's quirks: docs/INTERACTIONS.md. No bpy here.
"""
from __future__ import annotations

from .kinds import KINDS, InteractionKind
from .model import Interaction, format_table, sort_interactions

INTERACTION_KINDS = tuple(KINDS)

__all__ = ["INTERACTION_KINDS", "KINDS", "Interaction", "InteractionKind", "find_interactions", "format_table"]


def find_interactions(structure, kinds=("hbond",), relax=True, dist_slop=None,
                      angle_slop=None, definition=None, keep=()) -> list[Interaction]:
    """Protein – ligand interactions of the named kinds, sorted by (chain, resseq, icode,
    protein atom, ligand atom, kind). The protein side is ``structure.pocket_candidates(keep)``:
    protein residues, plus metals/cofactors when ``keep`` names them; waters, buffers/additives
    and other copies of the ligand are never partners (they still shape the chemistry: a metal
    near a planar N stops it donating). H-bond slops: None is the default relaxation
    (hbond_criteria.yaml); ``relax=False`` tests the precise values."""
    if isinstance(kinds, str):
        kinds = tuple(k.strip() for k in kinds.split(",") if k.strip())
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown interaction kind(s) {unknown}; choose from {INTERACTION_KINDS}")
    if not structure.ligand.any():
        return []
    from .atom_typing import type_structure
    from .other_interactions import Search
    T = type_structure(structure, definition=definition)
    search = Search(T, dist_slop, angle_slop) if relax else Search(T, 0.0, 0.0)
    out: list[Interaction] = []
    for kind in KINDS.values():
        if kind.name in kinds:
            out += kind.detect(search)
    partners = structure.pocket_candidates(keep)
    return sort_interactions([it for it in out if partners[it.protein_index]])
