"""Task specs (``task_specs/*.yaml``): loading and validation; where a dataset's suite and its task
modules are (``dataset_suite``, ``load_dataset_modules``).

Every parameter that shapes the data lives in a spec. A problem (unknown key, wrong type,
empty range, impossible count, bad template field) raises ``InputError(file, "key: reason")``
before anything is planned or rendered. Each task's own keys and checks come from its
registry entry (``registry.py``).

A suite may bring its own tasks: ``modules:`` lists Python files (``*.py``, relative to the suite's
folder) or importable module names; each exports ``TASK_TYPES`` (``registry.TaskType``), which are
added to the registry before the suite's specs are read. Dataset commands (validate, score, audit,
baseline, export, report) load the same modules from the suite the dataset's manifest names
(``load_dataset_modules``). Suites themselves are read by ``suite.load_suite``.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..resources import task_specs_dir
from ..look.style import read_yaml
from .catalog import REGISTRY, task_names, task_type
from .schema import REQUIRED, Bool, Enum, Int, List, Map, Str, check_template, merge_knobs
from .settings import SuiteSettings

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


@dataclass
class TaskSpec:
    name: str                 # the task's name in records: the spec's ``name``, else its ``task`` (type)
    path: Path                # the spec file
    data: dict                # validated spec, defaults filled in
    template: str             # prompt template text
    template_path: Path
    settings: SuiteSettings = field(default_factory=SuiteSettings)   # the suite's, shared by its tasks
    type: str = ""            # the registry entry (the spec's ``task``); "" = same as name
    rationale: dict | None = None   # rationale template sections (``core.rationale``); None: no rationales
    rationale_text: str = ""

    def __post_init__(self):
        self.type = self.type or self.name

    def __getitem__(self, key):
        return self.data[key]

    @property
    def spec_hash(self) -> str:
        settings = self.settings.hashed()
        # a spec without knobs (``difficulty`` None) hashes as it did before knobs existed
        data = {k: v for k, v in self.data.items() if not (k == "difficulty" and v is None)}
        blob = json.dumps({"data": data, "template": self.template, "suite": settings,
                           **({"rationale": self.rationale_text} if self.rationale_text else {})},
                          sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def samples(self, split: str) -> int:
        return int(self.data["samples"][split])


def load_task_spec(path, settings: SuiteSettings | None = None) -> TaskSpec:
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
        merge_knobs(data, settings.difficulty if settings else None, tt.schema["difficulty"][0])
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
    return TaskSpec(data["name"] or name, path, data, template, tpath, settings=settings or SuiteSettings(), type=name,
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


__all__ = ["TaskSpec", "load_task_spec", "load_dataset_modules", "dataset_suite", "REPO_TASK_SPECS", "BASE_FIELDS",
           "Enum"]
