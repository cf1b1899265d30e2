"""Naming a HETATM ligand: the selectors ``RES[:CHAIN[:NUM]]`` (joined with ``+``) of ``--ligand``,
residue ids, and the ``--ligands`` file (structure id → selector)."""
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


# ------------------------------------------------------------------ the --ligands file
def _yaml_items(path, text) -> list[tuple]:
    import yaml
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InputError(path, f"not valid YAML ({exc.__class__.__name__})") from None
    if not isinstance(data, dict):
        raise InputError(path, "expected a mapping: structure id -> RES:CHAIN:NUM")
    return [(str(k), v) for k, v in data.items()]


def _csv_items(path, text) -> list[tuple]:
    import csv
    import io
    items = []
    for n, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        cells = [c.strip() for c in row]
        if not cells or not any(cells) or cells[0].startswith("#"):
            continue
        if len(cells) != 2:
            raise InputError(path, f"line {n}: expected 2 columns (id,ligand), got {len(cells)}")
        if n == 1 and cells[0].lower() == "id" and cells[1].lower() == "ligand":
            continue
        items.append((cells[0], cells[1]))
    return items


def read_ligand_map(path) -> dict[str, str]:
    """``generate --ligands FILE``: structure id → ``RES:CHAIN:NUM[+…]``.

    YAML (``.yaml``/``.yml``): a mapping ``id: selector``. CSV (anything else): two columns
    ``id,ligand`` per line; a first line ``id,ligand`` is a header; ``#`` starts a comment.
    Every selector is checked here, so a typo stops the run before any work, naming the file."""
    from pathlib import Path

    from ...structure.readers import check_text_file

    path = Path(path)
    text = check_text_file(path)
    out: dict[str, str] = {}
    items = _yaml_items(path, text) if path.suffix.lower() in (".yaml", ".yml") else _csv_items(path, text)
    for key, value in items:
        if not key or not isinstance(value, str) or not value.strip():
            raise InputError(path, f"structure {key!r}: ligand must be a string RES:CHAIN:NUM[+RES:CHAIN:NUM]")
        if key in out:
            raise InputError(path, f"structure {key!r} is listed twice")
        parse_selectors(value, where=f"{path}: structure {key!r}")
        out[key] = value.strip()
    return out
