"""Names vulture (``[tool.vulture]`` in pyproject.toml) reports as unused that are used where it cannot see.

Vulture matches by name: each line below marks one name as used everywhere, so keep it to names
whose every unused report is one of the reasons given.
"""
# ruff: noqa: F821, B018  (bare names are how a vulture whitelist says "used")

# core/quality/levels.py `_read(path, mtime)`: the file's modification time is part of the
# lru_cache key, so an edited level table is read again; the body needs only the path.
mtime

# pipeline/exports/lmms_eval_task_utils.py: lmms-eval calls `doc_to_text` and `doc_to_messages`
# with this keyword; the signature must accept it even where the prompt does not use it.
lmms_eval_specific_kwargs

# pipeline/signals.py `_handler(signum, frame)`: Python calls a signal handler with both arguments.
frame
