"""T6 rotation + rotation: the complex is turned twice; choose the option image that shows image 4
(the target, ``target: after_image``) after the same two turns once more. Everything but its two
steps is the option-grid family's (``shared/option_grid.py``).
"""
from __future__ import annotations

from pathlib import Path

from ..shared.option_grid import choice_type

LEVELS = Path(__file__).with_name("levels.yaml")     # calibrated levels (calibrate-levels)

TASK_TYPES = (
    choice_type("rotation_rotation", "Apply the two rotations seen on the reference to the target.",
                verbs=("roll", "roll"), level_features=("option_gap", "atoms_shown", "occlusion_front", "magnitude"), level_table=LEVELS),
)
