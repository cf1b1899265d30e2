"""T8 interaction location: which of 2–4 move options brings a named hydrogen bond (or, per spec,
another interaction's centre) to the centre of the screen? A choice task with text options.
"""
from __future__ import annotations

from pathlib import Path

from ...errors import InputError
from ...quality.necessity import option_steps
from .. import guessers
from ..registry import TaskType
from ..schema import REQUIRED, VIEWS, Bool, Enum, Int, List, Map, Num, difficulty_block, rejection
from ..shared.hbond import HB_KNOBS, INTERACTION, KIND_FIELDS, hbonds_only
from .checks import centred_bond, difficulty_part, features
from .planner import LocationPlanner
from .program import LocationProgram
from .rationale import location

SCHEMA = {"views": (List(VIEWS), REQUIRED), "interaction": INTERACTION,
          "after_view": (VIEWS, "front"),
          "options": (Int(2, 4), 4),
          "precision": (Num(0.001), 1.0),     # answers are written with at most 3 decimals
          "min_offset": (Num(0), REQUIRED),
          "distractors": (Map({"design": (Enum(("product", "paper")), "product"),
                               "product": (Map({"try_magnitude": (Num(0, 1), 1.0),
                                                "magnitude_steps": (List(Num(positive=True)), [2.0, 3.0]),
                                                "magnitude_prior": (List(List(Num(0), 2, 2, unique=False), min_len=0),
                                                                    [])}), {}),
                               "sign_flips": (Bool(), True), "scales": (List(Num(positive=True), min_len=0), []),
                               "offsets": (List(Num(positive=True), min_len=0), []),
                               "min_gap": (Num(0), REQUIRED)}), REQUIRED),
          # other_poses: [roll y, roll x] degrees, start poses tried in order once the start pose has no
          # answerable H-bond left (none: samples are rejected instead)
          "rejection": (rejection(require_visible=(Bool(), True), require_labels=(Bool(), True),
                                  other_poses=(List(List(Num(-180, 180), 2, 2, unique=False), min_len=0), [])),
                        REQUIRED),
          # decoys: near makes a magnitude partner |v| ± precision (and min_gap the precision)
          "difficulty": difficulty_block("decoys", *HB_KNOBS)}


def check(d: dict, path) -> None:
    dd = d["distractors"]
    if d["after_view"] not in d["views"]:
        raise InputError(path, f"after_view: {d['after_view']!r} must be one of views {d['views']}")
    if dd["design"] == "product":
        if d["options"] != 4:
            raise InputError(path, "options: the 2×2 product design has exactly 4 options")
        pd = dd["product"]
        if pd["try_magnitude"] > 0 and min(pd["magnitude_steps"]) < dd["min_gap"]:
            raise InputError(path, f"distractors.product.magnitude_steps: each must be at least min_gap "
                                   f"({dd['min_gap']} Å), or magnitude options would sit too close")
    elif d["options"] - 1 > (3 if dd["sign_flips"] else 0) + 2 * len(dd["scales"]) + len(dd["scales"]) ** 2 + \
            4 * len(dd["offsets"]):
        raise InputError(path, "distractors: too few sign flips, scales and offsets for the number of options")


LEVELS = Path(__file__).with_name("levels.yaml")     # calibrated levels (calibrate-levels)

TASK_TYPES = (
    TaskType("interaction_location", LocationPlanner, SCHEMA,
             frozenset({"hbond", "options_text", "reference", "precision", "framing", "centre_rule"}) | KIND_FIELDS,
             "letter", check=check, features=features, paper_average=True,
             description="Which translation centres the named hydrogen bond on screen?",
             rederive=hbonds_only(centred_bond, LocationProgram), audit=guessers.option_texts,
             guessers=guessers.TEXT_GUESSERS, option_steps=option_steps, rationale=location,
             difficulty=difficulty_part,
             level_features=("option_gap", "occlusion_front", "answer_named_share", "magnitude", "label_density", "reading_margin"),
             level_table=LEVELS, program=LocationProgram),
)
