"""Naming a HETATM ligand: the selectors ``RES[:CHAIN[:NUM]]`` (joined with ``+``) of ``--ligand``
and of the ``--ligands`` file (read by ``core/structure/ligand_map.py``), and residue ids."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import InputError

SELECTOR = re.compile(r"^([A-Za-z0-9]{1,5})(?::([A-Za-z0-9]{0,4})(?::(-?\d+)([A-Za-z]?))?)?$")


@dataclass(frozen=True)
class Selector:
    resname: str
    chain: str | None = None
    resseq: int | None = None
    icode: str | None = None

    def matches(self, key) -> bool:
        chain, resseq, icode, resname = key
        return resname == self.resname and (self.chain is None or chain == self.chain) and \
            (self.resseq is None or resseq == self.resseq) and (self.icode is None or icode == self.icode)

    def __str__(self):
        return ":".join([self.resname] + ([self.chain or ""] if self.chain is not None or self.resseq is not None
                                          else []) + ([f"{self.resseq}{self.icode or ''}"]
                                                      if self.resseq is not None else []))


def parse_selectors(text: str, where="--ligand") -> list[Selector]:
    """``RES[:CHAIN[:NUM]]`` joined with ``+`` → selectors. Raises InputError naming ``where``."""
    parts = [p.strip() for p in str(text).split("+")]
    if not parts or any(not p for p in parts):
        raise InputError(where, f"expected RES:CHAIN:NUM (several joined with +), got {text!r}")
    out = []
    for p in parts:
        m = SELECTOR.match(p)
        if not m:
            raise InputError(where, f"expected RES:CHAIN:NUM (residue number an integer), got {p!r}")
        res, chain, num, icode = m.groups()
        out.append(Selector(res.upper(), chain if chain else None, int(num) if num else None,
                            icode.upper() if icode else None))
    return out


def residue_id(key) -> str:
    """``GDP:Z:1151`` for a residue key (chain, resseq, icode, resname)."""
    chain, resseq, icode, resname = key
    return f"{resname}:{chain}:{resseq}{icode}"
