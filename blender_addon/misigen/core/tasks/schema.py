"""The small schema language of task specs and suites, and prompt-template checks.

Every check raises ``InputError(file, "key: reason")`` so a bad spec is reported before any
work starts. Templates may use only plain ``{name}`` fields from an allowed set.
"""
from __future__ import annotations

import copy
import json
import math
import string

from ..errors import InputError
from ..scene.geometry import canonical_views
from .common import range_values

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

    def __init__(self, fields: dict, renamed: dict | None = None):
        self.fields = fields
        self.renamed = renamed or {}      # old key → what to write instead (a spec from before a rename)

    def check(self, v, path, where):
        if v is None:
            v = {}
        if not isinstance(v, dict):
            raise InputError(path, f"{where or 'spec'}: expected a mapping, got {type(v).__name__}")
        out = {}
        for key in v:
            if key not in self.fields:
                here = f"{where}.{key}" if where else str(key)
                if key in self.renamed:
                    raise InputError(path, f"{here}: renamed; {self.renamed[key]}")
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
AXES = ("x", "y", "z")
VIEWS = Enum(sorted(canonical_views()))
AXIS = Enum(AXES)
OPERATION = Map({"verb": (Enum(("move", "roll")), REQUIRED), "axes": (List(AXIS), REQUIRED),
                 "values": (Range(nonzero=True), REQUIRED)})


# ------------------------------------------------------------------ difficulty knobs
# A spec's (or suite's) ``difficulty:`` block: what a task draws or asks to make its questions harder.
# Each knob is off (its first choice) unless set; a task accepts the knobs it implements (its schema's
# ``difficulty`` entry, ``difficulty_block``); a suite's block sets them for every task that does.
KNOBS = {
    "values": ("default", "fine"),       # the asked values' step halved (cloze tasks, docking)
    "decoys": ("default", "near"),       # magnitude decoys one value step from the answer (choice tasks)
    "labels": ("all", "sparse"),         # labels drawn in every other view only (interaction tasks)
    "occlusion": ("default", "high"),    # the start pose that hides the candidate atoms most (interaction tasks)
}


def difficulty_block(*knobs: str) -> tuple:
    """The ``difficulty`` schema entry of a task that implements ``knobs`` (absent: None, all off)."""
    return Map({k: (Enum(KNOBS[k]), None) for k in knobs}), None


def knob(d: dict, name: str) -> str:
    """The value of knob ``name`` in a validated spec (its off value when not set)."""
    block = d.get("difficulty") or {}
    return block.get(name) or KNOBS[name][0]


def asked_range(r: dict, d: dict) -> dict:
    """A spec range as the task asks it: its step halved under ``values: fine`` (ends and exclusions kept)."""
    if knob(d, "values") != "fine":
        return r
    return {**r, "step": float(r["step"]) / 2}


def merge_knobs(d: dict, suite_knobs: dict, accepted: Map | None) -> None:
    """Set the suite's knobs (``suite_knobs``) the task accepts and its own block leaves unset; a block
    that sets nothing is None (so a spec without knobs hashes as before)."""
    if accepted is None:
        return
    block = dict(d.get("difficulty") or {k: None for k in accepted.fields})
    for k, v in (suite_knobs or {}).items():
        if k in accepted.fields and block.get(k) is None and v is not None:
            block[k] = v
    d["difficulty"] = block if any(v is not None for v in block.values()) else None


# Screen thresholds are fractions of the image width (a pixel count would mean a different
# dataset at every resolution); the old ``*_px`` keys are refused with how to convert them.
_PX_RENAMED = {f"{k}_px": f"write {k}: a fraction of the image width (old px value / 256 for 256² runs)"
               for k in ("min_view_change", "min_option_view", "min_screen_gap", "min_rotation_view")}


def rejection(**extra) -> Map:
    """The ``rejection`` block every task has: bounded retries plus the task's own limits."""
    return Map({"max_retries": (Int(1, 10000), REQUIRED), **extra}, renamed=_PX_RENAMED)


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
