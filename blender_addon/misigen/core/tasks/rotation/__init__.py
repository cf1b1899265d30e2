"""T2 rotation: start views + the front after one ``roll`` about a screen axis through the complex's
centre; which roll? Everything but its operation and rationale is the cloze family's
(``shared/cloze.py``).
"""
from __future__ import annotations

from pathlib import Path

from ..shared.cloze import cloze_type
from .rationale import roll

LEVELS = Path(__file__).with_name("levels.yaml")     # calibrated levels (calibrate-levels)

TASK_TYPES = (
    cloze_type("rotation", "Infer a rotation of the complex about a screen axis through its centre.", "roll",
               {"x", "y", "z"}, rationale=roll,
               level_features=("option_gap", "magnitude_share", "atoms_shown", "occlusion_front", "reading_margin",
                               "label_density"), level_table=LEVELS),
)
