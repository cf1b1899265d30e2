"""What ``validate`` checks per answer kind, and the readings the tasks' re-derivations share.

Answer-kind checks (``check``: the answer agrees with the record's program) live here; each task's
re-derivation (``TaskType.rederive``: the answer replays on the sidecars) is in its folder, using
the answer readers and ``named_atoms_exist`` below. Each returns a list of problems (empty = fine).
``sidecar(rel)`` → a ``core.scene.sidecar.Sidecar`` or None.
"""
from __future__ import annotations

from collections import Counter


from ..chemistry.equivalence import Equivalence
from ..op_grammar import parse_ops
from .answers import parse_pocket_hbonds, parse_residue_answer

LETTERS = "ABCD"
TOLERANCE = 0.02          # Å: sidecar coordinates are rounded to 0.001 Å


# ------------------------------------------------------------------ answer against program (answer kinds)
def _ops_of(program_ops) -> list[tuple]:
    return [(o["op"], o["axis"], float(o["value"])) for o in program_ops]


def check_ops(rec: dict) -> list[str]:
    answer, program = rec["answer"], rec["program"] or {}
    try:
        ops = [(o.verb, o.axis, float(o.value)) for o in parse_ops(answer)]
    except ValueError as exc:
        return [f"answer does not parse ({exc})"]
    if "ops" in program and ops != _ops_of(program["ops"]):
        return [f"answer {answer!r} disagrees with the program's ops"]
    return []


def check_letter(rec: dict) -> list[str]:
    answer, program = rec["answer"], rec["program"] or {}
    letters = LETTERS[:len(rec["options"] or ())]
    if answer not in letters:
        return [f"answer {answer!r} is not a letter {letters[:1]}-{letters[-1:]}"]
    if "correct" in program and program["correct"] != answer:
        return [f"answer {answer} disagrees with the program's correct option {program['correct']}"]
    return []


POCKET_KEY = ("resname", "resseq", "icode", "protein_atom", "chain", "ligand_atom")
RESIDUE_KEY = ("resname", "protein_atom", "ligand_atom")


def _bond_set(bonds, keys, program=None) -> Counter:
    """The distinct bonds as equivalence-class keys, counted (core/chemistry/equivalence.py): OD1 or OD2 of
    an ASP, or either atom of a ligand symmetry class, is the same bond."""
    eq = Equivalence.of(program)
    out: Counter = Counter()
    for named in {tuple(str(b.get(k, "")).upper().replace("-", "") for k in keys) for b in bonds}:
        t = dict(zip(keys, named))
        t["protein_atom"] = eq.protein(t["resname"], t["protein_atom"])
        t["ligand_atom"] = eq.ligand_atom(t["ligand_atom"])
        out[tuple(t[k] for k in keys)] += 1
    return out


def pocket_bonds(answer: str):
    """A pocket answer's bonds as dicts, or None when the answer does not parse."""
    try:
        bonds = parse_pocket_hbonds(answer)
    except ValueError:
        return None
    return [{"resname": r, "resseq": n, "icode": ic, "protein_atom": pa, "chain": "" if c == "-" else c,
             "ligand_atom": la} for r, n, ic, pa, c, la in bonds]


def residue_bonds(answer: str):
    """A residue answer's bonds as dicts, or None when the answer does not parse."""
    try:
        _yes, pairs = parse_residue_answer(answer)
    except ValueError:
        return None
    return [{"resname": r, "protein_atom": pa, "ligand_atom": la} for r, pa, la in pairs]


def bond_check(read, keys, form):
    def check(rec: dict) -> list[str]:
        answer, program = rec["answer"], rec["program"] or {}
        bonds = read(answer)
        if bonds is None:
            return [f"answer does not parse as {form}: {answer!r}"]
        if "hbonds" in program and _bond_set(bonds, keys, program) != _bond_set(program["hbonds"], keys, program):
            return ["answer's H-bonds disagree with the program's"]
        return []
    return check


check_pocket = bond_check(pocket_bonds, POCKET_KEY, "H-bonds 'RES NUM ATOM CHAIN, LIGATOM; …'")
check_residue = bond_check(residue_bonds, RESIDUE_KEY, "'No' or 'Yes: RES ATOM, LIGATOM; …'")


def named_atoms_exist(rec: dict, sidecar, pairs) -> list[str]:
    sides = [s for s in (sidecar(rel) for rel in rec["images"]) if s is not None]
    problems = []
    for protein, ligand_atom in pairs:
        if not any(s.find(**protein) for s in sides):
            problems.append(f"H-bond atom {protein['resname']} {protein.get('resseq', '')} {protein['name']} "
                            "is in none of the record's images")
        if not any(s.find(name=ligand_atom, ligand=True) for s in sides):
            problems.append(f"H-bond ligand atom {ligand_atom} is in none of the record's images")
    return problems
