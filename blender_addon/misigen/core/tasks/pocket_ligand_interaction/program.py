"""T9's program: every interaction of the kind asked about between the pocket and the ligand."""
from __future__ import annotations

from dataclasses import dataclass

from ..program import Program, optional


@dataclass(frozen=True, kw_only=True)
class PocketProgram(Program):
    kind: str = "pocket_hbonds"
    interaction: str = "hbond"       # the spec's interaction kind
    centre: list = None
    # H-bonds: the atom-level answer
    hbonds: list = optional()        # ``answers.hbond_entry`` of each bond
    n_hbonds: int = optional()
    equivalent_atoms: list = optional()
    # other interaction kinds: the residues that form one
    answer_kind: str = optional()
    residues: list = optional()      # ``answers.residue_entry`` of each
    n_residues: int = optional()
    interactions: list = optional()  # ``Interaction.as_dict`` of each
