"""The planner base class and the loop shared by all tasks: seeds, retries, failure records."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

from ..scene.geometry import view_ops
from ..scene.labels import LabelPlan, atom_id, ligand_atom_id, residue_id
from ..scene.scene_plan import RenderSpec, placed_labels
from . import prompts
from .common import COMPLEX, Context, Planned, Rejected, Sample, context_for, make_rng, same_pose, sample_seed
from .schema import fill_template

HETERO = ("N", "O", "S", "P", "F", "Cl", "Br", "I")
CONTACT = 4.5      # Å: a residue with a heavy atom this close to a ligand heavy atom is "in contact"
HBOND_ELEMENTS = ("N", "O", "S")      # the elements an H-bond's heavy atoms can be


def contact_polar_atoms(shown, within: float) -> tuple:
    """(chain, resseq, icode, name) of every protein N and O within ``within`` Å of a ligand heavy
    atom (none when ``within`` is 0), in row order: the suite's ``labels.contact_atoms`` names
    them in pocket views so that a reader can name the protein atom of a contact. Answer-free."""
    if within <= 0:
        return ()
    lig = shown.coords[shown.ligand & ~shown.is_hydrogen]
    polar = np.nonzero(~shown.ligand & np.isin(shown.element, ("N", "O")) & ~shown.is_water)[0]
    if not len(lig) or not len(polar):
        return ()
    d = np.sqrt(((shown.coords[polar][:, None] - lig[None]) ** 2).sum(-1)).min(axis=1)
    return tuple((str(shown.chain[i]), int(shown.resseq[i]), str(shown.icode[i]), str(shown.name[i]))
                 for i in polar[d <= within])


def polar_contacts_first(shown, within: float) -> tuple[list, list]:
    """Label ids of the pocket's polar contacts, nearest first (none when ``within`` is 0): the ligand's
    N, O and S within ``within`` Å of a protein N, O or S, and the residues holding a protein N, O or S
    within ``within`` Å of a ligand heavy atom. At 4 Å every N/O H-bond's atoms are among them (their
    limits stay under 3.93 Å), whichever form; which of them bond is not asked, so placing them
    first says nothing of the answer."""
    if within <= 0:
        return [], []
    lig = np.nonzero(shown.ligand & np.isin(shown.element, HBOND_ELEMENTS))[0]
    heavy = shown.coords[shown.ligand & ~shown.is_hydrogen]
    prot = np.nonzero(~shown.ligand & np.isin(shown.element, HBOND_ELEMENTS) & ~shown.is_water)[0]
    if not len(lig) or not len(prot):
        return [], []
    d_lig = np.sqrt(((shown.coords[lig][:, None] - shown.coords[prot][None]) ** 2).sum(-1)).min(axis=1)
    d_prot = np.sqrt(((shown.coords[prot][:, None] - heavy[None]) ** 2).sum(-1)).min(axis=1)
    order = np.argsort(d_lig, kind="stable")
    ligand = [ligand_atom_id(shown.name[lig[k]]) for k in order if d_lig[k] <= within]
    best: dict = {}
    for row, dist in zip(prot, d_prot):
        if dist <= within:
            rid = residue_id(shown.chain[row], shown.resseq[row], shown.icode[row])
            best[rid] = min(dist, best.get(rid, np.inf))
    return ligand, [rid for rid, _ in sorted(best.items(), key=lambda kv: (kv[1], kv[0]))]


class Planner:
    """Subclasses implement ``setup`` (once per structure; may raise Rejected for all samples)
    and ``make`` (one sample → ``Planned``; raises Rejected when its bounded retries are used up)."""

    def __init__(self, task, ctx: Context, split: str, seed: int, partners=None):
        self.task, self.ctx, self.split, self.seed = task, ctx, split, int(seed)
        self.partners = partners
        self.d = task.data
        self.style = ctx.style
        self.sid = ctx.structure.id
        self.used: set = set()
        self.srng = make_rng(seed, self.sid, task.name, split, "structure")

    # ------------------------------------------------------------------ render descriptions
    def spec(self, camera, ops: dict, parts=COMPLEX, residues=None, centre=None, labels=None,
             structure_id=None) -> RenderSpec:
        return RenderSpec(structure_id or self.sid, camera, self.style, {k: list(v) for k, v in ops.items() if v},
                          parts=tuple(parts), residues=residues, labels=labels, centre=centre)

    def view_spec(self, view: str, ctx: Context | None = None, parts=COMPLEX, residues=None, labels=None,
                  extra: dict | None = None, fit_rows=None, pose=()) -> RenderSpec:
        """One canonical view, framed on its own ("view all" of what it shows); ``pose``: whole-model
        ops applied before the view's (the start orientation the views are taken of)."""
        ctx = ctx or self.ctx
        centre = ctx.centre(parts, residues)
        ops = {"all": list(pose) + view_ops(view)}
        for part, more in (extra or {}).items():
            ops[part] = list(ops.get(part, [])) + list(more)
        camera = ctx.view_camera(ops, parts, residues, centre, fit_rows)
        return self.spec(camera, ops, parts, residues, centre, labels, structure_id=ctx.structure.id)

    def label_plan(self, ctx: Context | None = None, parts=COMPLEX, residues=None) -> LabelPlan | None:
        """Labels of pocket/ligand views, with priorities that never depend on the answer: the pocket's
        polar contacts where the suite's ``labels.polar_contacts_first`` asks for them
        (``polar_contacts_first``), then the ligand's hetero atoms, then the residues in contact with
        the ligand (nearest first), then everything else. Residue labels carry the chain when more
        than one chain is shown."""
        ctx = ctx or self.ctx
        base = LabelPlan.from_style(self.style) if self.d["labels"] else None
        if base is None:
            return None
        contact = self.task.settings.contact_atom_labels
        polar = self.task.settings.polar_contact_labels_first
        key = ("labelplan", tuple(parts), None if residues is None else tuple(map(tuple, residues)), base, contact,
               polar)

        def make():
            shown = ctx.shown(COMPLEX, residues)
            lig = shown.ligand & ~shown.is_hydrogen
            prot = ~shown.ligand & ~shown.is_hydrogen & ~shown.is_water
            first = [ligand_atom_id(shown.name[i]) for i in np.nonzero(lig)[0] if shown.element[i] in HETERO]
            if prot.any() and lig.any():
                d = np.sqrt(((shown.coords[prot][:, None] - shown.coords[lig][None]) ** 2).sum(-1)).min(axis=1)
                best: dict = {}
                for row, dist in zip(np.nonzero(prot)[0], d):
                    rid = residue_id(shown.chain[row], shown.resseq[row], shown.icode[row])
                    best[rid] = min(dist, best.get(rid, np.inf))
                first += [rid for rid, dist in sorted(best.items(), key=lambda kv: (kv[1], kv[0]))
                          if dist <= CONTACT]
            chains = len(set(shown.chain[prot].tolist())) > 1
            atoms = contact_polar_atoms(shown, contact)
            first += [atom_id(*a) for a in atoms]
            ahead = [lid for part in polar_contacts_first(shown, polar) for lid in part]
            first = ahead + [lid for lid in first if lid not in set(ahead)]
            return replace(base, chains=chains, first=tuple(first), atoms=atoms)
        return ctx._memo(key, make)

    def placed(self, spec: RenderSpec, ctx: Context | None = None) -> set:
        """Ids of the labels drawn on one render."""
        ctx = ctx or self.ctx
        key = ("placed", spec.key())

        def make():
            shown = ctx.shown(spec.parts, spec.residues)
            return {lab["id"] for lab in placed_labels(shown, spec) if lab["box"] is not None}
        return ctx._memo(key, make)

    def repeats_start(self, start: list, later: list) -> bool:
        """Whether any later image (after-image, option) shows the same picture as a start view."""
        return any(same_pose(a, b) for a in later for b in start)

    # ------------------------------------------------------------------ text
    def ligand_name(self, ctx: Context | None = None) -> str:
        s = (ctx or self.ctx).structure
        rows = np.nonzero(s.ligand)[0]
        return str(s.resname[rows[0]]) if len(rows) else "LIG"

    def question(self, images_text: list[str], parts=COMPLEX, labels: LabelPlan | None = None,
                 shown=None, labels_extra: str = "", **fields) -> str:
        shown = shown if shown is not None else self.ctx.shown(parts)
        values = {"structure": self.sid, "ligand": self.ligand_name(), "n_images": str(len(images_text)),
                  "image_list": prompts.image_list(images_text),
                  "colours": prompts.colours_text(self.style, parts) + prompts.labels_text(labels, shown)
                  + labels_extra,
                  "frame_rules": prompts.frame_rules(self.style), "command_grammar": prompts.COMMAND_GRAMMAR,
                  "answer_format": self.d["answer_format"].strip(), **fields}
        return fill_template(self.task.template, values).strip() + "\n"

    def tries(self) -> int:
        return int(self.d["rejection"]["max_retries"])

    # ------------------------------------------------------------------ to implement
    def setup(self) -> None:
        pass

    def count(self) -> int:
        """How many samples to attempt for this structure (default: the spec's count)."""
        return self.task.samples(self.split)

    def make(self, index: int, rng: np.random.Generator, why: Counter) -> Planned:
        raise NotImplementedError


