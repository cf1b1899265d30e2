"""Reading a model's raw output as an answer: lenient about form, strict about content.

``read_prediction(kind, raw)`` reduces what a model wrote to the strict answer grammar of
``core.op_grammar`` (``move x 3``, ``roll x 75, move x -14``) and ``answers`` (a letter,
``No`` / ``Yes: ARG NH2, O1B``, ``ARG 221 NH2 A, O22; …``, ``Yes``, ``ASP 189 A; …``), or returns None when no answer
of that kind can be read. Forgiven, as a human reader would: case and spacing, a trailing
period, code fences, Markdown bold, ``<think>`` blocks, ``Answer: C``, ``(C)``, ``Option C``,
units (``roll y 15°``, ``move x 3 Å``), an explicit plus sign, commands joined by "then"/"and",
H-bonds one per line or as a bulleted list, and a final-answer line after reasoning.
Not forgiven: a wrong axis, verb, number, atom or residue, a second letter, or extra words
inside a command.
"""
from __future__ import annotations

import re

from ..op_grammar import format_ops, parse_ops

KINDS = ("ops", "letter", "residue", "pocket", "yesno", "residues")
LIST_KINDS = ("residue", "pocket", "residues")      # one answer may list several entries

_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"^\s*```[\w-]*\s*$", re.MULTILINE)
# 'Answer: C', 'The final answer is C', 'answer - C': the text after the marker is the answer.
_MARKER = re.compile(r"\b(?:final\s+)?answer\s*(?:is\b|:|-|=)?", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_TRAIL = " \t\n.。!;,"


def read_prediction(kind: str, raw, options=None) -> str | None:
    """The strict answer that ``raw`` states, or None (empty, or not an answer of this kind).

    ``options``: the record's A–D option texts; a prediction that repeats one option's text
    (e.g. ``move x -2, move y 6`` for a location question) reads as that option's letter.
    """
    if not isinstance(kind, str):               # an ``AnswerKind`` (a task module may define its own)
        reader, list_kind = kind.reader, kind.is_list
    elif kind in KINDS:
        reader, list_kind = _READERS[kind], kind in LIST_KINDS
    else:
        raise ValueError(f"unknown answer kind {kind!r} (known: {', '.join(KINDS)})")
    if not isinstance(raw, str):
        return None
    text = _clean(raw)
    if not text:
        return None
    for candidate in _candidates(text, list_kind=list_kind):
        got = reader(candidate, options)
        if got is not None:
            return got
    return None


# ------------------------------------------------------------------ shared clean-up
def _clean(raw: str) -> str:
    text = _THINK.sub(" ", raw)
    text = _FENCE.sub("", text)
    text = text.replace("`", "").replace("**", "").replace("__", "")
    text = text.replace("\u2212", "-").replace("\u00a0", " ")    # minus sign, no-break space
    return text.strip()


def _candidates(text: str, list_kind: bool) -> list[str]:
    """Readings to try, most explicit first: after an answer marker (last marker first),
    the whole text, its last line; for lists also the lines joined as one list."""
    out: list[str] = []
    for m in reversed(list(_MARKER.finditer(text))):
        rest = text[m.end():].strip()
        out += [rest, rest.split("\n", 1)[0]]
        if list_kind:
            out.append(_join_lines(rest))
    out.append(text)
    if list_kind:
        out.append(_join_lines(text))
    lines = [l for l in text.splitlines() if l.strip()]
    if lines:
        out.append(lines[-1])
    seen, uniq = set(), []
    for c in (c.strip().strip(_TRAIL).strip() for c in out):
        if c and c not in seen:
            seen.add(c)
            uniq.append(c)
    return uniq


def _join_lines(text: str) -> str:
    lines = [_BULLET.sub("", l).strip().rstrip(".;") for l in text.splitlines()]
    return "; ".join(l for l in lines if l)


def _unquote(text: str) -> str:
    text = text.strip().strip(_TRAIL).strip()
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1].strip()
    return text


# ------------------------------------------------------------------ ops: move/roll commands
_UNITS = re.compile(r"\s*(?:°|º|degrees?\b|deg\b|ångströms?\b|angstroms?\b|å\b|Å)", re.IGNORECASE)
_SEP = re.compile(r"\s*(?:[,;\n]|\bthen\b|\band\b)\s*(?:then\b)?\s*", re.IGNORECASE)
_OP = re.compile(r"(move|roll)\s+([xyz])\s*(?:by\s+)?([-+]?\s*\d+(?:\.\d+)?)", re.IGNORECASE)


def _read_ops(text: str, options=None) -> str | None:
    text = _UNITS.sub("", _unquote(text))
    parts = [p for p in _SEP.split(text) if p.strip()]
    if not parts:
        return None
    ops = []
    for part in parts:
        m = _OP.fullmatch(part.strip().strip(_TRAIL).strip())
        if not m:
            return None
        ops.append(f"{m.group(1).lower()} {m.group(2).lower()} {m.group(3).replace(' ', '')}")
    return format_ops(parse_ops(", ".join(ops)))


