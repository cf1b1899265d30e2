"""T9 pocket–ligand interaction: list every hydrogen bond (or, per spec, every residue forming
another interaction kind) between the pocket and the ligand, in the finder's order.
"""
from __future__ import annotations

from pathlib import Path

from ..registry import TaskType
from ..schema import REQUIRED, VIEWS, Enum, List, Map, difficulty_block
from ..shared.hbond import HB_KNOBS, HB_REJECTION, INTERACTION, KIND_FIELDS, hbonds_only
from .checks import GUESSERS, difficulty_part, features, list_answers, pocket_atoms
from .planner import PocketPlanner
from .program import PocketProgram
from .rationale import pocket_hbonds

ASK_OR_SKIP = Enum(("ask", "skip"))
SCHEMA = {"views": (List(VIEWS), REQUIRED), "interaction": INTERACTION,
          "without_interactions": (Map({"train": (ASK_OR_SKIP, "skip"), "test": (ASK_OR_SKIP, "ask")}), {}),
          "rejection": (HB_REJECTION, REQUIRED), "difficulty": difficulty_block(*HB_KNOBS)}

LEVELS = Path(__file__).with_name("levels.yaml")     # calibrated levels (calibrate-levels)

TASK_TYPES = (
    TaskType("pocket_ligand_interaction", PocketPlanner, SCHEMA, frozenset({"framing"}) | KIND_FIELDS, "pocket",
             features=features, paper_average=True,
             description="List every hydrogen bond between the pocket and the ligand.",
             rederive=hbonds_only(pocket_atoms, PocketProgram), audit=list_answers, guessers=GUESSERS,
             rationale=pocket_hbonds, difficulty=difficulty_part,
             level_features=("n_interactions", "hbond_margin", "reading_margin", "occlusion_max", "answer_named_share",
                             "labels_left_out_share", "label_density"),
             level_table=LEVELS, program=PocketProgram),
)
