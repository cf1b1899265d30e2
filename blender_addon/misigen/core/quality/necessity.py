"""Is every step of a choice question needed to answer it? Measured from the records' programs.

A multiple-choice question whose options are programs of steps (T5: move, roll; T6: roll, roll;
T8: move x, move y) tests a step only if knowing the OTHER steps is not enough. For each step k
an oracle knows every other step of the true program exactly; the step is *needed* in a question
when at least two options agree with that knowledge (the oracle cannot be sure). Its magnitude is
needed when at least two options still agree once the oracle also knows step k's verb, axis and
sign (only |value| left to read).

Pure Python; works on any record whose program lists each option's steps
(``program["options"][i]["ops"]``, the correct one marked ``correct``).
"""
from __future__ import annotations

from collections import defaultdict

from ..op_grammar import parse_ops


def option_steps(program: dict) -> tuple[list[list[dict]], int] | None:
    """(each option's steps, the correct option's index), or None when the program does not list
    its options' steps (``ops``; datasets written before they were recorded: parsed from ``text``)."""
    opts = program.get("options") or []
    if len(opts) < 2 or any(not isinstance(o, dict) or ("ops" not in o and "text" not in o) for o in opts):
        return None
    try:
        steps = [list(o["ops"]) if "ops" in o else [op.as_dict() for op in parse_ops(o["text"])] for o in opts]
    except ValueError:
        return None
    correct = [k for k, o in enumerate(opts) if o.get("correct")]
    if len(correct) != 1 or len({len(s) for s in steps}) != 1:
        return None
    return steps, correct[0]


def _exact(op: dict) -> tuple:
    return op["op"], op["axis"], round(float(op["value"]), 6)


def _signed(op: dict) -> tuple:
    return op["op"], op["axis"], float(op["value"]) > 0


def needed(steps: list[list[dict]], correct: int) -> tuple[list[bool], list[bool]]:
    """Per step: (is it needed, is its magnitude needed) in one question."""
    true = steps[correct]
    step_needed, magnitude_needed = [], []
    for k in range(len(true)):
        same_rest = [s for s in steps
                     if all(_exact(s[j]) == _exact(true[j]) for j in range(len(true)) if j != k)]
        step_needed.append(len(same_rest) >= 2)
        magnitude_needed.append(sum(_signed(s[k]) == _signed(true[k]) for s in same_rest) >= 2)
    return step_needed, magnitude_needed


def step_label(records_steps: list[list[dict]], k: int) -> str:
    """'step 1: move x' when every question's true step k shares verb and axis, else 'step 1: move'."""
    verbs = {s[k]["op"] for s in records_steps}
    axes = {s[k]["axis"] for s in records_steps}
    verb = "/".join(sorted(verbs))
    return f"step {k + 1}: {verb}" + (f" {next(iter(axes))}" if len(axes) == 1 else "")


def necessity(programs: list[dict], read=None) -> dict | None:
    """Counts over one task's programs: {"n", "steps": [{"step", "label", "needed", "magnitude_needed"}]},
    or None when no program lists its options' steps. ``read``: program → (steps, correct) or None
    (the task type's ``option_steps``; default ``option_steps`` above)."""
    read = read or option_steps
    parsed = [p for p in (read(prog) for prog in programs) if p is not None]
    if not parsed:
        return None
    counts = defaultdict(lambda: [0, 0])
    trues = [steps[c] for steps, c in parsed]
    n_steps = min(len(t) for t in trues)
    for steps, c in parsed:
        step_needed, magnitude_needed = needed(steps, c)
        for k in range(n_steps):
            counts[k][0] += step_needed[k]
            counts[k][1] += magnitude_needed[k]
    return {"n": len(parsed),
            "steps": [{"step": k + 1, "label": step_label(trues, k), "needed": counts[k][0],
                       "magnitude_needed": counts[k][1]} for k in range(n_steps)]}