# ------------------------------------------------------------------ letters
_LETTER = re.compile(r"(?:option\s*)?[(\[]?\s*([A-Da-d])\s*[)\]]?(?:\s*[.:)\-]\s*(.*))?", re.IGNORECASE | re.DOTALL)


def _read_letter(text: str, options=None) -> str | None:
    text = _unquote(text)
    m = _LETTER.fullmatch(text)
    if m:
        return m.group(1).upper()
    # The text of one option, written out instead of its letter.
    if options and all(isinstance(o, str) for o in options):
        mine = _read_ops(text)
        for letter, option in zip("ABCD", options):
            if _unquote(option).lower() == text.lower() or (mine is not None and mine == _read_ops(option)):
                return letter
    return None


# ------------------------------------------------------------------ H-bond lists
_NO = re.compile(r"no(?:ne)?(?:\s+h(?:ydrogen)?[- ]?bonds?)?", re.IGNORECASE)
_YESNO = re.compile(r"(yes|no)\b\s*[:,.\-]?\s*(.*)", re.IGNORECASE | re.DOTALL)
_T4_BOND = re.compile(r"(\S+)\s+(\S+)\s*,\s*(\S+)")
_T9_BOND = re.compile(r"(\S+)\s+(-?\d+)([A-Za-z]?)\s+(\S+)\s+(\S+)\s*,\s*(\S+)")


def _bond_parts(text: str) -> list[str]:
    return [p for p in (_BULLET.sub("", q).strip().strip(_TRAIL).strip() for q in re.split(r"[;\n]", text)) if p]


def _read_residue(text: str, options=None) -> str | None:
    m = _YESNO.fullmatch(_unquote(text))
    if not m:
        return None
    rest = m.group(2).strip().strip(_TRAIL).strip()
    bonds = _residue_bonds(rest)
    if m.group(1).lower() == "no":
        # 'No, it forms none' reads as No; 'No: ARG NH2, O1B' contradicts itself.
        return "No" if not (rest and bonds) else None
    if bonds is None:
        return None
    return "Yes: " + "; ".join(bonds) if bonds else "Yes"


def _residue_bonds(text: str) -> list[str] | None:
    bonds = []
    for part in _bond_parts(text):
        b = _T4_BOND.fullmatch(part)
        if not b:
            return None
        bonds.append(f"{b.group(1).upper()} {b.group(2).upper()}, {b.group(3).upper()}")
    return bonds


def _read_pocket(text: str, options=None) -> str | None:
    text = _unquote(text)
    if _NO.fullmatch(text):
        return "No"
    bonds = []
    for part in _bond_parts(text):
        b = _T9_BOND.fullmatch(part)
        if not b:
            return None
        res, num, icode, patom, chain, latom = b.groups()
        bonds.append(f"{res.upper()} {int(num)}{icode.upper()} {patom.upper()} {chain.upper()}, {latom.upper()}")
    return "; ".join(bonds) if bonds else None


# ------------------------------------------------------------------ other interaction kinds (Yes/No, residue lists)
_RESIDUE = re.compile(r"(\S+)\s+(-?\d+)([A-Za-z]?)\s+(\S+)")


_VERDICT = re.compile(r"(yes|no)\s*(?:[.!]\s*)?(?:[,:;.\-]\s*(.*))?", re.IGNORECASE | re.DOTALL)


def _read_yesno(text: str, options=None) -> str | None:
    """'Yes', 'No.', 'Yes, it forms one.' — a verdict word, then only punctuation or an explanation set
    off by punctuation that does not give the other verdict ('No idea', 'Yes and no' are not answers)."""
    m = _VERDICT.fullmatch(_unquote(text).strip())
    if not m:
        return None
    word, rest = m.group(1).lower(), (m.group(2) or "")
    other = "no" if word == "yes" else "yes"
    if re.search(rf"\b{other}\b", rest, re.IGNORECASE):
        return None
    return "Yes" if word == "yes" else "No"


def _read_residues(text: str, options=None) -> str | None:
    text = _unquote(text)
    if _NO.fullmatch(text):
        return "No"
    rows = []
    for part in _bond_parts(text):
        r = _RESIDUE.fullmatch(part)
        if not r:
            return None
        res, num, icode, chain = r.groups()
        rows.append(f"{res.upper()} {int(num)}{icode.upper()} {chain.upper()}")
    return "; ".join(rows) if rows else None


_READERS = {"ops": _read_ops, "letter": _read_letter, "residue": _read_residue, "pocket": _read_pocket,
            "yesno": _read_yesno, "residues": _read_residues}

READERS = _READERS

__all__ = ["read_prediction", "KINDS", "LIST_KINDS", "READERS"]
