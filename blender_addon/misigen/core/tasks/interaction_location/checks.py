"""How T8's answers are checked: re-derived on the sidecars (``validate``), graded (difficulty), and
counted for the manifest (its guessers are the shared option-text ones, ``guessers.py``)."""
from __future__ import annotations

import math

import numpy as np

from ...quality import difficulty
from ...op_grammar import parse_ops
from ..rederive import LETTERS, TOLERANCE
from ..shared.hbond import bond_rows, hbond_margin
from .program import LocationProgram


def front(rec: dict, sidecar):
    """The record's front view: its first image posed without any whole-model ops."""
    for rel in rec["images"]:
        side = sidecar(rel)
        if side is not None and not side.ops.get("all"):
            return side
    return sidecar(rec["images"][0])


def centred_bond(rec: dict, sidecar) -> list[str]:
    """The answered option's moves bring the named H-bond's centre to the screen centre (± 0.5 Å)."""
    hb = LocationProgram.from_dict(rec["program"]).hbond
    side = front(rec, sidecar)
    letters = LETTERS[:len(rec["options"] or ())]
    if hb is None or side is None or rec["answer"] not in letters:
        return []
    protein = side.find(chain=hb["chain"], resseq=int(hb["resseq"]), resname=hb["resname"],
                        name=hb["protein_atom"], ligand=False)
    ligand = side.find(name=hb["ligand_atom"], ligand=True)
    if not protein or not ligand:
        return [f"the H-bond {hb['resname']} {hb['resseq']} {hb['protein_atom']} / {hb['ligand_atom']} "
                "is not in the front image"]
    mid = (side.cam[protein[0]] + side.cam[ligand[0]]) / 2
    residual = {}
    for letter, text in zip(letters, rec["options"]):
        shift = np.zeros(3)
        for op in parse_ops(text):
            if op.verb == "move":
                shift["xyz".index(op.axis)] += op.value
        residual[letter] = float(np.abs((mid + shift)[:2]).max())
    if residual[rec["answer"]] > 0.5 + TOLERANCE:
        return [f"option {rec['answer']} leaves the H-bond centre {residual[rec['answer']]:.2f} Å off the "
                "screen centre"]
    if min(residual.values()) < residual[rec["answer"]] - 1e-6:
        return [f"option {min(residual, key=residual.get)} centres the H-bond better than the answer"]
    return []


def _moves(text: str) -> tuple[float, float]:
    vals = {"x": 0.0, "y": 0.0}
    for part in text.split(","):
        w = part.split()
        if len(w) == 3 and w[0] == "move":
            vals[w[1]] = float(w[2])
    return vals["x"], vals["y"]


def difficulty_part(rec: dict, sidecars: dict) -> dict:
    """The answer's move length, the least gap between two options at the H-bond's depth (px), the
    H-bond's margin to its limit."""
    p = LocationProgram.from_dict(rec["program"])
    moves = [_moves(o["text"]) for o in p.options]
    gap = min(math.dist(a, b) for i, a in enumerate(moves) for b in moves[i + 1:])
    cars = difficulty.images(rec, sidecars)
    w = float(cars[0]["width"])
    f = (w / 2) / math.tan(math.radians(float(cars[0]["camera"].get("fov_deg") or 30.0)) / 2)
    depth = -float(p.midpoint_camera_xyz[2]) if p.midpoint_camera_xyz else 60.0
    bonds = [p.hbond] if p.hbond else []
    return {"magnitude": difficulty.rounded(math.hypot(*_moves(p.answer_text)), 2),
            "option_gap_px": difficulty.rounded(gap * f / max(depth, 1e-3), 2),
            "hbond_margin": hbond_margin(p.interaction, bonds, cars), "_answer_atoms": bond_rows(p.interaction, bonds)}


def features(program: dict) -> list:
    return [("letter", LocationProgram.from_dict(program).correct)]
