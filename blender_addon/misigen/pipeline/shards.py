"""Which structures this process works on: --shard i/N, or a farm's array-job variables."""
from __future__ import annotations

import os

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
