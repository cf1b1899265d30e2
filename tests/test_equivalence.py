"""Equivalent names are the same answer: ASP OD1/OD2, GLU OE1/OE2, ARG NH1/NH2, PHE/TYR
CD1/CD2 and CE1/CE2, and ligand atoms of one symmetry class, in scoring (exact and composite),
validate and the canonical form."""
import re
from pathlib import Path

import pytest
from rdkit import Chem

from misigen.core.chemistry.equivalence import Equivalence, ligand_classes, protein_atom_class, protein_groups
from misigen.core.structure.loader import discover, load_structure
from misigen.core.look.style import load_style
from misigen.core.tasks import load_suite, plan_samples, score_answer
from misigen.core.tasks.answers import canonical
from misigen.pipeline.validate import _check_answer

ROOT = Path(__file__).resolve().parents[1]
EXCERPTS = ROOT / "tests" / "data" / "excerpts"
PAIRS = {"ASP": [("OD1", "OD2")], "GLU": [("OE1", "OE2")], "ARG": [("NH1", "NH2")],
         "PHE": [("CD1", "CD2"), ("CE1", "CE2")], "TYR": [("CD1", "CD2"), ("CE1", "CE2")]}


def test_protein_table_is_the_issue_list():
    groups = protein_groups()
    for res, pairs in PAIRS.items():
        for a, b in pairs:
            assert protein_atom_class(res, a) == protein_atom_class(res, b.lower()) == a
    assert set(groups) == set(PAIRS)
    assert protein_atom_class("ASP", "CG") == "CG" and protein_atom_class("ASN", "OD1") == "OD1"


def named(smiles):
    mol = Chem.MolFromSmiles(smiles)
    names = [f"{a.GetSymbol()}{a.GetIdx()}" for a in mol.GetAtoms()]
    return ligand_classes(mol, names)


def test_ligand_classes_from_canonical_ranking_without_tie_breaking():
    assert named("CC(=O)[O-]") == [["O2", "O3"]]                  # a carboxylate's O, C=O and C-O-
    assert named("COP(=O)([O-])[O-]") == [["O3", "O4", "O5"]]     # a phosphate's terminal O, not the ester O
    assert named("NC(=[NH2+])c1ccccc1") == [["N0", "N2"], ["C4", "C8"], ["C5", "C7"]]   # amidine N, ring pairs
    assert named("OCC(=O)NC") == []                                # nothing alike


def swapped_pocket(answer, eq_program):
    """Every protein atom of an equivalence group renamed to another member, every ligand atom of
    a symmetry class to the next member of its class."""
    lig = {}
    for group in eq_program.get("equivalent_atoms", []):
        for k, n in enumerate(group):
            lig[n.upper()] = group[(k + 1) % len(group)]
    prot = {(r, a): b for r, pairs in PAIRS.items() for x, y in pairs for a, b in ((x, y), (y, x))}

    def one(m):
        res, num, patom, chain, latom = m.groups()
        return f"{res} {num} {prot.get((res, patom), patom)} {chain}, {lig.get(latom.upper(), latom)}"
    return re.sub(r"(\w+) (-?\d+\w?) (\S+) (\S+), (\S+?)(?=;|$)", one, answer)


def test_swapped_names_in_a_perfect_prediction_still_score_100():
    truth = "ARG 221 NH1 A, O1; GLU 5 OE1 A, N2; PHE 9 CD1 A, C3; TYR 10 CE2 A, O5; ASP 189 OD2 A, N1; ASP 189 OD1 A, N2"
    program = {"equivalent_atoms": [["N1", "N2"], ["O1", "O2"]]}
    record = {"answer": truth, "program": program, "options": None}
    swapped = swapped_pocket(truth, program)
    assert swapped == ("ARG 221 NH2 A, O2; GLU 5 OE2 A, N1; PHE 9 CD2 A, C3; TYR 10 CE1 A, O5; "
                       "ASP 189 OD1 A, N2; ASP 189 OD2 A, N1")
    s = score_answer("pocket_ligand_interaction", swapped, record)
    assert (s["exact"], s["composite"], s["f1"]) == (1, 1.0, 1.0)
    # a name that is not equivalent still costs (ARG NE is not NH1), so the check can fail
    wrong = swapped.replace("NH2", "NE")
    s = score_answer("pocket_ligand_interaction", wrong, record)
    assert s["exact"] == 0 and s["composite"] == pytest.approx(5 / 6)
    # without the record's ligand classes the ligand swap is wrong again
    s = score_answer("pocket_ligand_interaction", swapped, {"answer": truth, "program": {}, "options": None})
    assert s["exact"] == 0
    # a bidentate pair stays two bonds: naming one of them twice over is one right bond, not two
    half = "ASP 189 OD1 A, N1"
    s = score_answer("pocket_ligand_interaction", half, {"answer": "ASP 189 OD2 A, N1; ASP 189 OD1 A, N2",
                                                          "program": program, "options": None})
    assert (s["exact"], s["tp"], s["n_true"], s["composite"]) == (0, 1, 2, 1.0)


