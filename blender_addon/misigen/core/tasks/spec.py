"""Task specs (``task_specs/*.yaml``) and suites: loading and validation.

Every parameter that shapes the data lives in a spec. A problem (unknown key, wrong type,
empty range, impossible count, bad template field) raises ``InputError(file, "key: reason")``
before anything is planned or rendered. Each task's own keys and checks come from its
registry entry (``registry.py``).

A suite may bring its own tasks: ``modules:`` lists Python files (``*.py``, relative to the suite's
folder) or importable module names; each exports ``TASK_TYPES`` (``registry.TaskType``), which are
added to the registry before the suite's specs are read. Dataset commands (validate, score, audit,
baseline, export, report) load the same modules from the suite the dataset's manifest names
(``load_dataset_modules``).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..resources import task_specs_dir
from ..look.style import read_yaml
from ..chemistry.interactions.definitions import definition_names
from .catalog import REGISTRY, task_names, task_type
from .common import MISI_BENCH_TEST_FRACTION
from .schema import KNOBS, REQUIRED, Bool, Enum, Int, List, Map, Num, Str, check_template, merge_knobs

REPO_TASK_SPECS = task_specs_dir()     # bundled specs: package data, or the checkout's task_specs/

COMMON = {
    "task": (Str(), REQUIRED),
    "name": (Str(), None),          # the task's name in records when it differs from its type (variants)
    "description": (Str(), None),
    "prompt": (Str(), REQUIRED),
    "answer_format": (Str(), REQUIRED),
    "samples": (Map({"train": (Int(0, 10000), REQUIRED), "test": (Int(0, 10000), REQUIRED)}), REQUIRED),
    "labels": (Bool(), True),
    "rationale": (Str(), None),     # rationale template (default: prompts/<task>_rationale.txt beside the prompt)
    "levels": (List(Enum(("easy", "medium", "hard"))), None),   # keep only questions of these levels
}
# Named fields every prompt template may use (str.format_map on exactly these + the task's own).
BASE_FIELDS = frozenset({"structure", "ligand", "n_images", "image_list", "colours", "frame_rules",
                         "command_grammar", "answer_format"})

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


NOT_HASHED = ("path", "modules", "min_resolution", "rejection_budget")


@dataclass
class TaskSpec:
    name: str                 # the task's name in records: the spec's ``name``, else its ``task`` (type)
    path: Path                # the spec file
    data: dict                # validated spec, defaults filled in
    template: str             # prompt template text
    template_path: Path
    suite: dict = field(default_factory=dict)    # suite name, split, camera and audit settings
    type: str = ""            # the registry entry (the spec's ``task``); "" = same as name
    rationale: dict | None = None   # rationale template sections (``core.rationale``); None: no rationales
    rationale_text: str = ""

    def __post_init__(self):
        self.type = self.type or self.name

    def __getitem__(self, key):
        return self.data[key]

    @property
    def spec_hash(self) -> str:
        # where the suite is, its module list and its refusal/exit rules do not change what is planned
        settings = {k: v for k, v in self.suite.items() if k not in NOT_HASHED}
        # a spec without knobs (``difficulty`` None) hashes as it did before knobs existed
        data = {k: v for k, v in self.data.items() if not (k == "difficulty" and v is None)}
        blob = json.dumps({"data": data, "template": self.template, "suite": settings,
                           **({"rationale": self.rationale_text} if self.rationale_text else {})},
                          sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def samples(self, split: str) -> int:
        return int(self.data["samples"][split])


def load_task_spec(path, suite: dict | None = None) -> TaskSpec:
    path = Path(path)
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise InputError(path, "spec: expected a mapping")
    name = raw.get("task")
    if name not in task_names():
        raise InputError(path, f"task: {name!r} is not one of {', '.join(task_names())}")
    tt = task_type(name)
    data = Map({**COMMON, **tt.schema}).check(raw, path, "")
    if "difficulty" in tt.schema:
        merge_knobs(data, (suite or {}).get("difficulty"), tt.schema["difficulty"][0])
    if tt.check:
        tt.check(data, path)
    if tt.distinct_answers:
        n = tt.distinct_answers(data)
        for split in ("train", "test"):
            if data["samples"][split] > n:
                raise InputError(path, f"samples.{split}: {data['samples'][split]} samples per complex but only "
                                       f"{n} distinct answers")
    tpath = (path.parent / data["prompt"]).resolve()
    try:
        template = tpath.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"prompt: cannot read template {tpath}: {exc}") from None
    check_template(template, BASE_FIELDS | tt.fields, tpath)
    if data["name"] is not None and not data["name"].replace("_", "").isalnum():
        raise InputError(path, f"name: {data['name']!r} must be letters, digits and underscores")
    rationale, rtext = _rationale_template(path, data, tpath, name)
    return TaskSpec(data["name"] or name, path, data, template, tpath, suite=dict(suite or {}), type=name,
                    rationale=rationale, rationale_text=rtext)


def _rationale_template(path: Path, data: dict, prompt_path: Path, type_name: str):
    """The spec's rationale template (``rationale:``), else ``<type>_rationale.txt`` beside its prompt
    when there is one; a custom task without either makes records without rationales."""
    from ..rationale.templates import parse_template

    if data["rationale"] is not None:
        rpath = (path.parent / data["rationale"]).resolve()
    else:
        rpath = prompt_path.parent / f"{type_name}_rationale.txt"
        if not rpath.exists():
            return None, ""
    try:
        text = rpath.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"rationale: cannot read template {rpath}: {exc}") from None
    return parse_template(text, rpath), text


def load_suite(path) -> list[TaskSpec]:
    """Load and validate a suite and every task spec and template it names."""
    path = Path(path)
    raw = read_yaml(path)
    suite = SUITE.check(raw, path, "")
    for ref in suite["modules"]:
        REGISTRY.load(ref, path.parent.resolve(), path)
    settings = {"name": suite["name"], "test_fraction": float(suite["split"]["test_fraction"]),
                "zoom_clearance": float(suite["camera"]["zoom_clearance"]), "audit": suite["audit"],
                "min_resolution": suite["min_resolution"], "modules": list(suite["modules"]),
                "rejection_budget": float(suite["rejection_budget"]),
                "path": str(path)}
    if suite["hbonds"]["definition"] is not None:     # only when named: other suites keep their hash
        settings["hbond_definition"] = suite["hbonds"]["definition"]
    if any(v is not None for vals in suite["style"].values() for v in vals.values()):
        settings["style"] = suite["style"]            # only when set: other suites keep their hash
    knobs = {k: v for k, v in suite["difficulty"].items() if v is not None}
    if knobs:                                  # only when set: the other suites' spec hashes stay as they were
        settings["difficulty"] = knobs
    if suite["labels"]["contact_atoms"]:       # only when set: the other suites' spec hashes stay as they were
        settings["contact_atom_labels"] = float(suite["labels"]["contact_atoms"])
    if suite["labels"]["polar_contacts_first"]:
        settings["polar_contact_labels_first"] = float(suite["labels"]["polar_contacts_first"])
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
    return tasks


def check_resolution(style: dict, tasks: list) -> None:
    """InputError unless the style's image is at least the suite's ``min_resolution`` on each side."""
    if not tasks:
        return
    w, h = (int(x) for x in style["render"]["resolution"])
    least = int(tasks[0].suite.get("min_resolution", 1))
    if min(w, h) < least:
        raise InputError("--resolution", f"{w}x{h} is below {least} px, the smallest image side at which suite "
                                         f"{tasks[0].suite['name']}'s labels and view changes can be seen (its "
                                         f"min_resolution); use --resolution {least} {least} or larger")


SUITE_ENV = "MISIGEN_SUITE"      # where a dataset's suite is now, when it moved after generate


def dataset_suite(manifest: dict, dataset: Path | None = None) -> Path | None:
    """The suite file a dataset was generated from: $MISIGEN_SUITE if set, else the manifest's
    ``suite`` (absolute; a relative one, as older manifests hold, is tried from the working folder
    and from the dataset's parent, where ``generate`` usually ran); None if none is found."""
    if os.environ.get(SUITE_ENV):
        return Path(os.environ[SUITE_ENV])
    suite = manifest.get("suite")
    if not suite:
        return None
    cands = [Path(suite)]
    if not Path(suite).is_absolute() and dataset is not None:
        cands.append(Path(dataset).resolve().parent / suite)
    return next((c for c in cands if c.is_file()), None)


def load_dataset_modules(manifest: dict, dataset: Path | None = None) -> None:
    """Add the task modules of the suite a dataset was generated from (``dataset_suite``). A suite
    that had modules (the manifest's ``suite_modules``) and cannot be found is an InputError that
    says how to point at it; without modules, the bundled tasks are all a dataset needs."""
    suite = dataset_suite(manifest, dataset)
    if suite is None or not suite.is_file():
        needed = manifest.get("suite_modules") or []
        if needed:
            where = Path(dataset) / "manifest.json" if dataset is not None else "manifest.json"
            raise InputError(where, f"suite {os.environ.get(SUITE_ENV) or manifest.get('suite')} not found (moved?); "
                                    f"its task modules ({', '.join(needed)}) are needed: set {SUITE_ENV} to the "
                                    "suite's YAML file where it is now")
        return                 # bundled tasks only
    raw = read_yaml(Path(suite))
    refs = raw.get("modules") if isinstance(raw, dict) else None
    if not refs:
        return
    if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
        raise InputError(suite, "modules: expected a list of module names or .py paths")
    for ref in refs:
        REGISTRY.load(ref, Path(suite).parent.resolve(), suite)


__all__ = ["TaskSpec", "load_task_spec", "load_suite", "load_dataset_modules", "dataset_suite", "check_resolution",
           "REPO_TASK_SPECS", "BASE_FIELDS", "Enum"]
