"""T7's program: the re-docking answer, the perturbation it undoes, and the grids it was drawn on."""
from __future__ import annotations

from dataclasses import dataclass

from ..program import Program, optional


@dataclass(frozen=True, kw_only=True)
class DockingProgram(Program):
    kind: str = "docking"
    ops: list = None                 # the answer: a roll, then a move
    perturbation: list = None        # what was done to the ligand (the answer undoes it)
    order: str = None
    centre: list = None
    ligand_centre: list = None       # the bound ligand's centre (world frame)
    displaced_ligand_centre: list = None
    side: str = None                 # left | right of the pocket
    roll_range: list = None          # [min, max] of the roll values
    move_range: list = None          # [min, max] of the moves
    roll_axes: list = None
    answer_space: int = None
    move_magnitude_range: list = None
    clearing_distance: float = None  # the whole Å that clears the pocket on this side
    extra: float = None              # the spec's extra beyond it
    replay_error: float = None       # Å: the parsed answer re-docks the ligand this closely
    balance_class: dict = None
    move_step: float = optional()    # the distance's step where ``values: fine`` halved it
