"""The registry of the tasks misigen ships, built from the task modules' ``TASK_TYPES`` (in this
order); suites add their own modules to it (``spec.load_suite``, ``modules:``)."""
from __future__ import annotations

from . import cloze_moves, docking, hbond_questions, interaction_location, option_choice
from .registry import Registry

# T1 translation, T2 rotation, T3 zooming; T4 residue–ligand; T8 interaction location; T9 pocket–ligand;
# T5 translation + rotation, T6 rotation + rotation; T7 docking
BUILTIN_MODULES = (cloze_moves, hbond_questions, interaction_location, option_choice, docking)
REGISTRY = Registry(BUILTIN_MODULES)


def task_type(name: str):
    return REGISTRY[name]


def task_names() -> tuple:
    return REGISTRY.names()


def answer_kind(name: str, program: dict | None = None) -> str:
    """The name of a task's (a record's, given its program) answer kind."""
    return REGISTRY.kind_of(name, program).name
