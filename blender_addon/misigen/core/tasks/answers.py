"""Answer formatters and parsers beyond move/roll (those are ``core.op_grammar``): H-bond
lists (T4, T9) and option letters (a letter is written as ``common.LETTERS[i]``; only read here).
One formatter, one parser per format; round-trip tested."""
from __future__ import annotations

import re

from ..op_grammar import format_ops, parse_ops

# ------------------------------------------------------------------ H-bond pairs
_T9 = re.compile(r"^\s*(\S+)\s+(-?\d+)([A-Za-z]?)\s+(\S+)\s+(\S+)\s*,\s*(\S+)\s*$")
_T4 = re.compile(r"^\s*(\S+)\s+(\S+)\s*,\s*(\S+)\s*$")
_YESNO = re.compile(r"^\s*(yes|no)\b\s*[:.]?\s*(.*)$", re.IGNORECASE | re.DOTALL)


def hbond_entry(it) -> dict:
    """The identity of one H-bond as the programs carry it (full-structure rows included)."""
    return {"chain": it.chain, "resname": it.resname, "resseq": int(it.resseq), "icode": it.icode,
            "protein_atom": it.protein_atom, "ligand_atom": it.ligand_atom, "donor": it.donor,
            "distance": round(float(it.distance), 3), "protein_index": int(it.protein_index),
            "ligand_index": int(it.ligand_index), "criterion": it.criterion}


def _chain(c: str) -> str:
    return c if c else "-"


def format_pocket_hbonds(bonds: list[dict]) -> str:
    """T9: ``ARG 221 NH2 A, O22; ARG 221 N A, O23`` (order as given: the finder's order), or
    ``No`` for a complex without hydrogen bonds."""
    if not bonds:
        return "No"
    return "; ".join(f"{b['resname']} {b['resseq']}{b['icode']} {b['protein_atom']} {_chain(b['chain'])}, "
                     f"{b['ligand_atom']}" for b in bonds)


def parse_pocket_hbonds(text: str) -> list[tuple]:
    """→ [(resname, resseq, icode, protein_atom, chain, ligand_atom)], upper-cased ([] for 'No')."""
    if re.fullmatch(r"\s*no\s*\.?\s*", text, re.IGNORECASE):
        return []
    if not text.strip():
        raise ValueError("empty answer (a complex without hydrogen bonds is answered 'No')")
    out = []
    for part in [p for p in text.strip().rstrip(".").split(";") if p.strip()]:
        m = _T9.match(part)
        if not m:
            raise ValueError(f"not an H-bond 'RES NUM ATOM CHAIN, LIGATOM': {part!r}")
        res, num, ic, patom, chain, latom = m.groups()
        out.append((res.upper(), int(num), ic.upper(), patom.upper(), chain.upper(), latom.upper()))
    return out


def pocket_key(b: dict) -> tuple:
    return (b["resname"].upper(), int(b["resseq"]), b["icode"].upper(), b["protein_atom"].upper(),
            _chain(b["chain"]).upper(), b["ligand_atom"].upper())


def format_residue_answer(bonds: list[dict]) -> str:
    """T4: ``No`` or ``Yes: ARG NH2, O1B; ARG NE, O2G``."""
    if not bonds:
        return "No"
    return "Yes: " + "; ".join(f"{b['resname']} {b['protein_atom']}, {b['ligand_atom']}" for b in bonds)


def parse_residue_answer(text: str) -> tuple[bool, list[tuple]]:
    """→ (yes?, [(resname, protein_atom, ligand_atom)]), upper-cased."""
    m = _YESNO.match(text)
    if not m:
        raise ValueError(f"expected 'No' or 'Yes: RES ATOM, LIGATOM; ...', got {text!r}")
    yes = m.group(1).lower() == "yes"
    pairs = []
    rest = m.group(2).strip().rstrip(".")
    if yes and rest:
        for part in [p for p in rest.split(";") if p.strip()]:
            mm = _T4.match(part)
            if not mm:
                raise ValueError(f"not an H-bond 'RES ATOM, LIGATOM': {part!r}")
            pairs.append(tuple(x.upper() for x in mm.groups()))
    return yes, pairs


