"""The ChimeraX-style command grammar of answers and transforms: ``move x 3``, ``roll y -15``.

One formatter and one parser, so every answer string round-trips to the same program.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

AXES = ("x", "y", "z")
VERBS = ("move", "roll")
_ONE = re.compile(r"^\s*(move|roll)\s+([xyz])\s+([-+]?\d+(?:\.\d+)?)\s*$")


@dataclass(frozen=True)
class Op:
    """One model transformation in the screen frame: translate (Å) or rotate (degrees)."""
    verb: str    # "move" | "roll"
    axis: str    # "x" | "y" | "z"
    value: float

    def __post_init__(self):
        if self.verb not in VERBS or self.axis not in AXES:
            raise ValueError(f"bad operation {self.verb} {self.axis}")

    def as_dict(self) -> dict:
        return {"op": self.verb, "axis": self.axis, "value": format_number(self.value, as_float=True)}


def format_number(value: float, as_float: bool = False):
    """Integers print without a decimal point; others with up to 3 decimals, no trailing zeros."""
    v = round(float(value), 3)
    if v == int(v):
        return float(int(v)) if as_float else str(int(v))
    return v if as_float else f"{v:.3f}".rstrip("0").rstrip(".")


def format_op(op: Op) -> str:
    return f"{op.verb} {op.axis} {format_number(op.value)}"


def format_ops(ops) -> str:
    return ", ".join(format_op(op) for op in ops)


def parse_op(text: str) -> Op:
    m = _ONE.match(text)
    if not m:
        raise ValueError(f"not a command (expected 'move|roll x|y|z NUMBER'): {text!r}")
    return Op(m.group(1), m.group(2), float(m.group(3)))


def parse_ops(text: str) -> list[Op]:
    """``roll x 75, move x -14`` → [Op(roll x 75), Op(move x -14)] (also ';' separated)."""
    parts = [p for p in re.split(r"[;,]", text) if p.strip()]
    if not parts:
        raise ValueError("empty command list")
    return [parse_op(p) for p in parts]
