"""Tasks on complexes already loaded, outside a run (notebooks, the GUI): the same planning
``generate`` does (``core.teaching.plan_and_enrich``), one task and one structure at a time."""
from __future__ import annotations

from pathlib import Path

from ..core.errors import InputError
from ..core.resources import suite_path


def load_tasks(suite: str | Path = "misi_bench") -> list:
    """The task specs of a suite: a bundled name (``misi_bench``) or a YAML path."""
    from ..core.tasks import load_suite
    return list(load_suite(suite_path(suite)).tasks)


def load_task(name: str, suite: str | Path = "misi_bench"):
    from ..core.tasks import load_suite
    loaded = load_suite(suite_path(suite))
    try:
        return loaded.task(name)
    except KeyError:
        raise InputError(suite_path(suite), f"no task {name!r}; the suite has {', '.join(loaded.task_names())}") \
            from None


def plan_task(task, structure, style: dict, split: str = "test", seed: int = 0, partners=None):
    """All QA samples of one task for one structure, with their rationale, difficulty and level,
    and the failure records (dicts, as ``failures.jsonl`` has them) of those not made: what
    ``generate`` plans (``core.teaching.plan_and_enrich``). ``partners``: the other complexes a task
    may pair with (T5), see ``partner_catalog``."""
    from ..core.teaching import plan_and_enrich
    samples, failures = plan_and_enrich(task, structure, style, split, seed, partners)
    return samples, [f.as_dict() for f in failures]


def partner_catalog(structures: list, split: str = "test"):
    """A catalogue of already loaded complexes (all in ``split``) for tasks that pair complexes."""
    from ..core.tasks import PartnerCatalog
    by_id = {s.id: s for s in structures}
    return PartnerCatalog({k: split for k in by_id}, by_id.__getitem__)


def record(sample) -> dict:
    """The QA record of the dataset contract (image paths relative to the output folder)."""
    return sample.as_record()
