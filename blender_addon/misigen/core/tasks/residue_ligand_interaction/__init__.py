"""T4 residue–ligand interaction: does this residue form hydrogen bonds (or, per spec, another
interaction kind) with the ligand, and which atoms? Answers list bonds in the finder's order
(chain, resseq, icode, protein atom, ligand atom); other kinds answer Yes or No.
"""
from __future__ import annotations

from pathlib import Path

from ..registry import TaskType
from ..schema import REQUIRED, VIEWS, Enum, List, Map, Num, difficulty_block
from ..shared.hbond import HB_KNOBS, HB_REJECTION, INTERACTION, KIND_FIELDS, hbonds_only
from .checks import GUESSERS, difficulty_part, features, residue_atoms, residue_question
from .planner import ResiduePlanner
from .program import ResidueProgram
from .rationale import residue_hbonds

NEGATIVES = Map({"mode": (Enum(("paper", "matched")), "paper"),
                 "max_distance": (Num(0, positive=True), REQUIRED),
                 "match": (Map({"by": (List(Enum(("resname", "class"))), ["resname", "class"]),
                                "distance_tolerance": (Num(0), 1.0)}), {})})
SCHEMA = {"views": (List(VIEWS), REQUIRED), "interaction": INTERACTION, "negatives": (NEGATIVES, REQUIRED),
          "rejection": (HB_REJECTION, REQUIRED), "difficulty": difficulty_block(*HB_KNOBS)}

LEVELS = Path(__file__).with_name("levels.yaml")     # calibrated levels (calibrate-levels)

TASK_TYPES = (
    TaskType("residue_ligand_interaction", ResiduePlanner, SCHEMA, frozenset({"residue", "framing"}) | KIND_FIELDS,
             "residue", features=features, paper_average=True,
             description="Does this residue form hydrogen bonds with the ligand, and which atoms?",
             rederive=hbonds_only(residue_atoms, ResidueProgram), audit=residue_question, guessers=GUESSERS,
             rationale=residue_hbonds, difficulty=difficulty_part,
             level_features=("hbond_margin", "reading_margin", "n_interactions", "occlusion_max", "answer_named_share",
                             "label_density", "labels_left_out_share"),
             level_table=LEVELS, program=ResidueProgram),
)
