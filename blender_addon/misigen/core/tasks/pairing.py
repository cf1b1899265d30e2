"""Pairing a complex with another complex of the same run (T5's target), deterministically.

The partner depends only on the root seed, the complex's id and the run's full, sorted list
of structures in the same split — not on sharding, worker count or resume — so every way
of splitting the work picks the same partner.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .common import stable_hash


class PartnerCatalog:
    """The run's structures by split, and a loader for any of them (pipeline-provided)."""

    def __init__(self, splits: dict, load: Callable):
        self.splits = dict(splits)          # structure id → "train" | "test"
        self.load = load                    # structure id → Structure (raises InputError on bad input)

    def candidates(self, split: str, exclude: str) -> list[str]:
        return sorted(i for i, s in self.splits.items() if s == split and i != exclude)


def partner_order(seed: int, structure_id: str, candidates: list[str]) -> list[str]:
    """The candidates in the order this complex tries them as its partner."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        [int(seed) & 0xFFFFFFFFFFFFFFFF, stable_hash("partner", structure_id)])))
    cands = sorted(candidates)
    return [cands[int(k)] for k in rng.permutation(len(cands))]
