"""Inputs that are the same structure under different names.

Two inputs whose files are byte-identical are one structure: questions about them must not land
in both train and test (the test split would then hold structures the model was trained on). They
are reported, and both take the split of the group's first id (sorted), so an id-based split never
separates them.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import replace


def duplicate_groups(content: dict) -> list[list[str]]:
    """Ids sharing a content hash (``{id: sha256}``), each group sorted, groups sorted."""
    by_hash: dict = defaultdict(list)
    for sid, digest in content.items():
        by_hash[digest].append(sid)
    return sorted(sorted(ids) for ids in by_hash.values() if len(ids) > 1)


def with_split_keys(sources: list, groups: list[list[str]]) -> list:
    """``sources`` where each member of a group takes its split from the group's first id."""
    key = {sid: group[0] for group in groups for sid in group[1:]}
    return [replace(s, split_key=key[s.id]) if s.id in key else s for s in sources]
