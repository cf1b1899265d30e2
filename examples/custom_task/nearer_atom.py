"""A user-defined misigen task: which of two named ligand atoms is nearer the viewer?

One front view of the complex with the ligand's atoms labelled; the question names two of its
heavy atoms (both labelled in the image, at least ``min_depth_gap`` Å apart in depth) and asks
which is nearer the camera. Options A/B are the two atoms; the answer is a letter.

The answer is computed from the 3D coordinates (numpy: the atoms posed for the view, projected
by its camera, compared by depth); ``validate`` re-derives it from the image's sidecar (each
atom's recorded depth). Nothing in the misigen package names this task: the suite's
``modules: [nearer_atom.py]`` adds ``TASK_TYPES`` below to the registry. It imports only misigen's
public task API (``misigen.tasks``), and, as a plugin task, stays out of MiSI-Bench's "Avg." row.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from misigen.tasks import (REQUIRED, VIEWS, Num, Planned, Planner, Rejected, TaskType, Unavailable, balanced_order,
                           ligand_atom_id, rejection, view_text)

HEAVY_MIN = 2          # a ligand needs at least two heavy atoms to ask about


class NearerAtomPlanner(Planner):
    def setup(self):
        ctx = self.ctx
        self.labels = self.label_plan()
        self.view = self.view_spec(self.d["view"], labels=self.labels)
        shown = ctx.shown()
        self.heavy = [int(i) for i in np.nonzero(shown.ligand & ~shown.is_hydrogen)[0]]
        if len(self.heavy) < HEAVY_MIN:
            raise Unavailable("the ligand has fewer than two heavy atoms")
        xyz = ctx.posed(self.view.ops, self.view.parts, self.view.residues, self.view.centre)
        _pix, self.depth = self.view.camera.project(xyz)       # Å along the view direction
        self.names = [str(shown.name[i]) for i in range(shown.n_atoms)]
        drawn = self.placed(self.view) if self.labels is not None else None
        # atoms a reader can find: labelled in the image (when labels are drawn), one atom per name
        counts = Counter(self.names[i] for i in self.heavy)
        self.candidates = [i for i in self.heavy if counts[self.names[i]] == 1
                           and (drawn is None or ligand_atom_id(self.names[i]) in drawn)]
        self.letters = balanced_order(["A", "B"], self.srng)

    def count(self) -> int:
        return min(self.task.samples(self.split), len(self.candidates) // 2)

    count_why = "too few labelled ligand atoms for distinct questions"

    def make(self, index, rng, why: Counter) -> Planned:
        gap = float(self.d["min_depth_gap"])
        pairs = [(a, b) for k, a in enumerate(self.candidates) for b in self.candidates[k + 1:]
                 if frozenset((a, b)) not in self.used]
        for k in rng.permutation(len(pairs))[: self.tries()]:
            a, b = pairs[int(k)]
            if abs(self.depth[a] - self.depth[b]) >= gap:
                break
            why["atoms at similar depths"] += 1
        else:
            raise Rejected(f"no pair of labelled atoms {gap:g} Å apart in depth within {self.tries()} tries")
        self.used.add(frozenset((a, b)))
        nearer = a if self.depth[a] < self.depth[b] else b
        letter = self.letters[index % len(self.letters)]
        # the nearer atom is option ``letter``, the other the remaining option
        order = [nearer, b if nearer == a else a] if letter == "A" else [b if nearer == a else a, nearer]
        options = [f"atom {self.names[i]}" for i in order]
        question = self.question([f"the complex seen {view_text(self.d['view'])}"], labels=self.labels,
                                 atom_a=self.names[order[0]], atom_b=self.names[order[1]],
                                 options_text="Options:\n" + "\n".join(f"{L}. {t}" for L, t in zip("AB", options)))
        program = {"kind": "nearer_atom", "view": self.d["view"], "correct": letter,
                   "atoms": [{"name": self.names[i], "depth": round(float(self.depth[i]), 3)} for i in order],
                   "depth_gap": round(abs(float(self.depth[a] - self.depth[b])), 3),
                   "options": [{"letter": L, "text": t, "correct": L == letter} for L, t in zip("AB", options)]}
        return Planned(question, [self.view], letter, program, options)


def rederive(rec: dict, sidecar) -> list[str]:
    """The answered atom is the nearer one by the depths the image's sidecar records."""
    side = sidecar(rec["images"][0])
    if side is None:
        return ["sidecar unreadable"]
    depth = {}
    for atom in rec["program"]["atoms"]:
        rows = side.find(name=atom["name"], ligand=True)
        if not rows:
            return [f"atom {atom['name']} is not in the image"]
        depth[atom["name"]] = float(side.depth[rows[0]])
    names = [a["name"] for a in rec["program"]["atoms"]]
    nearer = "AB"[int(np.argmin([depth[n] for n in names]))]
    if nearer != rec["answer"]:
        return [f"by the sidecar's depths option {nearer} is nearer, not {rec['answer']}"]
    return []


def features(program: dict) -> list:
    return [("letter", program["correct"])]


def nearer_first_listed(recs, rows, section, load_image=None) -> None:
    """A blind guesser: the first option is the nearer atom (the letters are balanced, so chance)."""
    for r in recs:
        rows.add("first option", float(r["answer"] == "A"), 0.5, "option text")


SCHEMA = {
    "view": (VIEWS, "front"),
    "min_depth_gap": (Num(0), 1.0),
    "rejection": (rejection(), REQUIRED),
}

TASK_TYPES = (
    TaskType("nearer_atom", NearerAtomPlanner, SCHEMA, frozenset({"atom_a", "atom_b", "options_text"}), "letter",
             features=features, description="Which of two named ligand atoms is nearer the viewer?",
             rederive=rederive, audit=nearer_first_listed, guessers=("first option",)),
)
