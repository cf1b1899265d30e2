"""Answer kinds: how an answer is read, put in canonical form, scored, checked and guessed.

A task type names its kind (``TaskType.answer_kind``); a spec variant may change it per record
(``program["answer_kind"]``: interaction kinds beyond H-bonds answer Yes/No or residue lists).
A task module may define more kinds (``ANSWER_KINDS`` beside its ``TASK_TYPES``).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable

from ..chemistry.equivalence import Equivalence
from . import baselines, guessers, rederive
from .answers import canonical, parse_residue_answer, parse_pocket_hbonds, parse_residues, parse_yesno
from .composite import list_scores
from .predictions import READERS


@dataclass(frozen=True)
class AnswerKind:
    name: str
    reader: Callable                       # (candidate text, options) → strict answer | None
    canonical: Callable                    # strict text → canonical text (exact match compares these)
    is_list: bool = False                  # lists of entries: set scores and F1 (``entries``)
    entries: Callable | None = None        # text → (says there is none, frozenset of entries)
    yes: Callable | None = None            # true answer → bool: score rows split into /pos and /neg
    check: Callable | None = None          # record → problems: the answer agrees with its program
    random: Callable | None = None         # (record, rng, atoms) → a random answer (``baseline``)
    audit: Callable | None = None          # (records, rows, section, load_image): guessers of every such task
    guessers: tuple = ()                   # names (or regular expressions) of the guessers ``audit`` reports
    # (entry, Equivalence) → the entry's equivalence-class key: entries naming equivalent atoms
    # (ASP OD1/OD2, a ligand's symmetric atoms; core/chemistry/equivalence.py) are one answer
    equivalent: Callable | None = None

    def score(self, strict: str | None, truth: str, program: dict | None = None) -> dict | None:
        """Exact/composite/F1 of a list answer (None: not a list kind)."""
        return list_scores(self.counted(program), strict, truth) if self.is_list else None

    def counted(self, program: dict | None):
        """``entries`` with each distinct entry mapped to its class key (``equivalent``) and counted."""
        if self.equivalent is None:
            return self.entries
        eq = Equivalence.of(program)

        def entries(text: str):
            none, found = self.entries(text)
            return none, Counter(self.equivalent(e, eq) for e in found)
        return entries


def _canonical(kind: str):
    return lambda text: canonical(kind, text)


def _residue_entries(text: str) -> tuple[bool, frozenset]:
    yes, pairs = parse_residue_answer(text)
    return (not yes, frozenset(pairs))


def _none_or(parse):
    def entries(text: str) -> tuple[bool, frozenset]:
        if text.strip().rstrip(".").lower() in ("", "no"):
            return (True, frozenset())
        return (False, frozenset(parse(text)))
    return entries


OPS = AnswerKind("ops", READERS["ops"], _canonical("ops"), check=rederive.check_ops)
LETTER = AnswerKind("letter", READERS["letter"], _canonical("letter"), check=rederive.check_letter,
                    random=baselines.random_letter, audit=guessers.letters, guessers=guessers.LETTER_GUESSERS)
YESNO = AnswerKind("yesno", READERS["yesno"], _canonical("yesno"), yes=parse_yesno, random=baselines.random_yesno)
RESIDUE = AnswerKind("residue", READERS["residue"], _canonical("residue"), is_list=True, entries=_residue_entries,
                     yes=lambda text: bool(_residue_entries(text)[1]), check=rederive.check_residue,
                     random=baselines.random_residue_hbonds, equivalent=lambda e, eq: eq.residue_key(e))
POCKET = AnswerKind("pocket", READERS["pocket"], _canonical("pocket"), is_list=True,
                    entries=_none_or(parse_pocket_hbonds), check=rederive.check_pocket,
                    random=baselines.random_pocket_hbonds, equivalent=lambda e, eq: eq.pocket_key(e))
RESIDUES = AnswerKind("residues", READERS["residues"], _canonical("residues"), is_list=True,
                      entries=_none_or(parse_residues), random=baselines.random_residues)

ANSWER_KINDS = {k.name: k for k in (OPS, LETTER, YESNO, RESIDUE, POCKET, RESIDUES)}