class Unavailable(Rejected):
    """A sample the complex cannot supply (e.g. too few H-bonded residues); not a rejection."""


def _failure(structure_id, task, sample, why, category) -> dict:
    return {"structure": structure_id, "task": task, "sample": sample, "why": why, "category": category}


def run_planner(planner_cls, task, structure, style: dict, split: str, seed: int, partners=None):
    """All samples of ``task`` for one structure and split, plus failure records
    ({"structure", "task", "sample", "why", "category"}; category "rejected" or "unavailable")."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    ctx = context_for(structure, style)
    samples, failures = [], []
    if task.samples(split) == 0:
        return samples, failures
    p = planner_cls(task, ctx, split, seed, partners)
    ids = [f"{task.name}-{structure.id}-{split}-{i:03d}" for i in range(task.samples(split))]
    try:
        p.setup()
    except Rejected as r:
        cat = "unavailable" if isinstance(r, Unavailable) else "rejected"
        return [], [_failure(structure.id, task.name, sid, r.why, cat) for sid in ids]
    n = min(p.count(), len(ids))
    for i, sid in enumerate(ids):
        if i >= n:
            failures.append(_failure(structure.id, task.name, sid, p.count_why, "unavailable"))
            continue
        rng = make_rng(seed, structure.id, task.name, split, i)
        why: Counter = Counter()
        try:
            out = p.make(i, rng, why)
        except Rejected as r:
            detail = "; ".join(f"{k} ×{v}" for k, v in sorted(why.items()))
            failures.append(_failure(structure.id, task.name, sid,
                                     r.why + (f" (rejected attempts: {detail})" if detail else ""),
                                     "unavailable" if isinstance(r, Unavailable) else "rejected"))
            continue
        program = dict(out.program)
        program["task"] = task.name
        program["task_type"] = task.type
        program["rejected_attempts"] = dict(sorted(why.items()))
        samples.append(Sample(id=sid, task=task.name, split=split, structure=structure.id,
                              question=out.question, images=list(out.images), options=out.options,
                              answer=out.answer, program=program,
                              seed=sample_seed(seed, structure.id, task.name, split, i)))
    return samples, failures
