"""The ``baseline`` command: reference predictors that give every score table its floor.

- ``random``: per question, a uniform draw from the task's answer space (seeded by the
  question id, so the same question always gets the same guess):
  * move/roll cloze: axis × value on the task's grid (``program["value_range"]``, its step
    = ``program["value_step"]`` or the greatest common divisor of the values the dataset
    holds, never 0); docking likewise for the roll and the move;
  * letters: A–D;
  * H-bond lists: the answer space is every set of (protein atom, ligand atom) pairs; the
    guess draws from the N/O atoms shown in the question's first image (its sidecar):
    T4 says No or Yes with 1–2 random pairs (even odds), T9 lists 0–3 random pairs
    (0 = "No"). Without sidecars (a plan-only dataset) T4 says "Yes"/"No", T9 "No";
  * other interaction kinds: Yes/No at even odds; residue lists of 0–3 residues shown.
- ``majority``: per task, the most frequent answer of the train split (ties: the first in
  sorted order). A task without train records falls back to all its records, and says so.
"""
from __future__ import annotations

import functools
import json
import math
import random
from collections import Counter
from pathlib import Path

from ..core.commands import Op, format_ops, parse_ops
from ..core.errors import InputError
from .output import dumps, write_text_atomic
from .records import by_split, load_records

KINDS = ("random", "majority")


def run_baseline(dataset: Path, kind: str, out: Path, split: str = "test", seed: int = 0) -> tuple[int, list[str]]:
    """Write predictions for the chosen split; returns (count, warnings)."""
    if kind not in KINDS:
        raise InputError("--kind", f"must be one of {', '.join(KINDS)}, not {kind!r}")
    records = load_records(dataset)
    chosen = by_split(records, split)
    if kind == "random":
        guess, warnings = RandomGuesser(records, Path(dataset), seed), []
    else:
        guess, warnings = _majority(records)
    lines = [dumps({"id": r["id"], "prediction": guess(r)}) for r in sorted(chosen, key=lambda r: r["id"])]
    write_text_atomic(Path(out), "".join(l + "\n" for l in lines))
    return len(lines), warnings


# ------------------------------------------------------------------ majority
def _majority(records):
    by_task: dict[str, Counter] = {}
    fallback: dict[str, Counter] = {}
    for r in records:
        (by_task if r["split"] == "train" else fallback).setdefault(r["task"], Counter())[r["answer"]] += 1
    warnings, answer = [], {}
    for task in sorted(set(by_task) | set(fallback)):
        counts = by_task.get(task)
        if not counts:
            counts = fallback[task]
            warnings.append(f"{task}: no train records; the majority answer is taken over its other records")
        answer[task] = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return (lambda r: answer[r["task"]]), warnings


# ------------------------------------------------------------------ random
class RandomGuesser:
    """Uniform guesses from each task's answer space, learnt from the dataset's programs."""

    def __init__(self, records, dataset: Path, seed: int):
        from ..core.tasks.scoring import rules_for

        self.dataset, self.seed = dataset, seed
        self.spaces = {}
        for task in sorted({r["task"] for r in records}):
            mine = [r for r in records if r["task"] == task]
            kind, rule = rules_for(task, mine[0].get("program"))
            if kind == "ops":
                self.spaces[task] = _docking_space(mine) if rule == "docking" else _cloze_space(mine)
            else:
                self.spaces[task] = kind

    def __call__(self, rec: dict) -> str:
        rng = random.Random(f"{self.seed}/{rec['id']}")
        space = self.spaces[rec["task"]]
        if callable(space):
            return space(rng)
        if space == "letter":
            return rng.choice("ABCD"[:len(rec.get("options") or "ABCD")])
        if space == "yesno":
            return rng.choice(("Yes", "No"))
        if space == "residues":
            return self._residues(rec, rng)
        return self._hbonds(space, rec, rng)

    def _residues(self, rec: dict, rng: random.Random) -> str:
        shown = _shown_residues(self.dataset, rec)
        k = min(rng.randint(0, 3), len(shown))
        if k == 0:
            return "No"
        picks = sorted(rng.sample(range(len(shown)), k))
        return "; ".join(f"{shown[i][3]} {shown[i][1]}{shown[i][2]} {shown[i][0] or '-'}" for i in picks)

    def _hbonds(self, kind: str, rec: dict, rng: random.Random) -> str:
        protein, ligand = _polar_atoms(self.dataset, rec)
        if kind == "residue":
            if rng.random() < 0.5:
                return "No"
            if not (protein and ligand):
                return "Yes"
            pairs = _random_pairs(protein, ligand, rng.randint(1, 2), rng)
            return "Yes: " + "; ".join(f"{p['resname']} {p['name']}, {l['name']}" for p, l in pairs)
        k = rng.randint(0, 3)
        if k == 0 or not (protein and ligand):
            return "No"
        return "; ".join(f"{p['resname']} {p['resseq']}{p['icode']} {p['name']} {p['chain'] or '-'}, {l['name']}"
                         for p, l in _random_pairs(protein, ligand, k, rng))


