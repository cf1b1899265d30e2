"""Progress on stderr for the commands that read or write a whole dataset, and the stage of the
structure a run is working on (a large structure can take minutes before its first image).

Bars show when stderr is a terminal; ``MISIGEN_PROGRESS=1`` forces them (logs of farm jobs),
``MISIGEN_PROGRESS=0`` hides them.
"""
from __future__ import annotations

import os
import sys

_stage_sink = None


def enabled() -> bool:
    forced = os.environ.get("MISIGEN_PROGRESS")
    if forced in ("0", "1"):
        return forced == "1"
    return sys.stderr.isatty()


def bar(iterable, desc: str, total: int | None = None, unit: str = "record"):
    """``iterable`` with a tqdm bar on stderr when progress is on, else as it is."""
    if not enabled():
        return iterable
    from tqdm import tqdm
    return tqdm(iterable, desc=desc, total=total if total is not None else _len(iterable), unit=unit,
                file=sys.stderr, dynamic_ncols=True, mininterval=0.5)


def _len(iterable):
    try:
        return len(iterable)
    except TypeError:
        return None


def set_stage_sink(sink) -> None:
    """Where ``stage`` reports go (the run's bar sets this; None: nowhere)."""
    global _stage_sink
    _stage_sink = sink


def stage(text: str) -> None:
    """Say what the current structure is doing (``1abc: loading``, ``1abc: rendering 3/12``)."""
    if _stage_sink is not None:
        _stage_sink(text)
