"""Typed programs: each task's machine-readable ground truth as a frozen dataclass.

A record carries its program as a JSON object (``record["program"]``); a task's program type reads it
back (``from_dict``) for every reader of that task (re-derivation, guessers, rationale, difficulty,
baseline, composite score) and writes it (``as_dict``) in the planner, its fields in the order the
record lists them. A field made with ``optional()`` is left out of the dict while it is None (keys a
variant of the task does not have); any other field is always written.

``from_dict`` takes the keys the type knows and ignores the rest: the planner loop adds ``task``,
``task_type`` and ``rejected_attempts``, and ``core/teaching.py`` adds ``difficulty``, to every
program. A key a record lacks reads as the field's default (None), so readers of older or hand-made
records handle a missing key where they handled it before.

Readers that serve many tasks read only the keys their contract names, whatever the task: the
answer kinds' checks (``ops``, ``correct``, ``hbonds``, ``equivalent_atoms``, ``answer_kind``), the
shared guessers (``ops``, ``answer_space``, ``image_roles``), ``validate``'s option count and the
necessity table (``options``), the registry (``task_type``).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields

_OPTIONAL = "optional"


def optional(default=None):
    """A program key written only when set (not None)."""
    return field(default=default, metadata={_OPTIONAL: True})


@dataclass(frozen=True, kw_only=True)
class Program:
    """Base of the task program types (subclasses: ``@dataclass(frozen=True, kw_only=True)``)."""

    def as_dict(self) -> dict:
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.metadata.get(_OPTIONAL):
                continue
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict | None):
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in (data or {}).items() if k in known})


__all__ = ["Program", "optional"]
