"""T9's planner: one question per complex, all the pocket's interactions of the kind asked about
(a complex without one is asked in the test split and skipped in train, as the spec says)."""
from __future__ import annotations

from collections import Counter

from ...chemistry.interactions import KINDS
from .. import prompts
from ..answers import format_pocket_hbonds, format_residues, hbond_entry, residue_entry
from ..base import Unavailable
from ..common import Planned, Rejected, rnd
from ..shared.hbond import HBondPlanner
from .program import PocketProgram


class PocketPlanner(HBondPlanner):
    def setup(self):
        self.hb = self.found()
        if not self.hb and self.d["without_interactions"][self.split] == "skip":
            raise Unavailable(f"no protein–ligand {KINDS[self.kind].noun} in this complex ({self.split} split: "
                              f"complexes without one are skipped)")
        self.labels = self.label_plan()
        self.specs = self.views(self.labels, pose=self.hiding_pose(self.contact_rows()))

    def count(self) -> int:
        return 1

    count_why = "one distinct question per complex"

    def make(self, index, rng, why: Counter) -> Planned:
        hbond = self.kind == "hbond"
        reason = self.unreadable(self.specs, self.hb, self.bond_labels(self.hb, ligand_atoms=hbond))
        if reason:
            why[reason] += 1
            raise Rejected(reason)
        texts = [f"the complex seen {prompts.view_text(v)}" for v in self.d["views"]]
        centre = rnd(self.ctx.centre())
        if hbond:
            entries = [hbond_entry(b) for b in self.hb]
            answer = format_pocket_hbonds(entries)
            program = PocketProgram(interaction=self.kind, centre=centre, hbonds=entries, n_hbonds=len(entries),
                                    equivalent_atoms=self.ctx.ligand_classes())
        else:
            residues = {(b.chain, int(b.resseq), b.icode): residue_entry(b.chain, b.resname, b.resseq, b.icode)
                        for b in self.hb}
            answer = format_residues(list(residues.values()))
            program = PocketProgram(interaction=self.kind, centre=centre, answer_kind="residues",
                                    residues=list(residues.values()), n_residues=len(residues),
                                    interactions=[b.as_dict() for b in self.hb])
        question = self.question(texts, labels=self.labels, framing=prompts.framing_text("views"),
                                 labels_extra=self.labels_note(),
                                 **self.kind_fields())
        return Planned(question, self.specs, answer, program.as_dict())
