"""Task specs (``task_specs/*.yaml``) and suites: loading and validation.

Every parameter that shapes the data lives in a spec. A problem (unknown key, wrong type,
empty range, impossible count, bad template field) raises ``InputError(file, "key: reason")``
before anything is planned or rendered.
"""
from __future__ import annotations

import copy
import hashlib
import json
import math
import string
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..geometry import canonical_views
from ..resources import task_specs_dir
from ..style import read_yaml
from .common import range_values

TASK_NAMES = ("translation", "rotation", "zooming", "residue_ligand_interaction", "translation_rotation",
              "rotation_rotation", "docking", "interaction_location", "pocket_ligand_interaction")
AXES = ("x", "y", "z")
SCHEMES = ("magnitude_both", "flip_first", "axis_first")
REPO_TASK_SPECS = task_specs_dir()     # bundled specs: package data, or the checkout's task_specs/


# ------------------------------------------------------------------ a small schema language
class _T:
    def check(self, value, path, where):
        raise NotImplementedError


class Int(_T):
    def __init__(self, lo=None, hi=None):
        self.lo, self.hi = lo, hi

    def check(self, v, path, where):
        if not isinstance(v, int) or isinstance(v, bool):
            raise InputError(path, f"{where}: expected an integer, got {v!r}")
        if (self.lo is not None and v < self.lo) or (self.hi is not None and v > self.hi):
            raise InputError(path, f"{where}: {v} is outside {self.lo}..{self.hi}")
        return v


class Num(_T):
    def __init__(self, lo=None, hi=None, positive=False):
        self.lo, self.hi, self.positive = lo, hi, positive

    def check(self, v, path, where):
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            raise InputError(path, f"{where}: expected a number, got {v!r}")
        if self.positive and v <= 0:
            raise InputError(path, f"{where}: must be > 0, got {v}")
        if (self.lo is not None and v < self.lo) or (self.hi is not None and v > self.hi):
            raise InputError(path, f"{where}: {v} is outside {self.lo}..{self.hi}")
        return float(v) if isinstance(v, float) else v


class Str(_T):
    def check(self, v, path, where):
        if not isinstance(v, str) or not v.strip():
            raise InputError(path, f"{where}: expected a non-empty string, got {v!r}")
        return v


class Bool(_T):
    def check(self, v, path, where):
        if not isinstance(v, bool):
            raise InputError(path, f"{where}: expected true or false, got {v!r}")
        return v


class Enum(_T):
    def __init__(self, choices):
        self.choices = tuple(choices)

    def check(self, v, path, where):
        if v not in self.choices:
            raise InputError(path, f"{where}: {v!r} is not one of {', '.join(map(str, self.choices))}")
        return v


class List(_T):
    def __init__(self, item, min_len=1, max_len=None, unique=True):
        self.item, self.min_len, self.max_len, self.unique = item, min_len, max_len, unique

    def check(self, v, path, where):
        if not isinstance(v, list):
            raise InputError(path, f"{where}: expected a list, got {v!r}")
        if len(v) < self.min_len or (self.max_len is not None and len(v) > self.max_len):
            bound = f"{self.min_len}..{self.max_len}" if self.max_len is not None else f"at least {self.min_len}"
            raise InputError(path, f"{where}: expected {bound} items, got {len(v)}")
        out = [self.item.check(x, path, f"{where}[{k}]") for k, x in enumerate(v)]
        if self.unique:
            seen = [json.dumps(x, sort_keys=True) for x in out]
            if len(set(seen)) != len(seen):
                raise InputError(path, f"{where}: repeated items in {v!r}")
        return out


class Map(_T):
    """fields: key → (schema, default); default REQUIRED means the key must be given."""

    def __init__(self, fields: dict):
        self.fields = fields

    def check(self, v, path, where):
        if v is None:
            v = {}
        if not isinstance(v, dict):
            raise InputError(path, f"{where or 'spec'}: expected a mapping, got {type(v).__name__}")
        out = {}
        for key in v:
            if key not in self.fields:
                here = f"{where}.{key}" if where else str(key)
                raise InputError(path, f"{here}: unknown key (allowed: {', '.join(self.fields)})")
        for key, (schema, default) in self.fields.items():
            here = f"{where}.{key}" if where else key
            if key in v:
                out[key] = schema.check(v[key], path, here)
            elif default is REQUIRED:
                raise InputError(path, f"{here}: missing required key")
            else:
                out[key] = schema.check(copy.deepcopy(default), path, here) if default is not None else None
        return out


