"""The registry of the tasks misigen ships, one folder each (``core/tasks/<task>/``, its ``TASK_TYPES``),
in this order; suites add their own modules to it (``spec.load_suite``, ``modules:``)."""
from __future__ import annotations

from . import (docking, interaction_location, pocket_ligand_interaction, residue_ligand_interaction, rotation,
               rotation_rotation, translation, translation_rotation, zooming)
from .registry import Registry

BUILTIN_MODULES = (
    translation,                  # T1
    rotation,                     # T2
    zooming,                      # T3
    residue_ligand_interaction,   # T4
    pocket_ligand_interaction,    # T9
    interaction_location,         # T8
    translation_rotation,         # T5
    rotation_rotation,            # T6
    docking,                      # T7
)
REGISTRY = Registry(BUILTIN_MODULES)


def task_type(name: str):
    return REGISTRY[name]


def task_names() -> tuple:
    return REGISTRY.names()


def answer_kind(name: str, program: dict | None = None) -> str:
    """The name of a task's (a record's, given its program) answer kind."""
    return REGISTRY.kind_of(name, program).name
