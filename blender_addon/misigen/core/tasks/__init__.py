"""The MiSI-Bench tasks (and more), planned from YAML specs with verified answers (pure core: no bpy).

    from misigen.core.tasks import load_suite, plan_samples, split_for, Sample, Rejected, score_answer
    suite = load_suite("task_specs/misi_bench.yaml")
    split = split_for(structure.id, seed, suite.settings.test_fraction)
    samples, failures = plan_samples(suite.tasks[0], structure, style, split, seed)

The package reads top to bottom: ``schema`` (spec language) → ``common`` (samples, seeds,
cameras, per-structure context) → ``program`` (typed programs) → ``answer_kinds`` (how answers are
read, scored, checked, guessed) → ``registry`` (``TaskType``: every rule of one task) → ``base``
(planner loop) → ``shared/`` (what a family of tasks shares) → one folder per task
(``translation/`` … ``docking/``; each exports ``TASK_TYPES``) → ``catalog`` (builds ``REGISTRY``
from them) → ``suite`` (``Suite``: a suite's settings and tasks) → ``spec`` (loads suites, their own
task ``modules:`` and specs through the registry) →
``scoring`` and ``audit`` (a finished dataset's records, scored and guessed blind). Plugin tasks
import ``misigen.tasks`` (the public task API), not these modules. Each Sample carries RenderSpecs
(images, option images) that the pipeline renders once per distinct ``spec.key()``; the answer
string comes from the one formatter of its task and its ``program`` holds the machine-readable
ground truth.
"""
from __future__ import annotations

from collections import Counter

from ..look.style import suite_style
from .base import run_planner
from .common import Planned, Rejected, Sample, split_for
from .pairing import PartnerCatalog
from .catalog import REGISTRY, answer_kind, task_names, task_type
from .registry import TaskType
from .scoring import score_answer
from .settings import SuiteSettings
from .spec import TaskSpec, load_task_spec
from .suite import Suite, load_suite


def plan_samples(task: TaskSpec, structure, style: dict, split: str, seed: int, partners=None):
    """All samples of ``task`` for one structure and split, plus failure records
    ({"structure", "task", "sample", "why", "category"}) for samples not made. ``partners``
    (a ``PartnerCatalog``) lets tasks that pair complexes (T5) load another one."""
    style = suite_style(style, task.settings.style)   # e.g. misi_plus turns the scale bar on
    return run_planner(task_type(task.type).planner, task, structure, style, split, seed, partners)


def answer_distribution(samples) -> dict:
    """Per task: counts of answers by each feature its registry entry names (axis, sign, letter,
    Yes/No …), for the manifest. Accepts Samples or QA records."""
    out: dict = {}
    for s in samples:
        task = s.task if hasattr(s, "task") else s["task"]
        prog = s.program if hasattr(s, "program") else s["program"]
        features = task_type(prog.get("task_type", task)).features
        c = out.setdefault(task, {})
        for feat, value in (features(prog) if features else []):
            c.setdefault(feat, Counter())[value] += 1
    return {t: {k: dict(sorted(v.items())) for k, v in sorted(c.items())} for t, c in sorted(out.items())}


__all__ = ["load_suite", "load_task_spec", "plan_samples", "split_for", "Sample", "Planned", "Rejected",
           "score_answer", "TaskSpec", "task_names", "task_type", "answer_kind", "answer_distribution",
           "PartnerCatalog", "REGISTRY", "TaskType", "Suite", "SuiteSettings"]
