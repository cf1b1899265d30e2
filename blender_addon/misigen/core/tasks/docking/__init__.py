"""T7 docking: put the displaced ligand back into its pocket. Pocket alone, ligand alone (turned
about its own centre, moved beside the pocket), both together; the answer is the roll, then the
move, that re-dock it.
"""
from __future__ import annotations

from pathlib import Path

from ...errors import InputError
from .. import guessers
from ..common import range_values
from ..registry import TaskType
from ..schema import REQUIRED, AXIS, VIEWS, Bool, Enum, List, Map, Num, Range, asked_range, difficulty_block, rejection
from ..shared.cloze import ops_features
from .checks import composite, difficulty_part, feature_space, random_space, redock
from .planner import DockingPlanner
from .program import DockingProgram
from .rationale import redock as redock_rationale

SCHEMA = {
    "pocket_views": (List(VIEWS), REQUIRED),
    "ligand_views": (List(VIEWS), REQUIRED),
    "combined_view": (Enum(("front",)), "front"),
    # lining: show only the residues with a heavy atom within this many Å of the ligand (0: the whole
    # pocket); open_front: each pocket view leaves out the lining residues in front of the site;
    # site_marker: a ring where the ligand's centre sat, in the pocket and combined views (null: none),
    # `radius` Å at that depth: the scale for the move
    "pocket": (Map({"lining": (Num(0), 0), "open_front": (Bool(), False),
                    "site_marker": (Map({"radius": (Num(positive=True), 2.0),
                                         "thickness_px": (Num(positive=True), 2.0)}), None)}), {}),
    "rotation": (Map({"axes": (List(AXIS), REQUIRED), "values": (Range(nonzero=True), REQUIRED)}), REQUIRED),
    "displacement": (Map({"axis": (Enum(("x",)), "x"), "extra": (Range(), REQUIRED),
                          "sides": (List(Enum(("left", "right"))), ["left", "right"])}), REQUIRED),
    "rejection": (rejection(min_clash_distance=(Num(0), REQUIRED), min_screen_gap=(Num(-1, 1), REQUIRED),
                            min_rotation_view=(Num(0, 1), REQUIRED)), REQUIRED),
    # values: fine asks the distance at half its step (0.5 Å with the defaults); the rolls keep theirs
    # (7.5° turns of a small ligand fail the symmetric-ligand check)
    "difficulty": difficulty_block("values"),
}
FIELDS = frozenset({"displacement_axis", "rotation_range", "distance_range", "framing", "pocket_cut"})


def check(d: dict, path) -> None:
    if any(v != int(v) for v in range_values(d["displacement"]["extra"])):
        raise InputError(path, "displacement.extra: whole Å values (the clearing distance is a whole number)")


def distinct(d: dict) -> int:
    return len(d["rotation"]["axes"]) * len(range_values(d["rotation"]["values"])) * \
        len(d["displacement"]["sides"]) * len(range_values(asked_range(d["displacement"]["extra"], d)))


LEVELS = Path(__file__).with_name("levels.yaml")     # calibrated levels (calibrate-levels)

TASK_TYPES = (
    TaskType("docking", DockingPlanner, SCHEMA, FIELDS, "ops", check=check, distinct_answers=distinct,
             features=ops_features, description="Put the displaced ligand back into its pocket.", composite=composite,
             paper_average=True, rederive=redock, audit=guessers.ops_majorities(feature_space),
             guessers=guessers.OPS_GUESSERS, random_answer=random_space, rationale=redock_rationale,
             difficulty=difficulty_part, level_features=("option_gap", "occlusion_max", "atoms_shown", "magnitude", "reading_margin"),
             level_table=LEVELS, program=DockingProgram),
)
