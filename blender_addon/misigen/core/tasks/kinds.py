"""Interaction kinds the H-bond tasks (T4, T8, T9) can ask about, with the words and criteria
their prompts state. The numbers come from the finder's own criteria tables
(``core/data/interactions/*.yaml``), so a prompt never disagrees with the ground truth.

Answer forms: H-bonds keep MiSI-Bench's atom-level forms; the other kinds are asked at the
residue level — T4 ``Yes`` / ``No``, T9 a list of residues ``ASP 189 A; LYS 70 A`` (or ``No``)
— because their partners are groups (rings, charged groups) that labels cannot name one by one.
"""
from __future__ import annotations

from ..data_files import load_table
from ..interactions import INTERACTION_KINDS

NAMES = {"hbond": ("hydrogen bond", "hydrogen bonds"), "salt_bridge": ("salt bridge", "salt bridges"),
         "pi_stacking": ("π-stacking interaction", "π-stacking interactions"),
         "cation_pi": ("cation–π interaction", "cation–π interactions"),
         "halogen_bond": ("halogen bond", "halogen bonds"),
         "metal": ("metal coordination", "metal coordinations"),
         "hydrophobic": ("hydrophobic contact", "hydrophobic contacts")}


def name(kind: str, plural: bool = False) -> str:
    return NAMES[kind][1 if plural else 0]


def criteria_text(kind: str) -> str:
    """The criterion the ground truth uses, in words, with its numbers."""
    if kind == "hbond":
        return ("Hydrogen bonds are judged by the geometric criteria of ChimeraX 'hbonds' (donor–acceptor "
                "distance and angle limits of Mills & Dean, relaxed by 0.4 Å and 20°).")
    c = load_table("interactions/other_criteria.yaml")[kind]
    texts = {
        "salt_bridge": lambda: f"A salt bridge is a positively and a negatively charged group (at pH 7) whose "
                               f"charge centres are at most {c['max_distance']:g} Å apart.",
        "pi_stacking": lambda: f"π-stacking: two aromatic rings whose centroids are at most {c['max_distance']:g} Å "
                               f"apart, offset by at most {c['max_offset']:g} Å, face to face (normals within "
                               f"{c['parallel_max_angle']:g}°) or edge to face (normals at least "
                               f"{c['tshape_min_angle']:g}° apart).",
        "cation_pi": lambda: f"Cation–π: a positively charged group at most {c['max_distance']:g} Å from the centroid "
                             f"of an aromatic ring, offset by at most {c['max_offset']:g} Å.",
        "halogen_bond": lambda: f"A halogen bond: a ligand C–Cl/Br/I pointing at an acceptor at most "
                                f"{c['max_distance']:g} Å away (C–X···A angle {c['donor_angle'][0]:g}–"
                                f"{c['donor_angle'][1]:g}°).",
        "metal": lambda: f"Metal coordination: a ligand N, O or S atom at most {c['max_distance']:g} Å from a metal ion.",
        "hydrophobic": lambda: f"A hydrophobic contact: a carbon bonded only to carbons and hydrogens (or a ligand "
                               f"halogen) at most {c['max_distance']:g} Å from such an atom of the other molecule.",
    }
    return texts[kind]()


def check_kind(kind: str) -> bool:
    return kind in INTERACTION_KINDS
