"""Writing outputs atomically (temp file + rename) so a killed run never leaves half a file."""
from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
from pathlib import Path


# Errors that say the output folder takes no more writes: the run stops (one line, exit 1) instead of
# recording a failure per structure; atomic writes mean nothing is left half-written.
FATAL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG, errno.EIO,
                          errno.EACCES, errno.EPERM})
TEMP_DIRS = (".", "images", "parts")       # where temp files of earlier runs can be left


class OutputError(Exception):
    """The output folder cannot be written (full disk, read-only, permissions): stops the run."""

    def __init__(self, path, exc: OSError):
        self.path, self.problem = str(path), exc.strerror or str(exc)
        super().__init__(f"{self.path}: cannot be written ({self.problem})")


def fatal_output_error(path, exc: BaseException) -> OutputError | None:
    """``exc`` as an OutputError if it says the folder takes no more writes, else None."""
    if isinstance(exc, OutputError):
        return exc
    if isinstance(exc, OSError) and exc.errno in FATAL_ERRNOS:
        return OutputError(path, exc)
    return None


def is_temp_name(name: str) -> bool:
    """A temp file of an atomic write (``.x.tmp<pid>``) or of the renderer (``.x.raw.bmp``, ``.x.tmp.png``)."""
    return name.startswith(".") and (".tmp" in name or name.endswith((".raw.bmp", ".raw.png")))


def remove_stale_temps(out: Path, older_than: float = 0.0) -> int:
    """Remove temp files left by runs that were killed or hit a full disk; ``older_than`` seconds
    spares those a live process sharing the folder may still be writing. Returns how many."""
    import time
    now, removed = time.time(), 0
    for sub in TEMP_DIRS:
        folder = Path(out) / sub
        if not folder.is_dir():
            continue
        for p in folder.iterdir():
            try:
                if is_temp_name(p.name) and p.is_file() and now - p.stat().st_mtime >= older_than:
                    p.unlink()
                    removed += 1
            except OSError:
                pass
    return removed


def inside(root: Path, relative: str) -> Path:
    """``root / relative``, refusing anything that would land outside ``root``."""
    root = Path(root).resolve()
    path = (root / relative).resolve()
    if root != path and root not in path.parents:
        raise ValueError(f"refusing to write outside the output folder: {relative!r}")
    return path


def write_bytes_atomic(path: Path, data: bytes) -> None:
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:   # a full disk or Ctrl-C mid-write leaves no half file behind
        with contextlib.suppress(OSError):
            tmp.unlink()
        fatal = fatal_output_error(path, exc)
        if fatal is not None and fatal is not exc:
            raise fatal from None
        raise


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


def dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def write_json_atomic(path: Path, obj, indent: int | None = None) -> None:
    text = json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=indent) if indent else dumps(obj)
    write_text_atomic(path, text + "\n")


def append_jsonl(path: Path, record: dict) -> None:
    """One whole line per call (a single write of a line is atomic enough for a log)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(dumps(record) + "\n")
    except OSError as exc:
        raise (fatal_output_error(path, exc) or exc) from None


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
