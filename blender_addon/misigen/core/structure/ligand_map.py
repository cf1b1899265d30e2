"""The ``--ligands`` file of ``generate``: structure id → the ligand's selector ``RES:CHAIN:NUM[+…]``.

Reading it is input checking, as for the structure files: its text is checked by ``readers``, each
selector by ``core.chemistry.ligand.parse_selectors``.
"""
from __future__ import annotations

from pathlib import Path

from ..chemistry.ligand.selectors import parse_selectors
from ..errors import InputError
from .readers import check_text_file


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
