"""Interaction kinds the H-bond tasks (T4, T8, T9) can ask about, with the words and criteria
their prompts state: what the finder's kind table says (``core.chemistry.interactions.KINDS``; the numbers
and words are in ``core/data/interactions/*.yaml``), so a prompt never disagrees with the ground truth.

Answer forms: H-bonds keep MiSI-Bench's atom-level forms; the other kinds are asked at the
residue level — T4 ``Yes`` / ``No``, T9 a list of residues ``ASP 189 A; LYS 70 A`` (or ``No``)
— because their partners are groups (rings, charged groups) that labels cannot name one by one.
"""
from __future__ import annotations

from ..chemistry.interactions import KINDS

NAMES = tuple(KINDS)


def name(kind: str, plural: bool = False) -> str:
    return KINDS[kind].plural if plural else KINDS[kind].noun


def criteria_text(kind: str) -> str:
    """The criterion the ground truth uses, in words, with its numbers."""
    return KINDS[kind].criteria_text()


def check_kind(kind: str) -> bool:
    return kind in KINDS
