"""Random answers for the ``baseline`` command: a uniform draw from a task's answer space.

Answer kinds draw from what a question shows (``atoms``: the atoms of its first image's sidecar,
[] without one); move/roll tasks draw on the grid their programs state (``grid``, ``grid_step``;
each task's draw is in its folder). The file reading stays in ``pipeline/baseline.py``; everything
here is pure.
"""
from __future__ import annotations

import math
import random


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
def grid(lo: float, hi: float, step: float) -> list[float]:
    n = int(math.floor((hi - lo) / step + 1e-9))
    return [v for v in (round(lo + i * step, 6) for i in range(n + 1)) if v != 0]


def grid_step(values, program_step=None) -> float:
    """The grid step: the program's, else the gcd of the given values (in thousandths)."""
    if program_step:
        return float(program_step)
    g = 0
    for v in values:
        g = math.gcd(g, abs(int(round(float(v) * 1000))))
    return g / 1000 if g else 1.0