class Range(_T):
    def __init__(self, positive=False, nonzero=False):
        self.positive, self.nonzero = positive, nonzero

    def check(self, v, path, where):
        m = Map({"min": (Num(), REQUIRED), "max": (Num(), REQUIRED), "step": (Num(positive=True), REQUIRED),
                 "exclude": (List(Num(), min_len=0), [])}).check(v, path, where)
        if m["min"] > m["max"]:
            raise InputError(path, f"{where}: empty range (min {m['min']} > max {m['max']})")
        vals = range_values(m)
        if not vals:
            raise InputError(path, f"{where}: empty range (every value is excluded)")
        if self.positive and min(vals) <= 0:
            raise InputError(path, f"{where}: values must be > 0, got {min(vals)}")
        if self.nonzero and 0.0 in vals:
            raise InputError(path, f"{where}: 0 changes nothing; exclude it")
        return m


REQUIRED = object()
VIEWS = Enum(sorted(canonical_views()))
AXIS = Enum(AXES)

OPERATION = Map({"verb": (Enum(("move", "roll")), REQUIRED), "axes": (List(AXIS), REQUIRED),
                 "values": (Range(nonzero=True), REQUIRED)})


def _rejection(**extra):
    return Map({"max_retries": (Int(1, 10000), REQUIRED), **extra})


COMMON = {
    "task": (Enum(TASK_NAMES), REQUIRED),
    "description": (Str(), None),
    "prompt": (Str(), REQUIRED),
    "answer_format": (Str(), REQUIRED),
    "samples": (Map({"train": (Int(0, 10000), REQUIRED), "test": (Int(0, 10000), REQUIRED)}), REQUIRED),
    "labels": (Bool(), True),
}
CLOZE = {
    "views": (List(VIEWS), REQUIRED),
    "after_view": (VIEWS, "front"),
    "operation": (OPERATION, REQUIRED),
    "balance": (List(Enum(("axis", "sign", "magnitude")), min_len=0), ["axis", "sign"]),
    "magnitude_bins": (Int(1, 100), 1),
    "rejection": (_rejection(min_view_change_px=(Num(0), REQUIRED), min_in_frame=(Num(0, 1), REQUIRED),
                             min_depth=(Num(0), 1.0)), REQUIRED),
}
SCHEMAS = {
    "translation": CLOZE, "rotation": CLOZE, "zooming": CLOZE,
    "residue_ligand_interaction": {
        "views": (List(VIEWS), REQUIRED),
        "negatives": (Map({"max_distance": (Num(0, positive=True), REQUIRED)}), REQUIRED),
        "rejection": (_rejection(require_visible=(Bool(), True), require_labels=(Bool(), True)), REQUIRED),
    },
    "translation_rotation": (TWO := {
        "views": (List(VIEWS), REQUIRED),
        "after_view": (VIEWS, "front"),
        "steps": (List(OPERATION, 2, 2, unique=False), REQUIRED),
        "distinct_axes": (Bool(), False),
        "target_start": (Map({"axes": (List(AXIS, 2, 2), REQUIRED), "values": (Range(nonzero=True), REQUIRED)}),
                         REQUIRED),
        "target_views": (List(VIEWS), REQUIRED),
        "options": (Int(2, 4), 4),
        "distractor_schemes": (List(Enum(SCHEMES)), REQUIRED),
        "rejection": (_rejection(min_option_rmsd=(Num(0), REQUIRED), min_option_view_px=(Num(0), REQUIRED)),
                      REQUIRED),
    }),
    "rotation_rotation": TWO,
    "docking": {
        "pocket_views": (List(VIEWS), REQUIRED),
        "ligand_views": (List(VIEWS), REQUIRED),
        "combined_view": (Enum(("front",)), "front"),
        "rotation": (Map({"axes": (List(AXIS), REQUIRED), "values": (Range(nonzero=True), REQUIRED)}), REQUIRED),
        "displacement": (Map({"axis": (Enum(("x",)), "x"), "extra": (Range(), REQUIRED),
                              "sides": (List(Enum(("left", "right"))), ["left", "right"])}), REQUIRED),
        "rejection": (_rejection(min_clash_distance=(Num(0), REQUIRED), min_screen_gap=(Num(), REQUIRED),
                                 min_rotation_view_px=(Num(0), REQUIRED)),
                      REQUIRED),
    },
    "interaction_location": {
        "views": (List(VIEWS), REQUIRED),
        "after_view": (VIEWS, "front"),
        "options": (Int(2, 4), 4),
        "precision": (Num(positive=True), REQUIRED),
        "min_offset": (Num(0), REQUIRED),
        "distractors": (Map({"sign_flips": (Bool(), True), "scales": (List(Num(positive=True), min_len=0), REQUIRED),
                             "offsets": (List(Num(positive=True), min_len=0), []),
                             "min_gap": (Num(0), REQUIRED)}), REQUIRED),
        "rejection": (_rejection(require_visible=(Bool(), True), require_labels=(Bool(), True)), REQUIRED),
    },
    "pocket_ligand_interaction": {
        "views": (List(VIEWS), REQUIRED),
        "rejection": (_rejection(require_visible=(Bool(), True), require_labels=(Bool(), True)), REQUIRED),
    },
}

