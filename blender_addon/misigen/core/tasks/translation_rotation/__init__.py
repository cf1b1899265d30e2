"""T5 translation + rotation: the reference complex is moved, then turned; choose the option image
that shows another complex of the run (the target, ``target: other_complex``) after the same two
steps. Everything but its two steps is the option-grid family's (``shared/option_grid.py``).
"""
from __future__ import annotations

from pathlib import Path

from ..shared.option_grid import choice_type

LEVELS = Path(__file__).with_name("levels.yaml")     # calibrated levels (calibrate-levels)

TASK_TYPES = (
    choice_type("translation_rotation", "Apply the translation + rotation seen on the reference to the target.",
                verbs=("move", "roll"), level_features=("option_gap", "atoms_shown", "occlusion_front", "magnitude"), level_table=LEVELS),
)
