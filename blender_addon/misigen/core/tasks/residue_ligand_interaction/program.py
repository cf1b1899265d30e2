"""T4's program: the residue asked about, whether it interacts with the ligand, and its bonds."""
from __future__ import annotations

from dataclasses import dataclass

from ..program import Program, optional


@dataclass(frozen=True, kw_only=True)
class ResidueProgram(Program):
    kind: str = "residue_hbonds"
    residue: dict = None             # {chain, resseq, icode, resname}
    interaction: str = "hbond"       # the spec's interaction kind
    positive: bool = None            # the answer is Yes
    centre: list = None
    min_distance: float = None       # Å from its heavy atoms to the ligand's
    min_polar_distance: float = None  # ... from its N/O/S/P/halogen atoms to the ligand's
    negatives: str = None            # how No residues are drawn: paper | matched
    balance_class: dict = None
    # H-bonds: the atom-level answer
    has_hbond: bool = optional()
    hbonds: list = optional()        # ``answers.hbond_entry`` of each bond
    equivalent_atoms: list = optional()
    # other interaction kinds: a Yes/No answer
    answer_kind: str = optional()
    interactions: list = optional()  # ``Interaction.as_dict`` of each