SUITE = Map({
    "name": (Str(), REQUIRED),
    "description": (Str(), None),
    "tasks": (List(Str()), REQUIRED),
    "split": (Map({"test_fraction": (Num(0, 1), 490 / 3993)}), {}),
    "camera": (Map({"zoom_clearance": (Num(0), 4.0)}), {}),
})

# Named fields each task's prompt template may use (str.format_map on exactly these).
BASE_FIELDS = {"structure", "ligand", "n_images", "image_list", "colours", "frame_rules", "command_grammar",
               "answer_format"}
FIELDS = {
    "translation": BASE_FIELDS | {"axes", "value_range"},
    "rotation": BASE_FIELDS | {"axes", "value_range"},
    "zooming": BASE_FIELDS | {"axes", "value_range"},
    "residue_ligand_interaction": BASE_FIELDS | {"residue"},
    "translation_rotation": BASE_FIELDS | {"n_options", "option_images"},
    "rotation_rotation": BASE_FIELDS | {"n_options", "option_images"},
    "docking": BASE_FIELDS | {"displacement_axis", "rotation_range", "distance_range"},
    "interaction_location": BASE_FIELDS | {"hbond", "options_text"},
    "pocket_ligand_interaction": BASE_FIELDS,
}


@dataclass
class TaskSpec:
    name: str                 # task name (= the spec's ``task``)
    path: Path                # the spec file
    data: dict                # validated spec, defaults filled in
    template: str             # prompt template text
    template_path: Path
    camera: dict = field(default_factory=dict)   # shared-camera parameters (from the suite)
    suite: dict = field(default_factory=dict)    # suite name and split settings

    def __getitem__(self, key):
        return self.data[key]

    @property
    def spec_hash(self) -> str:
        blob = json.dumps({"data": self.data, "template": self.template, "camera": self.camera},
                          sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def samples(self, split: str) -> int:
        return int(self.data["samples"][split])


# ------------------------------------------------------------------ templates
def check_template(text: str, allowed: set, path) -> None:
    """Only ``{name}`` fields from ``allowed``: no attribute access, indexing, conversion or format spec."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise InputError(path, f"template: {exc}") from None
    for _lit, name, spec, conv in parsed:
        if name is None:
            continue
        if not name.isidentifier() or conv or spec:
            raise InputError(path, f"template field {{{name}{'!' + conv if conv else ''}"
                                   f"{':' + spec if spec else ''}}}: only plain {{name}} fields are allowed")
        if name not in allowed:
            raise InputError(path, f"template field {{{name}}}: unknown (allowed: {', '.join(sorted(allowed))})")


def fill_template(text: str, values: dict) -> str:
    """Fill a checked template. Values are plain strings; nothing in them is evaluated."""
    return text.format_map({k: str(v) for k, v in values.items()})


# ------------------------------------------------------------------ task-level checks
def _distinct_answers(name: str, d: dict) -> int:
    if name in ("translation", "rotation", "zooming"):
        return len(d["operation"]["axes"]) * len(range_values(d["operation"]["values"]))
    if name == "docking":
        return len(d["rotation"]["axes"]) * len(range_values(d["rotation"]["values"])) * \
            len(d["displacement"]["sides"]) * len(range_values(d["displacement"]["extra"]))
    return 10 ** 9


def _check_task(name: str, d: dict, path) -> None:
    if name in ("translation", "rotation", "zooming"):
        op = d["operation"]
        want = {"translation": ("move", {"x", "y"}), "rotation": ("roll", set(AXES)), "zooming": ("move", {"z"})}[name]
        if op["verb"] != want[0]:
            raise InputError(path, f"operation.verb: {name} needs {want[0]!r}, got {op['verb']!r}")
        bad = set(op["axes"]) - want[1]
        if bad:
            raise InputError(path, f"operation.axes: {sorted(bad)} not allowed for {name} "
                                   f"(allowed: {sorted(want[1])})")
        if "magnitude" in d["balance"] and d["magnitude_bins"] > len({abs(v) for v in range_values(op["values"])}):
            raise InputError(path, "magnitude_bins: more bins than distinct magnitudes")
    if name in ("translation_rotation", "rotation_rotation"):
        s1, s2 = d["steps"]
        want = ("move", "roll") if name == "translation_rotation" else ("roll", "roll")
        for k, (s, w) in enumerate(zip((s1, s2), want)):
            if s["verb"] != w:
                raise InputError(path, f"steps[{k}].verb: {name} needs {w!r}, got {s['verb']!r}")
        if name == "translation_rotation" and "z" in s1["axes"]:
            raise InputError(path, "steps[0].axes: the translation step moves in the screen plane (x, y)")
        if d["options"] != 4 and len(d["distractor_schemes"]) == 0:
            raise InputError(path, "distractor_schemes: at least one scheme")
        if d["target_start"]["axes"][0] == d["target_start"]["axes"][1]:
            raise InputError(path, "target_start.axes: two different axes")
        _check_schemes(name, d, path)
    if name == "docking" and min(range_values(d["displacement"]["extra"])) < 0:
        raise InputError(path, "displacement.extra: values must be >= 0 (Å beyond the clearing distance)")
    if name == "interaction_location" and d["options"] - 1 > (3 if d["distractors"]["sign_flips"] else 0) + \
            2 * len(d["distractors"]["scales"]) + len(d["distractors"]["scales"]) ** 2 + \
            4 * len(d["distractors"]["offsets"]):
        raise InputError(path, "distractors: too few sign flips and scales for the number of options")
    n = _distinct_answers(name, d)
    for split in ("train", "test"):
        if d["samples"][split] > n:
            raise InputError(path, f"samples.{split}: {d['samples'][split]} samples per complex but only "
                                   f"{n} distinct answers")


def _check_schemes(name, d, path) -> None:
    """Every scheme must give enough distinct distractors for every possible true program."""
    from .choice import candidate_programs, scheme_distractors
    need = d["options"] - 1
    for scheme in d["distractor_schemes"]:
        worst = min(len(scheme_distractors(scheme, prog, d)) for prog in candidate_programs(d))
        if worst < need:
            raise InputError(path, f"distractor_schemes: {scheme!r} gives only {worst} distinct distractor(s) "
                                   f"for some answers; {need} needed (widen steps[*].values or axes)")


def load_task_spec(path, suite: dict | None = None) -> TaskSpec:
    path = Path(path)
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise InputError(path, "spec: expected a mapping")
    name = raw.get("task")
    if name not in SCHEMAS:
        raise InputError(path, f"task: {name!r} is not one of {', '.join(TASK_NAMES)}")
    data = Map({**COMMON, **SCHEMAS[name]}).check(raw, path, "")
    _check_task(name, data, path)
    tpath = (path.parent / data["prompt"]).resolve()
    try:
        template = tpath.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"prompt: cannot read template {tpath}: {exc}") from None
    check_template(template, FIELDS[name], tpath)
    return TaskSpec(name, path, data, template, tpath, suite=dict(suite or {}))


def _camera_groups(tasks: list[TaskSpec], suite: dict) -> None:
    """One camera per shown set: tasks that show the whole pocket + ligand share the largest
    in-plane move (pad) and largest zoom of all of them, so their start views are identical."""
    pad, zoom = 0.0, 0.0
    complex_tasks = [t for t in tasks if t.name not in ("residue_ligand_interaction", "docking")]
    for t in complex_tasks:
        ops = [t.data["operation"]] if "operation" in t.data else list(t.data.get("steps", []))
        for op in ops:
            if op["verb"] != "move":
                continue
            vals = range_values(op["values"])
            if set(op["axes"]) & {"x", "y"}:
                pad = max(pad, max(abs(v) for v in vals))
            if "z" in op["axes"]:
                zoom = max(zoom, max(vals))
    group = {"group": "complex", "pad": pad, "max_zoom": zoom,
             "zoom_clearance": float(suite["camera"]["zoom_clearance"])}
    for t in tasks:
        t.camera = dict(group) if t in complex_tasks else {"group": t.name, "pad": 0.0, "max_zoom": 0.0,
                                                           "zoom_clearance": 0.0}


def load_suite(path) -> list[TaskSpec]:
    """Load and validate a suite and every task spec and template it names."""
    path = Path(path)
    raw = read_yaml(path)
    suite = SUITE.check(raw, path, "")
    settings = {"name": suite["name"], "test_fraction": float(suite["split"]["test_fraction"]),
                "path": str(path)}
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
    _camera_groups(tasks, suite)
    return tasks
