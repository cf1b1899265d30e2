"""The nine MiSI-Bench tasks, planned from YAML specs with verified answers (pure core: no bpy).

    from misigen.core.tasks import load_suite, plan_samples, split_for, Sample, Rejected, score_answer
    tasks = load_suite("task_specs/misi_bench.yaml")
    split = split_for(structure.id, seed, tasks[0].suite["test_fraction"])
    samples, failures = plan_samples(tasks[0], structure, style, split, seed)

Each Sample carries RenderSpecs (images, option images) that the pipeline renders once per
distinct ``spec.key()``; the answer string comes from the one formatter of its task and its
``program`` holds the machine-readable ground truth.
"""
from __future__ import annotations

from collections import Counter

from .base import run_planner
from .choice import ChoicePlanner
from .common import Rejected, Sample, split_for
from .docking import DockingPlanner
from .interact import LocationPlanner, PocketPlanner, ResiduePlanner
from .motion import ClozePlanner
from .scoring import score_answer
from .spec import TASK_NAMES, TaskSpec, load_suite, load_task_spec

PLANNERS = {
    "translation": ClozePlanner, "rotation": ClozePlanner, "zooming": ClozePlanner,
    "residue_ligand_interaction": ResiduePlanner,
    "translation_rotation": ChoicePlanner, "rotation_rotation": ChoicePlanner,
    "docking": DockingPlanner,
    "interaction_location": LocationPlanner,
    "pocket_ligand_interaction": PocketPlanner,
}


def plan_samples(task: TaskSpec, structure, style: dict, split: str, seed: int):
    """All samples of ``task`` for one structure and split, plus failure records
    ({"structure", "task", "sample", "why"}) for samples not made after bounded retries."""
    return run_planner(PLANNERS[task.name], task, structure, style, split, seed)


def answer_distribution(samples) -> dict:
    """Per task: counts of answers by balance class / letter / axis / sign (for the manifest).
    Accepts Samples or QA records."""
    out: dict = {}
    for s in samples:
        task = s.task if hasattr(s, "task") else s["task"]
        prog = s.program if hasattr(s, "program") else s["program"]
        c = out.setdefault(task, {})
        for op in prog.get("ops", []) if prog.get("kind") in ("cloze", "docking") else []:
            c.setdefault(f"{op['op']}_axis", Counter())[op["axis"]] += 1
            c.setdefault(f"{op['op']}_sign", Counter())["+" if op["value"] > 0 else "-"] += 1
            c.setdefault(f"{op['op']}_value", Counter())[str(op["value"])] += 1
        if "correct" in prog:
            c.setdefault("letter", Counter())[prog["correct"]] += 1
        if prog.get("kind") == "residue_hbonds":
            c.setdefault("answer", Counter())["yes" if prog["has_hbond"] else "no"] += 1
        if prog.get("kind") == "pocket_hbonds":
            c.setdefault("n_hbonds", Counter())[str(prog["n_hbonds"])] += 1
        if "scheme" in prog:
            c.setdefault("scheme", Counter())[prog["scheme"]] += 1
    return {t: {k: dict(sorted(v.items())) for k, v in sorted(c.items())} for t, c in sorted(out.items())}


__all__ = ["load_suite", "load_task_spec", "plan_samples", "split_for", "Sample", "Rejected", "score_answer",
           "TaskSpec", "TASK_NAMES", "PLANNERS", "answer_distribution"]
