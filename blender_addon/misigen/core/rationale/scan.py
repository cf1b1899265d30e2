"""The rule that keeps a rationale to what a reader can see: no number that only the sidecar knows.

A rationale passes when all of these hold (``scan``; ``replay`` applies it too):

1. Every fact its builder records is of a kind a reader takes from the images or the question
   (``evidence.READABLE``); a 3D coordinate, depth or distance read from the sidecar is not one.
2. Every ``calc`` fact's numeric literals are integers, numbers the question states (``given``
   facts) or whole multiples of one (a value on the grid of a stated step, such as 22.5° with
   steps of 7.5°): no sidecar value can hide in an expression as a constant.
3. Every decimal number in the text is the quoted text of one of those facts, or on the grid of a
   stated step (an allowed value the question offers).
4. Every number followed by a unit is one the unit allows:
   - ``Å``: a reference length (a standard bond length, the scale bar's, a criterion's limit, a number
     the question states, a value rounded to the answer's step), or an estimate written "about X Å";
   - ``°``: the field of view the prompt states, or an estimate written "about X°";
   - ``px``: a fact (a pixel reading, or arithmetic over them).
"""
from __future__ import annotations

import ast
import functools
import re

from .evidence import READABLE, REFERENCE, fmt

_DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d+(?![\w.])")
_UNIT = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)\s?(Å|°|px)(?!\w)")
ABOUT = "about "


def _numeric(f) -> bool:
    return isinstance(f.value, (int, float)) and not isinstance(f.value, bool)


@functools.lru_cache(maxsize=4096)
def _literals(expr: str) -> tuple[float, ...]:
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return ()
    return tuple(float(n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)))


def _on_a_given_grid(x: float, givens: set) -> bool:
    return x in givens or any(g and abs(x / g - round(x / g)) < 1e-9 for g in givens)


def scan_facts(facts) -> list[str]:
    """Rules 1 and 2 over a builder's facts."""
    problems = []
    givens = {float(f.value) for f in facts.items if f.kind == "given" and _numeric(f)}
    for f in facts.items:
        if f.kind not in READABLE:
            problems.append(f"fact {f.name or f.atoms} is a {f.kind!r} reading, which no image shows")
        if f.kind == "calc":
            bad = [x for x in _literals(f.expr) if x != int(x) and not _on_a_given_grid(x, givens)]
            if bad:
                problems.append(f"calc {f.name} = {f.expr} uses constants {bad} that no reading or question gives")
    return problems


def _matches(tok: str, f) -> bool:
    return _numeric(f) and (fmt(f.value, f.nd) == tok or abs(float(f.value) - float(tok)) < 1e-9)


def scan_text(text: str, facts) -> list[str]:
    """Rules 3 and 4 over a rationale's text and the facts its builder records."""
    problems = []
    quoted = {fmt(f.value, f.nd) for f in facts.items if _numeric(f)}
    givens = {float(f.value) for f in facts.items if f.kind == "given" and _numeric(f)}
    for tok in _DECIMAL.findall(text):
        if tok not in quoted and not any(_matches(tok, f) for f in facts.items) \
                and not _on_a_given_grid(float(tok), givens):
            problems.append(f"rationale quotes {tok}, which no sidecar reading or step derives")
    for m in _UNIT.finditer(text):
        tok, unit = m.group(1), m.group(2)
        about = text[max(0, m.start() - len(ABOUT)):m.start()] == ABOUT
        cands = [f for f in facts.items if _matches(tok, f)]
        if unit == "px":
            ok = bool(cands)
        else:
            reference = REFERENCE if unit == "Å" else {"camera"}
            ok = any(f.kind in reference for f in cands) or (about and any(f.estimate for f in cands))
        if not ok:
            problems.append(f"rationale quotes {tok}{'' if unit == '°' else ' '}{unit}, which is neither a reading, a "
                            f"reference nor an estimate marked 'about'")
    return problems


def scan(text: str, facts) -> list[str]:
    """Every rule: problems found (empty: the rationale quotes only what a reader can see)."""
    return scan_facts(facts) + scan_text(text, facts)


__all__ = ["scan", "scan_facts", "scan_text", "ABOUT"]
