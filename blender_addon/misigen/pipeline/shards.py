"""Which structures this process works on (--shard i/N, or a farm's array-job variables), and
merging the output folders of shards that ran without a shared disk."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

from ..core.errors import InputError
from .folder_lock import FolderLock, lock_folder, reading_lock
from .output import write_json_atomic
from .run_folder import PARTS_DIR, RUN_FILE, identity_difference, merge, read_identity

# (index variable, count variable) of common schedulers' array jobs.
ARRAY_ENV = (
    ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT"),
    ("JOB_COMPLETION_INDEX", "MISIGEN_SHARD_COUNT"),      # Kubernetes indexed Jobs
    ("SGE_TASK_ID", "MISIGEN_SHARD_COUNT"),
    ("MISIGEN_SHARD_INDEX", "MISIGEN_SHARD_COUNT"),
)


def parse_shard(text: str | None, environ=os.environ) -> tuple[int, int]:
    """``"i/N"`` (0-based i) → (i, N); None → from the environment, else (0, 1)."""
    if text:
        try:
            i, n = (int(x) for x in text.split("/"))
        except ValueError:
            raise ValueError(f"--shard must look like 3/10, got {text!r}") from None
        if not (n >= 1 and 0 <= i < n):
            raise ValueError(f"--shard {text}: need 0 <= i < N")
        return i, n
    for idx_var, count_var in ARRAY_ENV:
        if idx_var in environ and count_var in environ:
            i, n = int(environ[idx_var]), int(environ[count_var])
            if idx_var == "SGE_TASK_ID":
                i -= 1  # SGE counts from 1
            if not (n >= 1 and 0 <= i < n):
                raise ValueError(f"{idx_var}={i} does not fit {count_var}={n}")
            return i, n
    return 0, 1


def take_shard(items: list, shard: tuple[int, int]) -> list:
    """Round-robin by position in the (sorted) list: stable however many shards there are."""
    i, n = shard
    return [item for k, item in enumerate(items) if k % n == i]


# ------------------------------------------------------------------ merging shard folders
def rebuild_folder(out: Path) -> dict:
    """Rebuild one folder's annotations.jsonl / failures.jsonl / manifest.json from its parts."""
    out = Path(out)
    if not (out / PARTS_DIR).is_dir():
        raise InputError(out, f"has no {PARTS_DIR}/ folder: not a generate output folder")
    with FolderLock(out, what="run or merge"):
        return _rebuild_locked(out)


def _rebuild_locked(out: Path) -> dict:
    manifest_path = out / "manifest.json"
    try:
        meta = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    except ValueError:
        raise InputError(manifest_path, "not JSON") from None
    return merge(out, {k: v for k, v in meta.items() if k not in COMPUTED_KEYS})


# Recomputed by every merge; "audit" judged the records before it (one shard's), so it is dropped
# rather than carried over (it would decide merge's exit code: 4): run `audit OUT` on the merged folder.
COMPUTED_KEYS = ("counts", "answer_distribution", "annotations_sha256", "structures_missing", "audit")