def test_residue_answers_too():
    record = {"answer": "Yes: ASP OD1, N2; ASP OD2, N1", "program": {"equivalent_atoms": [["N1", "N2"]]},
              "options": None}
    s = score_answer("residue_ligand_interaction", "Yes: ASP OD2, N2; ASP OD1, N1", record)
    assert (s["exact"], s["composite"]) == (1, 1.0)
    eq = Equivalence.of(record["program"])
    # the canonical form names each atom by its class (a bidentate pair stays two bonds)
    assert canonical("residue", "yes: asp od2, n2; ASP OD1 , N1", eq) == canonical("residue", record["answer"], eq) \
        == "Yes: ASP OD1, N1; ASP OD1, N1"
    assert canonical("pocket", "ARG 221 NH2 A, O2", Equivalence([["O1", "O2"]])) == "ARG 221 NH1 A, O1"


@pytest.fixture(scope="module")
def gp6():
    return load_structure(discover([EXCERPTS / "1bju_gp6.pdb"])[0])


@pytest.mark.parametrize("task", ["pocket_ligand_interaction", "residue_ligand_interaction"])
def test_planned_records_carry_classes_and_swaps_score_100(gp6, task):
    """1bju: GP6's amidine N1/N2 (one class) bond ASP 189 OD2/OD1 (one group)."""
    specs = {t.name: t for t in load_suite(ROOT / "task_specs" / "misi_bench.yaml").tasks}
    samples, _ = plan_samples(specs[task], gp6, load_style("misi_bench"), "train", 3)
    records = [s.as_record() for s in samples if s.answer != "No"]
    assert records
    seen_asp = False
    for rec in records:
        assert ["N1", "N2"] in rec["program"]["equivalent_atoms"]
        assert not _check_answer(rec)                                 # validate: the stated answer agrees
        if task == "pocket_ligand_interaction":
            swapped = swapped_pocket(rec["answer"], rec["program"])
        else:
            lig = {"N1": "N2", "N2": "N1"}
            swapped = re.sub(r"(\w+) (\w+), (\w+)", lambda m: f"{m[1]} "
                             f"{dict(PAIRS.get(m[1], []) + [(b, a) for a, b in PAIRS.get(m[1], [])]).get(m[2], m[2])}, "
                             f"{lig.get(m[3], m[3])}", rec["answer"])
        seen_asp |= "ASP 189" in rec["answer"] or "ASP OD" in rec["answer"]
        assert swapped != rec["answer"]
        s = score_answer(rec["task"], swapped, rec)
        assert (s["exact"], s["composite"]) == (1, 1.0), (rec["answer"], swapped)
        # validate accepts the swapped names as the same answer too
        assert not _check_answer({**rec, "answer": swapped})
    assert seen_asp


def test_misi_plus_pocket_views_label_contact_n_and_o(gp6):
    """misi_plus names every protein N/O within 4 Å of a ligand atom in pocket views (answer-free), so
    a reader can tell OD1 from OD2; misi_bench labels residues only (fidelity)."""
    import numpy as np

    from misigen.core.scene.labels import atom_id
    from misigen.core.scene.scene_plan import placed_labels, shown_structure
    style = load_style("misi_bench")
    shown = shown_structure(gp6, style)
    lig = shown.coords[shown.ligand]
    want = {(str(c), int(n), str(i), str(a)) for c, n, i, a, e, xyz, is_lig in
            zip(shown.chain, shown.resseq, shown.icode, shown.name, shown.element, shown.coords, shown.ligand)
            if not is_lig and e in ("N", "O") and np.linalg.norm(lig - xyz, axis=1).min() <= 4.0}
    assert ("A", 189, "", "OD1") in want and ("A", 189, "", "OD2") in want
    for suite, expect in (("misi_plus", want), ("misi_bench", set())):
        specs = {t.name: t for t in load_suite(ROOT / "task_specs" / f"{suite}.yaml").tasks}
        for task in ("pocket_ligand_interaction", "interaction_location"):
            samples, _ = plan_samples(specs[task], gp6, style, "train", 3)
            assert samples
            for img in samples[0].images:
                assert set(img.labels.atoms) == expect
    specs = {t.name: t for t in load_suite(ROOT / "task_specs" / "misi_plus.yaml").tasks}
    samples, _ = plan_samples(specs["pocket_ligand_interaction"], gp6, style, "train", 3)
    drawn = {lab["id"] for lab in placed_labels(shown, samples[0].images[0]) if lab["box"] is not None}
    assert {atom_id("A", 189, "", "OD1"), atom_id("A", 189, "", "OD2")} <= drawn
