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


class QuietStdout:
    """``quiet_stdout`` for many renders: /dev/null and the saved stdout are opened once, so each
    render costs two ``dup2`` calls (each system call may wait for Python's lock while the planner
    thread runs). ``close`` when done."""

    def __init__(self):
        self.active = not os.environ.get("MISIGEN_VERBOSE")
        if self.active:
            self.saved = os.dup(1)
            self.devnull = os.open(os.devnull, os.O_WRONLY)

    @contextlib.contextmanager
    def __call__(self):
        if not self.active:
            yield
            return
        sys.stdout.flush()
        os.dup2(self.devnull, 1)
        try:
            yield
        finally:
            os.dup2(self.saved, 1)

    def close(self) -> None:
        if self.active:
            self.active = False
            os.close(self.devnull)
            os.close(self.saved)

    def __del__(self):       # a renderer that is never closed (a GUI session's) leaks no descriptors
        try:
            self.close()
        except Exception:    # at interpreter exit, or when __init__ did not finish
            pass
