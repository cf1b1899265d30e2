"""One registry entry per task: how its spec is checked, how it is planned, how it is answered.

Adding a task = one module that defines a planner and calls ``register(TaskType(...))``, plus
its line in ``catalog.py`` (CLEVR's template metadata and Kubric's registered handlers are the
models). Nothing else in the package lists task names.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

ANSWER_KINDS = ("ops", "residue", "pocket", "letter", "yesno", "residues")


@dataclass(frozen=True)
class TaskType:
    name: str
    planner: type                          # a ``base.Planner`` subclass
    schema: dict                           # spec keys beyond the common ones: key → (schema, default)
    fields: frozenset                      # prompt-template fields beyond the common ones
    answer_kind: str                       # how answers are parsed and scored (ANSWER_KINDS)
    check: Callable | None = None          # (data, path) → None; raises InputError on a bad spec
    distinct_answers: Callable | None = None   # data → how many distinct answers one complex can have
    features: Callable | None = None       # program → [(feature, value)] for the answer distribution
    description: str = ""
    extra: dict = field(default_factory=dict)


REGISTRY: dict[str, TaskType] = {}


def register(task: TaskType) -> TaskType:
    if task.name in REGISTRY:
        raise ValueError(f"task {task.name!r} registered twice")
    if task.answer_kind not in ANSWER_KINDS:
        raise ValueError(f"task {task.name!r}: unknown answer kind {task.answer_kind!r}")
    REGISTRY[task.name] = task
    return task


def task_type(name: str) -> TaskType:
    from . import catalog  # noqa: F401  (importing the catalog registers every task)
    return REGISTRY[name]


def task_names() -> tuple:
    from . import catalog  # noqa: F401
    return tuple(REGISTRY)


def answer_kind(name: str, program: dict | None = None) -> str:
    """How a task's answers are parsed and scored: the program's own kind when a spec variant
    changes it (interaction kinds beyond H-bonds), else the task type's."""
    if program and program.get("answer_kind"):
        return program["answer_kind"]
    return task_type(program.get("task_type", name) if program else name).answer_kind
