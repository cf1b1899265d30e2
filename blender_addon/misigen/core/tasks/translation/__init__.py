"""T1 translation: start views + the front after one ``move`` in the screen plane; which move?
Everything but its operation and rationale is the cloze family's (``shared/cloze.py``).
"""
from __future__ import annotations

from pathlib import Path

from ..shared.cloze import cloze_type
from .rationale import move_xy

LEVELS = Path(__file__).with_name("levels.yaml")     # calibrated levels (calibrate-levels)

TASK_TYPES = (
    cloze_type("translation", "Infer a translation of the complex in the screen plane.", "move", {"x", "y"},
               rationale=move_xy,
               level_features=("option_gap", "magnitude_share", "atoms_shown", "occlusion_front", "reading_margin",
                               "label_density"), level_table=LEVELS),
)