def _random_pairs(protein: list, ligand: list, k: int, rng: random.Random) -> list:
    picks = sorted({(rng.randrange(len(protein)), rng.randrange(len(ligand))) for _ in range(k)})
    return [(protein[i], ligand[j]) for i, j in picks]


def _polar_atoms(dataset: Path, rec: dict) -> tuple[list, list]:
    """N and O atoms shown in the question's first image (from its sidecar), as rows."""
    if not rec["images"]:
        return [], []
    return _polar_atoms_of(str((dataset / rec["images"][0]).with_suffix(".json")))


@functools.lru_cache(maxsize=256)      # questions of one structure share their views
def _polar_atoms_of(sidecar: str) -> tuple[list, list]:
    try:
        atoms = json.loads(Path(sidecar).read_text(encoding="utf-8"))["atoms"]
    except (OSError, ValueError, KeyError):
        return [], []
    rows = sorted({(bool(a["ligand"]), a["chain"], int(a["resseq"]), a.get("icode", ""), a["resname"], a["name"])
                   for a in atoms if a.get("element") in ("N", "O")})
    as_dict = [dict(zip(("ligand", "chain", "resseq", "icode", "resname", "name"), r)) for r in rows]
    return [a for a in as_dict if not a["ligand"]], [a for a in as_dict if a["ligand"]]


def _shown_residues(dataset: Path, rec: dict) -> list[tuple]:
    """(chain, resseq, icode, resname) of every protein residue shown in the first image."""
    if not rec["images"]:
        return []
    return _shown_residues_of(str((dataset / rec["images"][0]).with_suffix(".json")))


@functools.lru_cache(maxsize=256)
def _shown_residues_of(sidecar: str) -> list[tuple]:
    try:
        atoms = json.loads(Path(sidecar).read_text(encoding="utf-8"))["atoms"]
    except (OSError, ValueError, KeyError):
        return []
    return sorted({(a["chain"], int(a["resseq"]), a.get("icode", ""), a["resname"]) for a in atoms if not a["ligand"]})


def _grid(lo: float, hi: float, step: float) -> list[float]:
    n = int(math.floor((hi - lo) / step + 1e-9))
    return [v for v in (round(lo + i * step, 6) for i in range(n + 1)) if v != 0]


def _step(values, program_step=None) -> float:
    """The grid step: the program's, else the gcd of the given values (in thousandths)."""
    if program_step:
        return float(program_step)
    g = 0
    for v in values:
        g = math.gcd(g, abs(int(round(float(v) * 1000))))
    return g / 1000 if g else 1.0


def _cloze_space(records):
    ops = [parse_ops(r["answer"])[0] for r in records]
    verb = Counter(o.verb for o in ops).most_common(1)[0][0]
    progs = [r.get("program") or {} for r in records]
    axes = sorted({a for p in progs for a in p.get("axes", [])} or {o.axis for o in ops})
    ranges = [p["value_range"] for p in progs if "value_range" in p]
    lo = min([r[0] for r in ranges] or [min(o.value for o in ops)])
    hi = max([r[1] for r in ranges] or [max(o.value for o in ops)])
    steps = [p.get("value_step") for p in progs if p.get("value_step")]
    values = _grid(lo, hi, _step([o.value for o in ops] + [lo, hi], steps[0] if steps else None))
    return lambda rng: format_ops([Op(verb, rng.choice(axes), rng.choice(values))])


def _docking_space(records):
    truths = [parse_ops(r["answer"]) for r in records]
    rolls = [o for t in truths for o in t if o.verb == "roll"]
    moves = [o for t in truths for o in t if o.verb == "move"]
    progs = [r.get("program") or {} for r in records]
    r_lo = min([p["roll_range"][0] for p in progs if "roll_range" in p] or [-90.0])
    r_hi = max([p["roll_range"][1] for p in progs if "roll_range" in p] or [90.0])
    m_lo = min([p["move_range"][0] for p in progs if "move_range" in p] or [min(o.value for o in moves)])
    m_hi = max([p["move_range"][1] for p in progs if "move_range" in p] or [max(o.value for o in moves)])
    roll_axes = sorted({o.axis for o in rolls})
    move_axes = sorted({o.axis for o in moves})
    roll_values = _grid(r_lo, r_hi, _step([o.value for o in rolls] + [r_lo, r_hi]))
    move_values = _grid(m_lo, m_hi, _step([o.value for o in moves]))
    return lambda rng: format_ops([Op("roll", rng.choice(roll_axes), rng.choice(roll_values)),
                                   Op("move", rng.choice(move_axes), rng.choice(move_values))])
