"""The planner loop shared by all tasks: seeds, retries, failure records."""
from __future__ import annotations

from collections import Counter

import numpy as np

from ..scene_plan import RenderSpec
from . import prompts
from .common import COMPLEX, Context, Rejected, Sample, context_for, make_rng, sample_seed
from .spec import TaskSpec, fill_template


class Planner:
    """Subclasses implement ``setup`` (once per structure; may raise Rejected for all samples)
    and ``make`` (one sample; raises Rejected when its bounded retries are used up)."""

    def __init__(self, task: TaskSpec, ctx: Context, split: str, seed: int):
        self.task, self.ctx, self.split, self.seed = task, ctx, split, int(seed)
        self.d = task.data
        self.style = ctx.style
        self.sid = ctx.structure.id
        self.used: set = set()
        self.srng = make_rng(seed, self.sid, task.name, split, "structure")

    # -- helpers
    def spec(self, camera, ops: dict, parts=COMPLEX, residues=None, centre=None) -> RenderSpec:
        return RenderSpec(self.sid, camera, self.style, {k: list(v) for k, v in ops.items() if v},
                          parts=tuple(parts), residues=residues, labels=bool(self.d["labels"]), centre=centre)

    def ligand_name(self) -> str:
        s = self.ctx.structure
        rows = np.nonzero(s.ligand)[0]
        return str(s.resname[rows[0]]) if len(rows) else "LIG"

    def question(self, images_text: list[str], parts=COMPLEX, **fields) -> str:
        values = {"structure": self.sid, "ligand": self.ligand_name(), "n_images": str(len(images_text)),
                  "image_list": prompts.image_list(images_text),
                  "colours": prompts.colours_text(self.style, parts),
                  "frame_rules": prompts.frame_rules(self.style), "command_grammar": prompts.COMMAND_GRAMMAR,
                  "answer_format": self.d["answer_format"].strip(), **fields}
        return fill_template(self.task.template, values).strip() + "\n"

    def tries(self) -> int:
        return int(self.d["rejection"]["max_retries"])

    # -- to implement
    def setup(self) -> None:
        pass

    def make(self, index: int, rng: np.random.Generator, why: Counter) -> dict:
        raise NotImplementedError


def run_planner(planner_cls, task: TaskSpec, structure, style: dict, split: str, seed: int):
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    ctx = context_for(structure, style)
    n = task.samples(split)
    samples, failures = [], []
    if n == 0:
        return samples, failures
    p = planner_cls(task, ctx, split, seed)
    ids = [f"{task.name}-{structure.id}-{split}-{i:03d}" for i in range(n)]
    try:
        p.setup()
    except Rejected as r:
        return [], [{"structure": structure.id, "task": task.name, "sample": sid, "why": r.why} for sid in ids]
    for i, sid in enumerate(ids):
        rng = make_rng(seed, structure.id, task.name, split, i)
        why: Counter = Counter()
        try:
            out = p.make(i, rng, why)
        except Rejected as r:
            detail = "; ".join(f"{k} ×{v}" for k, v in sorted(why.items()))
            failures.append({"structure": structure.id, "task": task.name, "sample": sid,
                             "why": r.why + (f" (rejected attempts: {detail})" if detail else "")})
            continue
        program = dict(out["program"])
        program["task"] = task.name
        program["rejected_attempts"] = dict(sorted(why.items()))
        samples.append(Sample(id=sid, task=task.name, split=split, structure=structure.id,
                              question=out["question"], images=out["images"], options=out.get("options"),
                              answer=out["answer"], program=program,
                              seed=sample_seed(seed, structure.id, task.name, split, i)))
    return samples, failures
