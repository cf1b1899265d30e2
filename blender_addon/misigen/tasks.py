"""misigen's public task API: what a task defined outside the package (a plugin) builds on.

    from misigen.tasks import Planner, Planned, Rejected, TaskType, REQUIRED, VIEWS, Num, rejection

    class MyPlanner(Planner):
        def setup(self): ...                          # once per complex; raise Unavailable if it cannot
        def make(self, index, rng, why) -> Planned: ...   # one sample; raise Rejected for a bad draw

    TASK_TYPES = (TaskType("my_task", MyPlanner, {"view": (VIEWS, "front"), "rejection": (rejection(), REQUIRED)},
                           frozenset({"my_field"}), "letter", rederive=..., audit=...),)

A suite lists the plugin's file or module under ``modules:``; every command then handles it
(``examples/custom_task/`` is a worked example). A plugin task is left out of MiSI-Bench's "Avg."
row unless its entry says ``paper_average=True``.

This module only re-exports: each name is a stable alias of one in ``core``, whose other internals may
change. It needs no Blender.
"""
from __future__ import annotations

from .core.errors import InputError
from .core.scene.labels import LabelPlan, atom_id, ligand_atom_id, residue_id
from .core.op_grammar import Op, format_number, format_ops, parse_ops
from .core.rationale.evidence import Fact, Facts, View, atom_key, fmt
from .core.rationale.estimates import distance, estimate_vector, margin_rounding, quote_error, reading_error
from .core.rationale.readings import (NoRationale, cite_somewhere, nearest_view, ops_text, ordered_bonds,
                                      scale_from_bond, step_round, view_number)
from .core.rationale.scales import scale_near
from .core.scene.sidecar import Sidecar
from .core.tasks.answer_kinds import AnswerKind
from .core.tasks.base import Planner, Unavailable
from .core.tasks.common import COMPLEX, LETTERS, Planned, Rejected, balanced_order, range_values, rnd
from .core.tasks.guessers import (IMAGE_GUESSERS, LETTER_GUESSERS, OPS_GUESSERS, TEXT_GUESSERS, letters,
                                  ops_majorities, option_images, option_texts)
from .core.tasks.program import Program, optional
from .core.tasks.prompts import framing_text, values_text, view_text
from .core.tasks.registry import TaskType
from .core.tasks.schema import AXIS, OPERATION, REQUIRED, VIEWS, Bool, Enum, Int, List, Map, Num, Range, Str, rejection

__all__ = [
    # planning
    "Planner", "Unavailable", "Planned", "Rejected", "balanced_order", "range_values", "rnd", "COMPLEX", "LETTERS",
    # the registry entry, its answer kind and its program type
    "TaskType", "AnswerKind", "Program", "optional",
    # the spec schema
    "REQUIRED", "VIEWS", "AXIS", "OPERATION", "Num", "Int", "Bool", "Enum", "List", "Map", "Range", "Str", "rejection",
    "InputError",
    # prompts, labels and commands
    "view_text", "values_text", "framing_text", "LabelPlan", "atom_id", "ligand_atom_id", "residue_id",
    "Op", "format_ops", "parse_ops", "format_number",
    # rationales: what a builder may cite and quote (pixel readings, px/Å scales, estimates from them)
    "Facts", "Fact", "View", "NoRationale", "atom_key", "fmt", "ordered_bonds", "scale_from_bond", "step_round",
    "nearest_view", "cite_somewhere", "ops_text", "view_number", "scale_near", "estimate_vector", "distance",
    "reading_error", "quote_error", "margin_rounding",
    # validate and audit: the sidecar reader and the shared blind guessers
    "Sidecar", "letters", "ops_majorities", "option_texts", "option_images", "LETTER_GUESSERS", "OPS_GUESSERS",
    "TEXT_GUESSERS", "IMAGE_GUESSERS",
]
