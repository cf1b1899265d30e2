"""T8's program: the named interaction, the moves that centre it, and the options."""
from __future__ import annotations

from dataclasses import dataclass

from ..program import Program, optional


@dataclass(frozen=True, kw_only=True)
class LocationProgram(Program):
    kind: str = "location"
    interaction: str = "hbond"       # the spec's interaction kind
    hbond: dict = None               # ``answers.hbond_entry`` (other kinds: ``Interaction.as_dict``)
    midpoint_camera_xyz: list = None  # its centre in the reference view's camera frame
    ops: list = None                 # the correct moves (x, then y)
    answer_text: str = None
    residual_camera_xy: list = None  # where those moves leave the centre (rounding)
    precision: float = None          # the moves' step (Å)
    correct: str = None              # the correct option's letter
    centre: list = None
    view: str = None                 # the reference view
    design: str = None               # options: product | paper
    options: list = None             # [{letter, ops, text, correct}] in A–D order
    grid: list = optional()          # product design: the 2×2 grid, the truth first
    changes: list = optional()       # ... the change each factor made