def residue_key(b: dict) -> tuple:
    return (b["resname"].upper(), b["protein_atom"].upper(), b["ligand_atom"].upper())


# ------------------------------------------------------------------ residue-level kinds (T4/T9 variants)
_RES = re.compile(r"^\s*(\S+)\s+(-?\d+)([A-Za-z]?)\s+(\S+)\s*$")


def format_yesno(yes: bool) -> str:
    return "Yes" if yes else "No"


def parse_yesno(text: str) -> bool:
    m = re.fullmatch(r"\s*(yes|no)\s*\.?\s*", text or "", re.IGNORECASE)
    if not m:
        raise ValueError(f"expected 'Yes' or 'No', got {text!r}")
    return m.group(1).lower() == "yes"


def residue_entry(chain, resname, resseq, icode) -> dict:
    return {"chain": chain, "resname": resname, "resseq": int(resseq), "icode": icode}


def format_residues(residues: list[dict]) -> str:
    """T9 variants: ``ASP 189 A; LYS 70 A`` (sorted by chain, number), or ``No``."""
    if not residues:
        return "No"
    rows = sorted(residues, key=lambda r: (r["chain"], r["resseq"], r["icode"]))
    return "; ".join(f"{r['resname']} {r['resseq']}{r['icode']} {_chain(r['chain'])}" for r in rows)


def parse_residues(text: str) -> list[tuple]:
    """→ [(resname, resseq, icode, chain)], upper-cased ([] for 'No')."""
    if re.fullmatch(r"\s*no\s*\.?\s*", text, re.IGNORECASE):
        return []
    if not text.strip():
        raise ValueError("empty answer (answer 'No' if there is none)")
    out = []
    for part in [p for p in text.strip().rstrip(".").split(";") if p.strip()]:
        m = _RES.match(part)
        if not m:
            raise ValueError(f"not a residue 'RES NUM CHAIN': {part!r}")
        res, num, ic, chain = m.groups()
        out.append((res.upper(), int(num), ic.upper(), chain.upper()))
    return out


# ------------------------------------------------------------------ letters
_LETTER = re.compile(r"^\s*(?:option\s*)?[\(\[]?\s*([A-Da-d])\s*[\)\]\.:]?(?:\s|$)", re.IGNORECASE)


def parse_letter(text: str) -> str:
    m = _LETTER.match(text or "")
    if not m:
        raise ValueError(f"expected a letter A–D, got {text!r}")
    return m.group(1).upper()


# ------------------------------------------------------------------ canonical form (exact match)
def canonical(kind: str, text: str, equivalence=None) -> str:
    """The answer re-formatted from its parse, so spacing and case do not matter. With an
    ``equivalence`` (``core.chemistry.equivalence.Equivalence``), H-bond answers name every atom by the first
    name of its equivalence class (ASP OD2 → OD1), bonds sorted, each distinct bond once."""
    if kind == "ops":
        return format_ops(parse_ops(text))
    if kind == "letter":
        return parse_letter(text)
    if kind == "residue":
        yes, pairs = parse_residue_answer(text)
        if equivalence is not None:
            pairs = sorted(map(equivalence.residue_key, set(pairs)))
        return "Yes: " + "; ".join(f"{r} {p}, {l}" for r, p, l in pairs) if yes else "No"
    if kind == "yesno":
        return format_yesno(parse_yesno(text))
    if kind == "residues":
        rows = sorted(parse_residues(text), key=lambda r: (r[3], r[1], r[2]))
        return "; ".join(f"{r} {n}{i} {c}" for r, n, i, c in rows) if rows else "No"
    if kind == "pocket":
        bonds = parse_pocket_hbonds(text)
        if equivalence is not None:
            bonds = sorted(map(equivalence.pocket_key, set(bonds)))
        return "; ".join(f"{r} {n}{i} {p} {c}, {l}" for r, n, i, p, c, l in bonds) if bonds else "No"
    raise ValueError(kind)
