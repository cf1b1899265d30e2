"""The task registry: the one place a task exists.

A ``TaskType`` carries every rule of one task: its spec keys and checks, its planner, its
prompt fields, its answer kind (how answers are read, put in canonical form and scored), its
composite rule and whether MiSI-Bench's average counts it, how ``validate`` re-derives its
answers from the sidecars, its audit guessers, its random baseline and its answer features
(for the manifest and the report). Pipeline commands ask the registry; none names a task.

One classification: a record's task type (``program["task_type"]``, else its task name) selects
its ``TaskType``; the type names its ``AnswerKind`` (``answer_kinds.py``), which a spec variant may
replace per record (``program["answer_kind"]``). ``program["kind"]`` stays in records as data for
readers; no code dispatches on it.

A task's folder (``core/tasks/<task>/``; a plugin's module) exports its types explicitly
(``TASK_TYPES = (TaskType(...), ...)``, and any new answer kinds as ``ANSWER_KINDS``); ``catalog.py``
builds the registry from the bundled folders, and a suite's ``modules:`` adds user modules the same
way (``Registry.add_module``). Importing a module registers nothing by itself. A user module's task
is left out of MiSI-Bench's "Avg." row unless its entry says ``paper_average=True``.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..errors import InputError
from .answer_kinds import ANSWER_KINDS, AnswerKind


@dataclass(frozen=True)
class TaskType:
    name: str
    planner: type                          # a ``base.Planner`` subclass
    schema: dict                           # spec keys beyond the common ones: key → (schema, default)
    fields: frozenset                      # prompt-template fields beyond the common ones
    answer_kind: str                       # how answers are parsed and scored (``answer_kinds.py``)
    check: Callable | None = None          # (data, path) → None; raises InputError on a bad spec
    distinct_answers: Callable | None = None   # data → how many distinct answers one complex can have
    features: Callable | None = None       # program → [(feature, value)] for the answer distribution
    description: str = ""
    # scoring: (strict, truth, program, exact) → composite in [0, 1]; None = the exact match
    composite: Callable | None = None
    paper_average: bool = False            # counted in MiSI-Bench's "Avg." row (its own tasks say True)
    # validate: (record, sidecar) → problems; ``sidecar(rel)`` gives a ``core.scene.sidecar.Sidecar`` or None
    rederive: Callable | None = None
    # audit: (records, rows, section, load_image) → None; adds this task's guessers to ``rows``
    audit: Callable | None = None
    guessers: tuple = ()                   # names (or regular expressions) of the guessers ``audit`` reports
    # necessity: program → (each option's steps, the correct option's index) or None; the audit then
    # measures how often each step is needed (``core/quality/necessity.py``); None = not a stepped choice task
    option_steps: Callable | None = None
    # baseline: (records of the task) → (record, rng, atoms) → a random answer; None = the answer kind's
    random_answer: Callable | None = None
    # training extras (``core/teaching.py``): (record, views, facts, writer) → None writes the step-by-step
    # rationale from the sidecars (the readings of ``core/rationale``); None = records without one
    rationale: Callable | None = None
    # (record, sidecars) → {feature: value} of this task's difficulty (``core/quality/difficulty.py``)
    difficulty: Callable | None = None
    # the difficulty features its level model may use (``calibrate-levels`` chooses among them on readers'
    # answers); without a model, the ones its ``level`` grades by fixed thresholds; None = the ``default``
    # list of ``core/data/difficulty.yaml``
    level_features: tuple | None = None
    # its level model (``core/quality/levels.py``; ``<folder>/levels.yaml``, fitted by ``calibrate-levels``
    # on the reader study's answers); None or a missing file: the fixed thresholds of ``core/data/difficulty.yaml``
    level_table: Path | None = None
    # its program type (``program.Program``): how every reader of the task reads ``record["program"]``
    program: type | None = None
    extra: dict = field(default_factory=dict)


class Registry:
    """Task types by name, in the order they were added, plus the answer kinds they use."""

    def __init__(self, modules=()):
        self.types: dict[str, TaskType] = {}
        self.kinds: dict[str, AnswerKind] = dict(ANSWER_KINDS)
        self.modules: dict[str, object] = {}         # module key → module (user modules once each)
        for m in modules:
            self.add_module(m)

    # ------------------------------------------------------------------ building
    def add(self, task: TaskType) -> TaskType:
        if task.name in self.types:
            raise ValueError(f"task {task.name!r} registered twice")
        if task.answer_kind not in self.kinds:
            raise ValueError(f"task {task.name!r}: unknown answer kind {task.answer_kind!r}")
        self.types[task.name] = task
        return task

    def add_module(self, module, key: str | None = None):
        """Add the ``ANSWER_KINDS`` and ``TASK_TYPES`` a module exports (once per module)."""
        key = key or module.__name__
        if key in self.modules:
            return module
        types = getattr(module, "TASK_TYPES", None)
        if not isinstance(types, (tuple, list)) or not all(isinstance(t, TaskType) for t in types):
            raise ValueError(f"module {key}: TASK_TYPES must be a tuple of TaskType")
        for kind in getattr(module, "ANSWER_KINDS", ()):
            if kind.name in self.kinds and self.kinds[kind.name] is not kind:
                raise ValueError(f"module {key}: answer kind {kind.name!r} defined twice")
            self.kinds[kind.name] = kind
        for t in types:
            self.add(t)
        self.modules[key] = module
        return module

    def load(self, ref: str, base: Path | None, where) -> None:
        """A suite's ``modules:`` entry: a file ``*.py`` (relative to ``base``, the suite's folder),
        or an importable module name (``my_tasks.distance``; the suite's folder is searched too)."""
        try:
            if ref.endswith(".py"):
                path = ((base or Path.cwd()) / ref).resolve()
                if not path.is_file():
                    raise InputError(where, f"modules: no such file {ref!r} (paths are relative to the suite's folder)")
                key = f"misigen_user_tasks.{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}_" \
                      f"{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
                if key in self.modules:
                    return
                spec = importlib.util.spec_from_file_location(key, path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[key] = module
                try:
                    spec.loader.exec_module(module)
                except BaseException:
                    del sys.modules[key]
                    raise
            else:
                key = ref
                if key in self.modules:
                    return
                added = base is not None and str(base) not in sys.path
                if added:
                    sys.path.insert(0, str(base))
                try:
                    module = importlib.import_module(ref)
                finally:
                    if added:
                        sys.path.remove(str(base))
            self.add_module(module, key)
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of user code is one clear input error
            raise InputError(where, f"modules: cannot load task module {ref!r} ({type(exc).__name__}: {exc})") from None

    # ------------------------------------------------------------------ asking
    def __contains__(self, name) -> bool:
        return name in self.types

    def __iter__(self):
        return iter(self.types)

    def __getitem__(self, name: str) -> TaskType:
        return self.types[name]

    def names(self) -> tuple:
        return tuple(self.types)

    def of(self, task_name: str, program: dict | None = None) -> TaskType:
        """The task type of a record's task (a spec variant names its type in the program)."""
        name = (program or {}).get("task_type", task_name)
        try:
            return self.types[name]
        except KeyError:
            raise ValueError(f"no scoring rule for task {name!r}: not a registered task (is the task module of "
                             f"its suite loaded?)") from None

    def kind_of(self, task_name: str, program: dict | None = None) -> AnswerKind:
        """How a record's answers are read and scored: the program's own kind when a spec variant
        changes it (interaction kinds beyond H-bonds), else its task type's."""
        if program and program.get("answer_kind"):
            return self.kinds[program["answer_kind"]]
        return self.kinds[self.of(task_name, program).answer_kind]

    def guessers(self, task_type: str) -> tuple:
        t = self.types[task_type]
        return t.guessers + self.kinds[t.answer_kind].guessers
