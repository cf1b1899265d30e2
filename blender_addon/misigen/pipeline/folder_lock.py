"""One run per output folder: an OS-level lock on a file inside it.

``generate``, ``merge`` and ``export`` hold ``OUT/.misigen.lock`` while they write. The lock is
``flock``: the kernel drops it when the process ends, ``kill -9`` included, so a stale lock never
blocks a rerun. A second process is refused at once with one line naming the holder.

Shards of one array job writing into a shared folder (``--shard i/N``, N > 1) hold the lock
*shared*, so they run side by side while a plain run, a merge or an export of that folder is
refused (and they are refused while one of those runs). Their short steps that read and write
the folder as a whole — checking and writing the run identity, merging the parts into the
dataset files — are serialised by a second, exclusive lock (``.misigen.steps.lock``), taken
blocking: the steps last seconds, and the last shard to finish merges everything.

On NFS, ``flock`` is emulated with POSIX byte-range locks (Linux 2.6.12+), which work across
clients; a file system without locks gives one line saying so.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import sys
import time
from pathlib import Path

from ..core.errors import InputError

LOCK_NAME = ".misigen.lock"
STEPS_LOCK_NAME = ".misigen.steps.lock"

try:                                            # POSIX; elsewhere a folder is not locked (said once)
    import fcntl
except ImportError:                             # pragma: no cover - Windows
    fcntl = None


class FolderBusy(InputError):
    """Another process holds the folder's lock (exit 2: a bad --out for this command)."""


def describe_holder(info: dict) -> str:
    if not info:
        return "another process (it has not said which yet)"
    cmd = info.get("command", "")
    return (f"pid {info.get('pid', '?')} on {info.get('host', '?')}"
            + (f" ({cmd[:160]})" if cmd else "") + (f", since {info['since']}" if info.get("since") else ""))


def _read_holder(path: Path) -> dict:
    # The holder writes its line right after taking the lock: give it a moment.
    for _ in range(20):
        try:
            text = path.read_text(encoding="utf-8").strip()
        except OSError:
            text = ""
        if text:
            try:
                return json.loads(text.splitlines()[-1])
            except ValueError:
                return {}
        time.sleep(0.01)
    return {}


def _this_holder(command: str | None) -> dict:
    return {"pid": os.getpid(), "host": socket.gethostname(),
            "command": command if command is not None else " ".join(sys.argv),
            "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def _open(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise InputError(path.parent, f"cannot be written (creating {path.name}: {exc.strerror or exc})") from None


def _flock(fd: int, path: Path, shared: bool, block: bool) -> bool:
    """True when taken; False when another process holds it (only without ``block``)."""
    flags = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | (0 if block else fcntl.LOCK_NB)
    try:
        fcntl.flock(fd, flags)
        return True
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
            raise InputError(path.parent, "is on a file system without file locks; use a local or "
                                          "lock-capable folder for --out") from None
        raise


class FolderLock:
    """The lock of one output folder (``with FolderLock(out): ...``); ``shared`` for shards."""

    def __init__(self, out: Path, shared: bool = False, command: str | None = None, what: str = "run"):
        self.out, self.shared, self.command, self.what = Path(out), shared, command, what
        self.path = self.out / LOCK_NAME
        self.fd: int | None = None

    def acquire(self) -> "FolderLock":
        if fcntl is None:                       # pragma: no cover - Windows
            return self
        fd = _open(self.path)
        if not _flock(fd, self.path, self.shared, block=False):
            os.close(fd)
            raise FolderBusy(self.out, f"in use by {describe_holder(_read_holder(self.path))}; "
                                       f"one {self.what} at a time per folder: wait for it or use another folder")
        self.fd = fd
        if not self.shared:                     # a shared holder writes its line under the steps lock
            self._write_holder()
        return self

    def _write_holder(self) -> None:
        line = json.dumps(_this_holder(self.command), sort_keys=True) + "\n"
        with contextlib.suppress(OSError):      # the line only informs a refused process
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, line.encode("utf-8"), 0)

    @contextlib.contextmanager
    def step(self):
        """A short step that reads and writes the folder as a whole: exclusive among shards."""
        if fcntl is None or not self.shared:
            yield
            return
        path = self.out / STEPS_LOCK_NAME
        fd = _open(path)
        try:
            _flock(fd, path, shared=False, block=True)
            self._write_holder()
            yield
        finally:
            os.close(fd)                        # closing drops the lock

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)                   # the holder line stays: harmless, rewritten by the next
            self.fd = None

    def __enter__(self) -> "FolderLock":
        return self if self.fd is not None else self.acquire()     # lock_folder() already took it

    def __exit__(self, *exc) -> None:
        self.release()


def lock_folder(out: Path, shared: bool = False, what: str = "run") -> FolderLock:
    """Create ``out`` if needed and take its lock (see the module)."""
    out = Path(out)
    make_output_folder(out)
    return FolderLock(out, shared=shared, what=what).acquire()


def make_output_folder(out: Path, create: bool = True) -> None:
    """``out`` as a writable folder, or one line saying why not (an InputError: exit 2);
    ``create=False`` only checks what can be checked without making it."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(out, "is a file, not a folder; give a folder for --out")
    if not create:
        if out.is_dir() and not os.access(out, os.W_OK | os.X_OK):
            raise InputError(out, "is not writable")
        return
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(out, f"cannot be created ({exc.strerror or exc})") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise InputError(out, "is not writable")


@contextlib.contextmanager
def reading_lock(folder: Path):
    """Shared lock on a folder only read (merge's shard folders): refused while a plain run or a
    merge writes it; a folder where no lock file can be made (read-only) is read unlocked."""
    lock = FolderLock(folder, shared=True, what="run")
    try:
        lock.acquire()
    except FolderBusy:
        raise
    except InputError:
        lock = None
    try:
        yield lock
    finally:
        if lock is not None:
            lock.release()
