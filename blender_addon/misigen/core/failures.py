"""One line of a dataset's ``failures.jsonl``: what could not be made, and why.

Every writer builds its lines through ``Failure`` so the keys cannot drift: ``structure``,
``task``, ``sample`` and ``why`` are always there (null when they do not apply); ``where``,
``category`` and ``kind`` only when they say something.
"""
from __future__ import annotations

from dataclasses import dataclass

OPTIONAL = ("where", "category", "kind")


@dataclass(frozen=True)
class Failure:
    structure: str | None          # the structure id (None: a file that is no structure)
    why: str
    task: str | None = None
    sample: str | None = None      # the sample id, for a sample that could not be made
    where: str | None = None       # the file at fault (bad or unused input)
    category: str | None = None    # planning: "rejected" or "unavailable" (a spec count is a maximum)
    kind: str | None = None        # discovery: "unused_input", "not_a_structure" or "unreadable"

    def as_dict(self) -> dict:
        line = {"structure": self.structure, "task": self.task, "sample": self.sample, "why": self.why}
        line.update({k: getattr(self, k) for k in OPTIONAL if getattr(self, k) is not None})
        return line

    @classmethod
    def from_dict(cls, line: dict) -> "Failure":
        return cls(**line)