def _place(src: Path, dest: Path, move: bool) -> None:
    """Put ``src`` at ``dest`` atomically: moved, else hard-linked, else copied."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp{os.getpid()}")
    tmp.unlink(missing_ok=True)
    if move:
        try:
            os.replace(src, dest)
            return
        except OSError:
            pass                               # another file system: copy (and remove below)
    else:
        try:
            os.link(src, tmp)
            os.replace(tmp, dest)
            return
        except OSError:
            pass
    shutil.copyfile(src, tmp)
    os.replace(tmp, dest)
    if move:
        src.unlink()


def merge_folders(shards: list, out: Path, move: bool = False) -> dict:
    """Join the output folders of shards run without a shared disk into ``out``.

    Refuses folders made with different specs, styles, seeds, splits or inputs. Images are
    moved or linked (copied across file systems); the per-structure parts are joined (a
    structure finished in several shards must have the same records in each); the
    manifests are combined. ``out`` may already hold part of the same run.
    """
    shards = [Path(s) for s in shards]
    out = Path(out)
    if out.resolve() in [s.resolve() for s in shards]:
        raise InputError(out, "--out must be a new folder, not one of the shard folders")
    with contextlib.ExitStack() as held:
        for shard in shards:                 # a shard folder still being written is refused
            held.enter_context(reading_lock(shard))
        reference = _shards_identity(shards)          # refused before --out is made
        held.enter_context(lock_folder(out, what="run or merge"))
        return _merge_locked(shards, out, move, reference)


def _shards_identity(shards: list) -> dict:
    """The run the shard folders are of; InputError when they are not all of one run."""
    identities = []
    for shard in shards:
        ident = read_identity(shard)
        if ident is None:
            raise InputError(shard, f"has no {RUN_FILE}: not a generate output folder (or from an older misigen)")
        identities.append(ident)
    reference = identities[0]
    for shard, ident in zip(shards[1:], identities[1:]):
        diff = identity_difference(reference, ident)
        if diff:
            raise InputError(shard, f"was made with {diff} than {shards[0]}; refusing to merge")
    return reference


def _merge_locked(shards: list, out: Path, move: bool, reference: dict) -> dict:
    existing = read_identity(out) if out.exists() else None
    if existing is not None and identity_difference(reference, existing):
        raise InputError(out, f"holds a run with {identity_difference(reference, existing)}; refusing to merge")

    # Which shard supplies each structure's parts: one that finished it (has its records part).
    chosen: dict = {}
    for shard in shards:
        for part in sorted((shard / PARTS_DIR).glob("*.jsonl")):
            if part.name.startswith("."):
                continue
            sid = part.name.removesuffix(".failures.jsonl").removesuffix(".jsonl")
            finished = not part.name.endswith(".failures.jsonl")
            if finished:
                have = chosen.get(sid)
                if have is not None and have[1]:
                    if (have[0] / PARTS_DIR / f"{sid}.jsonl").read_bytes() != part.read_bytes():
                        raise InputError(part, f"records of {sid} differ from those in {have[0]}; refusing to merge")
                    continue
                chosen[sid] = (shard, True)
            else:
                chosen.setdefault(sid, (shard, False))
    for shard in shards:                                       # images first …
        for img in sorted((shard / "images").glob("*")) if (shard / "images").is_dir() else []:
            if img.is_file() and not img.name.startswith(".") and not (out / "images" / img.name).exists():
                _place(img, out / "images" / img.name, move)
    for sid, (shard, finished) in sorted(chosen.items()):      # … then failures parts, records parts last
        fail = shard / PARTS_DIR / f"{sid}.failures.jsonl"
        if fail.exists():
            _place(fail, out / PARTS_DIR / fail.name, move)
    for sid, (shard, finished) in sorted(chosen.items()):
        if finished:
            _place(shard / PARTS_DIR / f"{sid}.jsonl", out / PARTS_DIR / f"{sid}.jsonl", move)
    write_json_atomic(out / RUN_FILE, reference)

    manifests = []
    for shard in shards:
        try:
            manifests.append(json.loads((shard / "manifest.json").read_text()))
        except (OSError, ValueError):
            manifests.append({})
    meta = {k: v for k, v in (manifests[0] or {}).items() if k not in COMPUTED_KEYS + ("this_run",)}
    meta.update({k: reference[k] for k in reference})
    meta["device"] = sorted({d for m in manifests for d in m.get("device", [])})
    blenders = sorted({m.get("blender", "") for m in manifests if m.get("blender")})
    meta["blender"] = blenders[0] if len(blenders) == 1 else blenders
    meta["shard"] = "merged"
    meta["merged_shards"] = [{"folder": str(s), "shard": m.get("shard"), "this_run": m.get("this_run")}
                             for s, m in zip(shards, manifests)]
    finished_ids = {sid for sid, (_s, fin) in chosen.items() if fin} | \
        {p.stem for p in (out / PARTS_DIR).glob("*.jsonl") if not p.name.endswith(".failures.jsonl")}
    failed_ids = {p.name.removesuffix(".failures.jsonl") for p in (out / PARTS_DIR).glob("*.failures.jsonl")}
    meta["structures_missing"] = sorted(set(reference.get("inputs", {})) - finished_ids - failed_ids)
    return merge(out, meta)
