"""What ``validate`` re-derives from a record and its images' sidecars, per answer kind and task type.

Answer-kind checks (``check``: the answer agrees with the record's program) and task-type
re-derivations (``rederive``: the answer replays on the sidecars). Each returns a list of
problems (empty = fine). ``sidecar(rel)`` → a ``core.sidecar.Sidecar`` or None.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from .. import geometry
from ..equivalence import Equivalence
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
    """The distinct bonds as equivalence-class keys, counted (core/equivalence.py): OD1 or OD2 of
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


# ------------------------------------------------------------------ replays on the sidecars (task types)
def hbonds_only(rederive):
    """Atom-level checks apply to H-bond answers; other interaction kinds name groups, not atoms."""
    def wrapped(rec: dict, sidecar) -> list[str]:
        if (rec["program"] or {}).get("interaction", "hbond") != "hbond":
            return []
        return rederive(rec, sidecar)
    return wrapped


def after_image(rec: dict, sidecar) -> list[str]:
    """One command: the after-image's atoms sit where the answer's transform puts the first image's."""
    start, after = sidecar(rec["images"][0]), sidecar(rec["images"][-1])
    if start is None or after is None:
        return ["sidecar unreadable"]
    if start.keys != after.keys:
        return ["start and after images show different atoms"]
    answer = rec["answer"]
    centre = after.centre if after.centre is not None else start.world.mean(axis=0)
    m, _ = geometry.compose(parse_ops(answer), centre)
    predicted = geometry.apply(after.w2c, geometry.apply(m, start.world))
    err = float(np.abs(predicted - after.cam).max()) if len(predicted) else 0.0
    if err > TOLERANCE:
        return [f"the after-image's atoms are up to {err:.2f} Å from where {answer!r} puts them"]
    return []


def redock(rec: dict, sidecar) -> list[str]:
    """The answer, applied to the moved ligand of the last image about its own centre, re-docks it."""
    combined = sidecar(rec["images"][-1])
    lig_centre = (rec["program"] or {}).get("ligand_centre")
    if combined is None or lig_centre is None or not combined.ligand.any():
        return [] if lig_centre is None else ["docking: the last image shows no ligand"]
    moved = combined.world[combined.ligand]
    m, _ = geometry.compose(parse_ops(rec["answer"]), moved.mean(axis=0))
    back = geometry.apply(m, moved).mean(axis=0)
    err = float(np.abs(back - np.asarray(lig_centre, float)).max())
    if err > TOLERANCE * 5:
        return [f"docking: {rec['answer']!r} leaves the ligand centre {err:.2f} Å from its bound place"]
    return []


def front(rec: dict, sidecar):
    """The record's front view: its first image posed without any whole-model ops."""
    for rel in rec["images"]:
        side = sidecar(rel)
        if side is not None and not side.ops.get("all"):
            return side
    return sidecar(rec["images"][0])


def centred_bond(rec: dict, sidecar) -> list[str]:
    """The answered option's moves bring the named H-bond's centre to the screen centre (± 0.5 Å)."""
    hb = (rec["program"] or {}).get("hbond")
    side = front(rec, sidecar)
    letters = LETTERS[:len(rec["options"] or ())]
    if hb is None or side is None or rec["answer"] not in letters:
        return []
    protein = side.find(chain=hb["chain"], resseq=int(hb["resseq"]), resname=hb["resname"],
                        name=hb["protein_atom"], ligand=False)
    ligand = side.find(name=hb["ligand_atom"], ligand=True)
    if not protein or not ligand:
        return [f"the H-bond {hb['resname']} {hb['resseq']} {hb['protein_atom']} / {hb['ligand_atom']} "
                "is not in the front image"]
    mid = (side.cam[protein[0]] + side.cam[ligand[0]]) / 2
    residual = {}
    for letter, text in zip(letters, rec["options"]):
        shift = np.zeros(3)
        for op in parse_ops(text):
            if op.verb == "move":
                shift["xyz".index(op.axis)] += op.value
        residual[letter] = float(np.abs((mid + shift)[:2]).max())
    if residual[rec["answer"]] > 0.5 + TOLERANCE:
        return [f"option {rec['answer']} leaves the H-bond centre {residual[rec['answer']]:.2f} Å off the "
                "screen centre"]
    if min(residual.values()) < residual[rec["answer"]] - 1e-6:
        return [f"option {min(residual, key=residual.get)} centres the H-bond better than the answer"]
    return []


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


def pocket_atoms(rec: dict, sidecar) -> list[str]:
    """Every atom a pocket answer names is in one of the record's images."""
    bonds = pocket_bonds(rec["answer"]) or []
    return named_atoms_exist(rec, sidecar, [({"chain": b["chain"], "resseq": b["resseq"], "icode": b["icode"] or None,
                                              "resname": b["resname"], "name": b["protein_atom"], "ligand": False},
                                             b["ligand_atom"]) for b in bonds])


def residue_atoms(rec: dict, sidecar) -> list[str]:
    """Every atom a residue answer names is in one of the record's images."""
    bonds = residue_bonds(rec["answer"]) or []
    return named_atoms_exist(rec, sidecar, [({"resname": b["resname"], "name": b["protein_atom"], "ligand": False},
                                             b["ligand_atom"]) for b in bonds])
