"""Ctrl-C (SIGINT) and SIGTERM stop a run, also while Cycles renders.

Python runs a signal handler only between bytecodes of the main thread. During
``bpy.ops.render.render`` the main thread sits in Cycles' C code, so the default handler's
``KeyboardInterrupt`` would surface inside Cycles' own Python wrapper when the render returns, where
Blender prints and swallows it, and the run would go on. Here:

- outside a render, a signal raises ``KeyboardInterrupt`` at once, as usual;
- inside ``rendering()``, the handler only notes it; leaving the block raises it, so a render that
  ends within ``GRACE_SECONDS`` stops the run through the normal path (scene closed, 130);
- a render that goes on longer (Cycles cannot be cancelled from Python) is cut short: a watcher
  thread woken by the signal itself (``signal.set_wakeup_fd``) removes the block's temp files,
  prints the resume hint and ends the process with 130. Everything on disk was written
  atomically, so this is as safe as ``kill -9`` (which a rerun already survives) and the lock on
  the folder goes with the process. A second signal does the same at once.

``install`` is called by the command line and by worker processes; without it (the GUI, the
API in someone's program) ``rendering()`` does nothing.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

from .exit_codes import EXIT_INTERRUPTED

GRACE_SECONDS = 1.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _State:
    installed = False
    depth = 0                  # rendering() blocks entered and not left
    pending = None             # a signal noted inside a block
    cleanups: list = []        # one callable per open block: removes its temp files
    hint = "interrupted"       # the line printed when the process is cut short
    signals: tuple = ()


_state = _State()


def set_hint(text_or_callable) -> None:
    """What a run cut short during a render says (a string, or a callable giving one)."""
    _state.hint = text_or_callable


def _hint() -> str:
    h = _state.hint
    try:
        return h() if callable(h) else str(h)
    except Exception:          # the hint must never stop the process from stopping
        return "interrupted"


def _handler(signum, frame):
    if _state.depth:
        _state.pending = signum
        return
    raise KeyboardInterrupt


def _cut_short() -> None:
    for cleanup in list(_state.cleanups):
        with contextlib.suppress(Exception):
            cleanup()
    with contextlib.suppress(Exception):
        hint = _hint()
        if hint:                   # a worker says nothing: its driver does
            sys.stderr.write(hint + "\n")
            sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


def _watch(read_fd: int) -> None:
    while True:
        try:
            got = os.read(read_fd, 64)
        except OSError:
            return
        if not got:
            return
        if not any(b in _state.signals for b in got) or not _state.depth:
            continue           # the main thread's handler raises KeyboardInterrupt there
        deadline = time.monotonic() + GRACE_SECONDS
        while _state.depth and time.monotonic() < deadline:
            if _readable(read_fd):          # a second signal: stop now
                break
            time.sleep(0.02)
        if _state.depth:
            _cut_short()


def _readable(fd: int) -> bool:
    import select
    return bool(select.select([fd], [], [], 0)[0])


def install(signals=STOP_SIGNALS) -> bool:
    """Handle ``signals`` as described above (main thread only; False where that is impossible)."""
    if _state.installed:
        return True
    if threading.current_thread() is not threading.main_thread():
        return False
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    try:
        signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    except (ValueError, OSError):
        os.close(read_fd)
        os.close(write_fd)
        return False
    for sig in signals:
        signal.signal(sig, _handler)
    _state.signals = tuple(int(s) for s in signals)
    threading.Thread(target=_watch, args=(read_fd,), name="misigen-signals", daemon=True).start()
    _state.installed = True
    return True


@contextlib.contextmanager
def rendering(cleanup=None):
    """A block during which a stop signal is held back (see the module); ``cleanup()`` removes the
    block's temp files if the process must be cut short inside it."""
    if not _state.installed:
        yield
        return
    _state.depth += 1
    if cleanup is not None:
        _state.cleanups.append(cleanup)
    try:
        yield
    finally:
        if cleanup is not None:
            _state.cleanups.remove(cleanup)
        _state.depth -= 1
    if _state.pending is not None and not _state.depth:
        _state.pending = None
        raise KeyboardInterrupt


def remove_hidden_named_after(path) -> None:
    """The temp files of one output (``.<stem>.*`` beside it: the renderer's raw and labelled PNGs,
    the sidecar's atomic-write temp)."""
    from pathlib import Path
    path = Path(path)
    for p in path.parent.glob(f".{path.stem}.*"):
        with contextlib.suppress(OSError):
            p.unlink()
