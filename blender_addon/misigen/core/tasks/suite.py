"""Suites (``task_specs/*.yaml``): the suite language (``SUITE``), loading (``load_suite``, the one
place a suite is read) and the frozen ``Suite`` it gives.

Readers of a suite setting ask the ``Suite`` (or, while planning one task, that task's
``settings``: the same frozen ``SuiteSettings``), never a copy of it. Pickled, a suite travels as
where it was loaded from, which tasks and levels it keeps: a process that receives it loads it
again, so the task modules it brings (``modules:``) are added to that process's registry too.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import InputError
from ..look.style import read_yaml
from ..chemistry.interactions.definitions import definition_names
from .catalog import REGISTRY
from .common import MISI_BENCH_TEST_FRACTION
from .schema import KNOBS, REQUIRED, Bool, Enum, Int, List, Map, Num, Str
from .settings import SuiteSettings, settings_of
from .spec import load_task_spec

KNOWN_SHORTCUT = Map({"task": (Str(), REQUIRED), "guesser": (Str(), REQUIRED), "reason": (Str(), REQUIRED)})
# necessity (core/quality/necessity.py): a step needed in fewer questions than min_needed fails the audit;
# magnitudes: per task, the least share of questions in which each step's magnitude must be needed
NECESSITY = Map({"min_needed": (Num(0, 1), 0.5),
                 "magnitudes": (List(Map({"task": (Str(), REQUIRED), "min_needed": (Num(0, 1), REQUIRED)}),
                                     min_len=0), [])})
SUITE = Map({
    "name": (Str(), REQUIRED),
    "description": (Str(), None),
    "tasks": (List(Str()), REQUIRED),
    "modules": (List(Str(), min_len=0), []),
    "split": (Map({"test_fraction": (Num(0, 1), MISI_BENCH_TEST_FRACTION)}), {}),
    "camera": (Map({"zoom_clearance": (Num(0), 4.0)}), {}),
    # which H-bond definition the ground truth uses (core/chemistry/interactions/definitions.py)
    "hbonds": (Map({"definition": (Enum(definition_names()), None)}), {}),
    # style options the suite's questions rely on, set on top of the --scene preset (unset: the preset's)
    "style": (Map({"scale_bar": (Map({"enabled": (Bool(), None)}), {})}), {}),
    # contact_atoms: pocket views also label every protein N/O within this many Å of a ligand atom (0: none);
    # polar_contacts_first: the labels of the pocket's polar contacts (N, O, S within this many Å) are
    # placed before all others (core/tasks/base.py, polar_contacts_first; 0: no such priority)
    "labels": (Map({"contact_atoms": (Num(0, 10), 0.0), "polar_contacts_first": (Num(0, 10), 0.0)}), {}),
    "audit": (Map({"margin": (Num(0, 1), 0.05), "confidence": (Num(0.5, 0.9999), 0.99),
                   "image_size": (Int(8, 512), 64),
                   "known_shortcuts": (List(KNOWN_SHORTCUT, min_len=0), []),
                   "necessity": (NECESSITY, {})}), {}),
    # difficulty knobs for every task that implements them (a task's own ``difficulty:`` block wins)
    "difficulty": (Map({k: (Enum(v), None) for k, v in KNOBS.items()}), {}),
    # The smallest image side (px) at which the suite's labels and view changes can be seen:
    # generate refuses a smaller --resolution (labels never shrink below the preset's min_size_px).
    "min_resolution": (Int(1, 16384), 128),
    # Rejected samples (a careful human could not answer them) up to this fraction of a task's
    # requested samples are recorded but do not make generate exit 3 (see README "exit codes").
    "rejection_budget": (Num(0, 1), 0.05),
})


@dataclass(frozen=True)
class Suite:
    """A loaded suite: its settings and the task specs it runs (all of them, or those a run
    selected), each narrowed to ``levels`` when given (``--level``)."""
    settings: SuiteSettings
    tasks: tuple = ()
    levels: tuple = ()

    @property
    def name(self) -> str:
        return self.settings.name

    @property
    def path(self) -> str:
        return self.settings.path

    @property
    def modules(self) -> tuple:
        return self.settings.modules

    def task_names(self) -> tuple:
        return tuple(t.name for t in self.tasks)

    def task(self, name: str):
        """The task spec called ``name``; KeyError if the suite has none."""
        for t in self.tasks:
            if t.name == name:
                return t
        raise KeyError(name)

    def only(self, names) -> "Suite":
        """The suite with only the tasks ``names`` (kept in suite order); InputError naming the
        unknown ones."""
        unknown = sorted(set(names) - set(self.task_names()))
        if unknown:
            raise InputError(self.path, f"unknown task(s) {', '.join(unknown)}; suite has "
                                        f"{', '.join(sorted(self.task_names()))}")
        return replace(self, tasks=tuple(t for t in self.tasks if t.name in set(names)))

    def with_levels(self, levels) -> "Suite":
        """``--level``: every task keeps only questions of ``levels`` (as each spec's ``levels`` key
        would; the spec hash, hence the run's identity, changes with it)."""
        if not levels:
            return self
        return replace(self, tasks=tuple(replace(t, data={**t.data, "levels": list(levels)}) for t in self.tasks),
                       levels=tuple(levels))

    def __reduce__(self):
        return load_suite, (self.path, self.task_names(), self.levels)


def load_suite(path, tasks=None, levels=()) -> Suite:
    """Load and validate a suite and every task spec and template it names, adding the task modules
    it brings to the registry; keep only the tasks named in ``tasks`` (None: all) and, with
    ``levels``, only questions of those levels (``Suite.with_levels``)."""
    path = Path(path)
    suite = _all_tasks(path).with_levels(levels)
    return suite.only(tasks) if tasks else suite


def _all_tasks(path: Path) -> Suite:
    raw = read_yaml(path)
    suite = SUITE.check(raw, path, "")
    for ref in suite["modules"]:
        REGISTRY.load(ref, path.parent.resolve(), path)
    # the optional settings stay unset (None, 0) when the suite leaves them so: other suites keep their hash
    knobs = {k: v for k, v in suite["difficulty"].items() if v is not None}
    style = suite["style"] if any(v is not None for vals in suite["style"].values() for v in vals.values()) else None
    settings = settings_of({
        "name": suite["name"], "path": str(path), "test_fraction": float(suite["split"]["test_fraction"]),
        "zoom_clearance": float(suite["camera"]["zoom_clearance"]), "audit": suite["audit"],
        "min_resolution": suite["min_resolution"], "modules": list(suite["modules"]),
        "rejection_budget": float(suite["rejection_budget"]), "hbond_definition": suite["hbonds"]["definition"],
        "style": style, "difficulty": knobs or None,
        "contact_atom_labels": float(suite["labels"]["contact_atoms"]),
        "polar_contact_labels_first": float(suite["labels"]["polar_contacts_first"])})
    tasks, names = [], set()
    for k, rel in enumerate(suite["tasks"]):
        tpath = (path.parent / rel)
        if not tpath.is_file():
            raise InputError(path, f"tasks[{k}]: no such spec file {rel!r}")
        spec = load_task_spec(tpath, settings)
        if spec.name in names:
            raise InputError(path, f"tasks[{k}]: task {spec.name!r} appears twice")
        names.add(spec.name)
        tasks.append(spec)
    types = {t.name: t.type for t in tasks}
    for k, ks in enumerate(suite["audit"]["known_shortcuts"]):
        if ks["task"] not in names:           # records carry the spec's name (variants included)
            raise InputError(path, f"audit.known_shortcuts[{k}].task: {ks['task']!r} is not a task of this suite "
                                   f"({', '.join(sorted(names))})")
        if not any(ks["guesser"] == p or re.fullmatch(p, ks["guesser"]) for p in REGISTRY.guessers(types[ks["task"]])):
            raise InputError(path, f"audit.known_shortcuts[{k}].guesser: {ks['guesser']!r} is not a guesser the "
                                   f"audit reports for {ks['task']}")
    for k, m in enumerate(suite["audit"]["necessity"]["magnitudes"]):
        if m["task"] not in names:
            raise InputError(path, f"audit.necessity.magnitudes[{k}].task: {m['task']!r} is not a task of this "
                                   f"suite ({', '.join(sorted(names))})")
    return Suite(settings, tuple(tasks))


def check_resolution(style: dict, suite: Suite) -> None:
    """InputError unless the style's image is at least the suite's ``min_resolution`` on each side."""
    w, h = (int(x) for x in style["render"]["resolution"])
    least = suite.settings.min_resolution
    if min(w, h) < least:
        raise InputError("--resolution", f"{w}x{h} is below {least} px, the smallest image side at which suite "
                                         f"{suite.name}'s labels and view changes can be seen (its "
                                         f"min_resolution); use --resolution {least} {least} or larger")


__all__ = ["Suite", "SUITE", "load_suite", "check_resolution"]
