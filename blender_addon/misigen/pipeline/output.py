"""Writing outputs atomically (temp file + rename) so a killed run never leaves half a file."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path


def inside(root: Path, relative: str) -> Path:
    """``root / relative``, refusing anything that would land outside ``root``."""
    root = Path(root).resolve()
    path = (root / relative).resolve()
    if root != path and root not in path.parents:
        raise ValueError(f"refusing to write outside the output folder: {relative!r}")
    return path


def write_bytes_atomic(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


def dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def write_json_atomic(path: Path, obj, indent: int | None = None) -> None:
    text = json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=indent) if indent else dumps(obj)
    write_text_atomic(path, text + "\n")


def append_jsonl(path: Path, record: dict) -> None:
    """One whole line per call (a single write of a line is atomic enough for a log)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(dumps(record) + "\n")


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
