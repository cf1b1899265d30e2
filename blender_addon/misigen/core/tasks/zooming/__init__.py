"""T3 zooming: start views + the front after one ``move z`` (toward the viewer); how far? Its front
camera stands back far enough for the largest move (``planner.py``); the rest is the cloze family's
(``shared/cloze.py``). Its composite is its exact match (MiSI-Bench scores it by accuracy).
"""
from __future__ import annotations

from pathlib import Path

from ..shared.cloze import cloze_type
from .planner import ZoomingPlanner
from .rationale import move_z

LEVELS = Path(__file__).with_name("levels.yaml")     # calibrated levels (calibrate-levels)

TASK_TYPES = (
    cloze_type("zooming", "Infer how far the complex moved toward the viewer.", "move", {"z"}, rationale=move_z,
               level_features=("option_gap", "magnitude_share", "atoms_shown", "reading_margin", "label_density"), level_table=LEVELS,
               planner=ZoomingPlanner,
               composite_score=None),
)
