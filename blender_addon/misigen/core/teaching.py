"""Training extras of planned samples: a rationale grounded in the images, difficulty, level.

Both need the images' sidecars, and sidecars are pure core (``scene_plan.annotate``, the same call
the renderer's sidecar files come from), so they are computed here at plan time, before anything is
rendered: a ``--level`` filter then costs no render, and runs that do not render get them too.
``validate`` replays each rationale against the sidecar files written next to the images.
"""
from __future__ import annotations

from .difficulty import LEVELS, difficulty_features, grade
from .rationale import make_rationale
from .scene_plan import annotate, shown_structure


class SidecarCache:
    """Sidecars by render key for one unit of work (a structure and the partners it loaded)."""

    def __init__(self, structures: dict):
        self.structures = structures
        self.by_key: dict = {}
        self._shown: dict = {}

    def of(self, spec) -> dict:
        key = spec.key()
        if key not in self.by_key:
            sel = (spec.structure_id, spec.parts, spec.residues, id(spec.style))
            if sel not in self._shown:
                self._shown[sel] = shown_structure(self.structures[spec.structure_id], spec.style, spec.parts,
                                                   spec.residues)
            shown = self._shown[sel]
            self.by_key[key] = annotate(shown, spec, spec.matrices(shown)[0])
        return self.by_key[key]

    def for_sample(self, sample) -> dict:
        return {f"images/{spec.key()}.png": self.of(spec) for spec in sample.render_specs()}


def enrich(samples: list, task, cache: SidecarCache, levels=()) -> tuple[list, list]:
    """Give each sample's program its ``difficulty`` (features, ``score`` and ``level``) and the sample its
    rationale (its task type's builder with the spec's template; None where either is missing or
    the images do not support one); keep only ``levels`` when given.
    Returns (kept samples, Failures of the samples left out by level)."""
    from .failures import Failure
    from .tasks import task_type

    tt = task_type(task.type)
    kept, dropped = [], []
    for s in samples:
        rec = s.as_record()
        cars = cache.for_sample(s)
        feats = difficulty_features(rec, cars, tt.difficulty)
        feats["score"], feats["level"] = grade(feats, s.program, tt.level_features, tt.level_table)
        s.program["difficulty"] = feats
        if levels and feats["level"] not in levels:
            dropped.append(Failure(s.structure, f"level {feats['level']} (this run keeps {', '.join(levels)})",
                                   task=s.task, sample=s.id, category="level"))
            continue
        if tt.rationale is not None and task.rationale is not None:
            s.rationale, _why = make_rationale(rec, cars, task.rationale, tt.rationale)
        kept.append(s)
    return kept, dropped


def check_levels(levels) -> tuple:
    bad = [x for x in levels or () if x not in LEVELS]
    if bad:
        raise ValueError(f"unknown level(s) {', '.join(bad)}; levels are {', '.join(LEVELS)}")
    return tuple(levels or ())
