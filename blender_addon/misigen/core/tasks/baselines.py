"""Random answers for the ``baseline`` command: a uniform draw from a task's answer space.

Answer kinds draw from what a question shows (``atoms``: the atoms of its first image's sidecar,
[] without one); move/roll tasks draw on the grid their programs state. The file reading stays
in ``pipeline/baseline.py``; everything here is pure.
"""
from __future__ import annotations

import math
import random
from collections import Counter

from ..op_grammar import Op, format_ops, parse_ops

LETTERS = "ABCD"


# ------------------------------------------------------------------ per answer kind
def random_letter(rec: dict, rng: random.Random, atoms: list) -> str:
    return rng.choice(LETTERS[:len(rec.get("options") or LETTERS)])


def random_yesno(rec: dict, rng: random.Random, atoms: list) -> str:
    return rng.choice(("Yes", "No"))


def polar_atoms(atoms: list) -> tuple[list, list]:
    """N and O atoms shown, as rows: (protein, ligand)."""
    rows = sorted({(bool(a["ligand"]), a["chain"], int(a["resseq"]), a.get("icode", ""), a["resname"], a["name"])
                   for a in atoms if a.get("element") in ("N", "O")})
    as_dict = [dict(zip(("ligand", "chain", "resseq", "icode", "resname", "name"), r)) for r in rows]
    return [a for a in as_dict if not a["ligand"]], [a for a in as_dict if a["ligand"]]


def shown_residues(atoms: list) -> list[tuple]:
    """(chain, resseq, icode, resname) of every protein residue shown."""
    return sorted({(a["chain"], int(a["resseq"]), a.get("icode", ""), a["resname"]) for a in atoms if not a["ligand"]})


def _random_pairs(protein: list, ligand: list, k: int, rng: random.Random) -> list:
    picks = sorted({(rng.randrange(len(protein)), rng.randrange(len(ligand))) for _ in range(k)})
    return [(protein[i], ligand[j]) for i, j in picks]


def random_residue_hbonds(rec: dict, rng: random.Random, atoms: list) -> str:
    """No, or Yes with 1–2 random (protein N/O, ligand N/O) pairs, at even odds."""
    protein, ligand = polar_atoms(atoms)
    if rng.random() < 0.5:
        return "No"
    if not (protein and ligand):
        return "Yes"
    pairs = _random_pairs(protein, ligand, rng.randint(1, 2), rng)
    return "Yes: " + "; ".join(f"{p['resname']} {p['name']}, {lg['name']}" for p, lg in pairs)


def random_pocket_hbonds(rec: dict, rng: random.Random, atoms: list) -> str:
    """0–3 random (protein N/O, ligand N/O) pairs (0 = "No")."""
    protein, ligand = polar_atoms(atoms)
    k = rng.randint(0, 3)
    if k == 0 or not (protein and ligand):
        return "No"
    return "; ".join(f"{p['resname']} {p['resseq']}{p['icode']} {p['name']} {p['chain'] or '-'}, {lg['name']}"
                     for p, lg in _random_pairs(protein, ligand, k, rng))


def random_residues(rec: dict, rng: random.Random, atoms: list) -> str:
    """0–3 random residues shown (0 = "No")."""
    shown = shown_residues(atoms)
    k = min(rng.randint(0, 3), len(shown))
    if k == 0:
        return "No"
    picks = sorted(rng.sample(range(len(shown)), k))
    return "; ".join(f"{shown[i][3]} {shown[i][1]}{shown[i][2]} {shown[i][0] or '-'}" for i in picks)


# ------------------------------------------------------------------ move/roll grids (per task type)
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


def cloze_space(records):
    """One command: axis × value on the tasks' grid (``value_range``, ``value_step`` or the gcd)."""
    ops = [parse_ops(r["answer"])[0] for r in records]
    verb = Counter(o.verb for o in ops).most_common(1)[0][0]
    progs = [r.get("program") or {} for r in records]
    axes = sorted({a for p in progs for a in p.get("axes", [])} or {o.axis for o in ops})
    ranges = [p["value_range"] for p in progs if "value_range" in p]
    lo = min([r[0] for r in ranges] or [min(o.value for o in ops)])
    hi = max([r[1] for r in ranges] or [max(o.value for o in ops)])
    steps = [p.get("value_step") for p in progs if p.get("value_step")]
    values = _grid(lo, hi, _step([o.value for o in ops] + [lo, hi], steps[0] if steps else None))
    return lambda rec, rng, atoms: format_ops([Op(verb, rng.choice(axes), rng.choice(values))])


def roll_move_space(records):
    """A roll then a move, each on its grid (``roll_range``, ``move_range``)."""
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
    return lambda rec, rng, atoms: format_ops([Op("roll", rng.choice(roll_axes), rng.choice(roll_values)),
                                               Op("move", rng.choice(move_axes), rng.choice(move_values))])
