"""The named H-bond definitions (``chimerax``, ``misigen``): which of misigen's departures from the
reference are on. The switches live in data/interactions/hbond_criteria.yaml (``definitions``);
docs/INTERACTIONS.md lists each with its evidence."""
from __future__ import annotations

import functools

from ...data_files import load_table


@functools.lru_cache(maxsize=None)
def _table() -> dict:
    return load_table("interactions/hbond_criteria.yaml")["definitions"]


def definition_names() -> tuple[str, ...]:
    table = _table()
    return tuple(k for k in table if k != "default")


def resolve(definition: str | None = None) -> tuple[str, dict]:
    """(name, switches) of a definition; None gives the default. Unknown names raise ValueError."""
    table = _table()
    name = table["default"] if definition is None else str(definition).strip().lower()
    if name == "default" or name not in table:
        raise ValueError(f"unknown H-bond definition {definition!r}; choose from {definition_names()}")
    return name, dict(table[name])
