"""Silencing Blender's C-level stdout (render progress lines, device-probe warnings)."""
from __future__ import annotations

import contextlib
import os
import sys


@contextlib.contextmanager
def quiet_stdout():
    """Silence Blender's per-render progress lines (C-level stdout); MISIGEN_VERBOSE=1 keeps them."""
    if os.environ.get("MISIGEN_VERBOSE"):
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(devnull)
        os.close(saved)
