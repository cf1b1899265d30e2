"""Training extras of planned samples: a rationale grounded in the images, difficulty, level.

Both need the images' sidecars, and sidecars are pure core (``scene_plan.annotate``, the same call
the renderer's sidecar files come from), so they are computed here at plan time, before anything is
rendered: a ``--level`` filter then costs no render, and runs that do not render get them too.
``validate`` replays each rationale against the sidecar files written next to the images.
"""
from __future__ import annotations

from .quality.difficulty import LEVELS, difficulty_features, grade
from .rationale import write_rationale
from .scene.scene_plan import annotate, shown_structure


class SidecarCache:
    """Sidecars by render key for one unit of work (a structure and the partners it loaded).
    ``structures``: id -> Structure; ``load``: id -> Structure for one not in it (a partner)."""

    def __init__(self, structures: dict, load=None):
        self.structures = structures
        self.load = load
        self.by_key: dict = {}

    def structure(self, structure_id: str):
        if structure_id not in self.structures and self.load is not None:
            return self.load(structure_id)
        return self.structures[structure_id]

    def of(self, spec) -> dict:
        key = spec.key()
        if key not in self.by_key:
            shown = shown_structure(self.structure(spec.structure_id), spec.style, spec.parts, spec.residues)
            self.by_key[key] = annotate(shown, spec, spec.matrices(shown)[0])
        return self.by_key[key]

    def for_sample(self, sample) -> dict:
        return {f"images/{spec.key()}.png": self.of(spec) for spec in sample.render_specs()}


def plan_and_enrich(task, structure, style: dict, split: str, seed: int, partners=None,
                    cache: SidecarCache | None = None) -> tuple[list, list]:
    """The samples of one task for one structure as every caller makes them (``generate``, the API,
    the GUI's task preview): planned (``core.tasks.plan_samples``), then ``enrich``-ed with their
    rationale, difficulty and level, keeping only the spec's ``levels`` when it names some.
    ``partners``: a ``PartnerCatalog`` (T5); ``cache``: the unit's sidecars (one per structure and its
    partners; a fresh one if None). Returns (samples, Failures: not made, or left out by level)."""
    from .failures import Failure
    from .tasks import plan_samples

    if cache is None:
        cache = SidecarCache({structure.id: structure}, partners.load if partners is not None else None)
    got, failed = plan_samples(task, structure, style, split, seed, partners)
    kept, dropped = enrich(got, task, cache, tuple(task.data.get("levels") or ()))
    return kept, [f if isinstance(f, Failure) else Failure.from_dict(f) for f in failed] + dropped


def enrich(samples: list, task, cache: SidecarCache, levels=()) -> tuple[list, list]:
    """Give each sample's program its ``difficulty`` (features, ``predicted_by_eye`` and ``level``) and the sample its
    rationale (its task type's builder with the spec's template; None where either is missing or
    the images do not support one); keep only ``levels`` when given.
    The rationale's estimates give two features: ``reading_margin`` (the least margin, in reading
    errors, by which the estimates from the images decide the answer; None where the task's
    derivation quotes none) and ``estimate_ambiguous`` (that margin is below 1: within a reading's
    error the images leave the answer open).
    Returns (kept samples, Failures of the samples left out by level)."""
    from .failures import Failure
    from .tasks import task_type

    tt = task_type(task.type)
    kept, dropped = [], []
    for s in samples:
        rec = s.as_record()
        cars = cache.for_sample(s)
        feats = difficulty_features(rec, cars, tt.difficulty)
        written = write_rationale(rec, cars, task.rationale, tt.rationale) if tt.rationale is not None else None
        margin = written.reading_margin if written is not None else None
        feats["reading_margin"] = margin
        feats["estimate_ambiguous"] = None if margin is None else bool(margin < 1.0)
        feats["predicted_by_eye"], feats["level"] = grade(feats, tt.level_features, tt.level_table)
        s.program["difficulty"] = feats
        if levels and feats["level"] not in levels:
            dropped.append(Failure(s.structure, f"level {feats['level']} (this run keeps {', '.join(levels)})",
                                   task=s.task, sample=s.id, category="level"))
            continue
        if written is not None and task.rationale is not None:
            s.rationale = written.text
        kept.append(s)
    return kept, dropped


def check_levels(levels) -> tuple:
    bad = [x for x in levels or () if x not in LEVELS]
    if bad:
        raise ValueError(f"unknown level(s) {', '.join(bad)}; levels are {', '.join(LEVELS)}")
    return tuple(levels or ())
