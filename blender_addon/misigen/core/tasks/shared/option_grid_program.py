"""The program of T5 and T6: the true two-step program, the images' roles and the option grid."""
from __future__ import annotations

from dataclasses import dataclass

from ..program import Program, optional


@dataclass(frozen=True, kw_only=True)
class ChoiceProgram(Program):
    kind: str = "choice"
    ops: list = None                 # the true program (two steps)
    answer_text: str = None
    image_roles: list = None         # each image's role: start views, "reference after", "target <view>"
    centre: list = None
    target: str = None               # other_complex | after_image
    after_view: str = None
    design: str = None               # options: product | paper
    correct: str = None              # the correct option's letter
    options: list = None             # [{letter, ops, text, correct}] in A–D order
    min_option_rmsd: float = None    # Å between the two closest options
    grid: list = optional()          # product design: the 2×2 grid, the truth first
    changes: list = optional()       # ... the change each factor made
    scheme: str = optional()         # paper design: the distractor scheme
    target_structure: str = optional()   # other_complex: the target complex
    target_centre: list = optional()
