"""H-bond finder (ChimeraX `hbonds` definition) validated on the real complexes in shared/data/complexes."""
import dataclasses
import functools
import json

import numpy as np
import pytest

from misigen.core.errors import InputError
from misigen.core.chemistry.interactions import INTERACTION_KINDS, Interaction, find_interactions, format_table
from misigen.core.chemistry.interactions.hbonds import hbond_pairs, partner_masks
from misigen.core.chemistry.interactions.atom_typing import type_structure
from misigen.core.structure.loader import discover, load_structure


@functools.lru_cache(maxsize=None)
def _load(root, name):
    import pathlib
    root = pathlib.Path(root)
    path = root / "paired" / name if (root / "paired" / name).is_dir() else root / "pdb" / f"{name}.pdb"
    return load_structure(discover([path])[0])


@pytest.fixture
def load(complexes):
    return lambda name: _load(str(complexes), name)


def _keys(found, kind="hbond"):
    return {(i.chain, i.resname, i.resseq, i.protein_atom, i.donor) for i in found if i.kind == kind}


# (complex, chain, residue, number, protein atom, donor side, why it is expected)
EXPECTED = [
    ("cdk2", "A", "LEU", 83, "N", "protein", "kinase hinge: Leu83 backbone N-H donates to the ligand's ring N"),
    ("cdk2", "A", "GLU", 81, "O", "ligand", "kinase hinge: Glu81 C=O accepts the ligand N-H"),
    ("cdk2", "A", "LEU", 83, "O", "ligand", "kinase hinge: Leu83 C=O accepts the ligand amine N-H"),
    ("p38", "C", "MET", 109, "N", "protein", "p38 hinge Met109 N-H to the inhibitor ring N (2.9-3.0 A, linear)"),
    ("egfr", "A", "MET", 769, "N", "protein", "EGFR hinge Met769 N-H to the quinazoline-like N1"),
    ("itk", "A", "MET", 438, "N", "protein", "ITK hinge Met438 N-H to the ligand ring N"),
    ("tyk2", "A", "VAL", 981, "N", "protein", "TYK2 hinge Val981 N-H to the ligand ring N"),
    ("tyk2", "A", "VAL", 981, "O", "ligand", "TYK2 hinge Val981 C=O accepts the ligand amide N-H"),
    ("hiv_prot_ekegren", "A", "ASP", 25, "OD2", "ligand",
     "HIV protease: catalytic Asp25 carboxylate accepts the inhibitor's transition-state hydroxyl (2.7 A)"),
    ("1hpx", "A", "ASP", 25, "OD2", "ligand", "HIV protease / KNI-272: catalytic Asp25 to the hydroxyl"),
    ("1hvi", "A", "GLY", 48, "O", "ligand", "HIV protease flap Gly48 C=O accepts the A-77003 amide N-H"),
    ("bace", "A", "ASP", 93, "OD1", "ligand",
     "BACE1 catalytic Asp (Asp32 in mature numbering) accepts from the amidine-type N-H"),
    ("bace", "A", "ASP", 289, "OD2", "ligand", "BACE1 second catalytic Asp (Asp228) accepts from the same N-H2"),
    ("ptp1b", "A", "ARG", 221, "NE", "protein", "PTP1B P-loop Arg221 binds the carboxylate phosphotyrosine mimic"),
    ("ptp1b", "A", "PHE", 182, "N", "protein", "PTP1B WPD-loop backbone N-H to the carboxylate O"),
    ("ptp1b", "A", "GLN", 266, "NE2", "protein", "PTP1B Gln266 amide NH2 to the carboxylate"),
    ("wagner_brd4", "A", "ASN", 433, "ND2", "protein",
     "bromodomain conserved Asn (acetyl-lysine site) NH2 donates to the ligand C=O"),
    ("thrombin_core", "H", "GLY", 216, "N", "protein", "thrombin Gly216 backbone N-H to the ligand C=O (antiparallel)"),
    ("4dst", "A", "GLY", 15, "N", "protein", "G-protein P-loop backbone N-H to the beta-phosphate"),
    ("4dst", "A", "LYS", 16, "NZ", "protein", "P-loop Lys16 NZ to the gamma-phosphate O"),
    ("4dst", "A", "ASP", 119, "OD2", "ligand", "NKxD motif Asp119 accepts the guanine N2-H2"),
]


@pytest.mark.parametrize("name,chain,res,num,atom,donor,why", EXPECTED)
def test_expected_hbond(load, name, chain, res, num, atom, donor, why):
    found = find_interactions(load(name))
    assert (chain, res, num, atom, donor) in _keys(found), why


def test_hinge_bond_geometry_is_reported(load):
    it = [i for i in find_interactions(load("cdk2")) if i.resseq == 83 and i.protein_atom == "N"][0]
    assert it.kind == "hbond" and it.donor == "protein"
    assert 2.6 < it.distance < 3.5
    assert it.angles["theta"] > 120
    assert "amide N-H" in it.criterion and "acceptor" in it.criterion
    assert it.extra["hydrogens"] == "explicit"


def test_no_water_and_no_protein_protein(load):
    s = load("1hii")
    for i in find_interactions(s):
        assert s.ligand[i.ligand_index] and not s.ligand[i.protein_index]
        assert not s.is_water[i.protein_index]


def test_symmetry_of_sides(load):
    """The same donor/acceptor pairs whichever atom set is passed first."""
    for name in ("hiv_prot_ekegren", "ptp1b", "4dst"):
        T = type_structure(load(name))
        prot, lig = partner_masks(T)
        ab = {(d, a) for d, a, *_ in hbond_pairs(T, prot, lig)}
        ba = {(d, a) for d, a, *_ in hbond_pairs(T, lig, prot)}
        assert ab == ba and ab


def test_both_directions_can_be_reported(load):
    """A donor on either side is found: protein->ligand and ligand->protein bonds in one complex."""
    found = find_interactions(load("hiv_prot_ekegren"))
    assert {"protein", "ligand"} <= {i.donor for i in found}


def _rotation(seed=3):
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    if np.linalg.det(q) < 0:
        q[:, 0] *= -1
    return q, rng.normal(scale=30.0, size=3)


@pytest.mark.parametrize("name", ["cdk2", "ptp1b", "1hpx", "4dst", "bace"])
def test_rigid_motion_invariance(load, name):
    s = load(name)
    R, t = _rotation()
    moved = dataclasses.replace(s, coords=s.coords @ R.T + t)
    kinds = INTERACTION_KINDS
    a, b = find_interactions(s, kinds=kinds), find_interactions(moved, kinds=kinds)
    assert [(i.kind, i.protein_index, i.ligand_index, i.donor) for i in a] == \
           [(i.kind, i.protein_index, i.ligand_index, i.donor) for i in b]
    for x, y in zip(a, b):
        assert abs(x.distance - y.distance) < 1e-6
        for k in x.angles:
            assert abs(x.angles[k] - y.angles[k]) < 1e-4


@pytest.mark.parametrize("name", ["cdk2", "p38", "egfr", "itk", "hiv_prot_ekegren", "thrombin_core", "bace"])
def test_with_and_without_protein_hydrogens_agree(load, name):
    """For H-determined groups the inferred H positions give the same bonds as the file's H."""
    s = load(name)
    keep = ~(s.is_hydrogen & ~s.ligand)
    rows = np.nonzero(keep)[0]
    with_h = {(i.protein_index, i.ligand_index, i.donor) for i in find_interactions(s)}
    stripped = {(int(rows[i.protein_index]), int(rows[i.ligand_index]), i.donor)
                for i in find_interactions(s.subset(keep))}
    determined = {k for k in with_h if s.name[k[0]] in ("N", "O", "ND2", "NE2", "NE", "NH1", "NH2", "NE1")
                  or k[2] == "ligand"}
    assert determined <= stripped


def test_no_relax_is_stricter(load):
    s = load("hiv_prot_ekegren")
    relaxed = {(i.protein_index, i.ligand_index, i.donor) for i in find_interactions(s)}
    strict = {(i.protein_index, i.ligand_index, i.donor) for i in find_interactions(s, relax=False)}
    assert strict <= relaxed and len(strict) < len(relaxed)


def test_deterministic_sorted_and_serialisable(load):
    s = load("ptp1b")
    a, b = find_interactions(s, kinds=INTERACTION_KINDS), find_interactions(s, kinds=INTERACTION_KINDS)
    assert [x.as_dict() for x in a] == [x.as_dict() for x in b]
    keys = [(x.chain, x.resseq, x.icode, x.protein_atom, x.ligand_atom, x.kind) for x in a]
    assert keys == sorted(keys)
    json.dumps([x.as_dict() for x in a])
    assert isinstance(a[0], Interaction)
    table = format_table(a)
    assert "ARG221" in table and table.count("\n") == len(a) + 2


def test_unknown_kind_rejected(load):
    with pytest.raises(ValueError):
        find_interactions(load("cdk2"), kinds=("vdw",))


@pytest.mark.slow      # takes long
def test_every_complex_runs(complexes):
    """No crash on any file; files without a drug-like ligand raise InputError at load time."""
    sources = discover([complexes / "paired", complexes / "pdb"])
    assert len(sources) >= 30
    ran = 0
    for src in sources:
        try:
            s = load_structure(src)
        except InputError:
            continue
        found = find_interactions(s, kinds=INTERACTION_KINDS)
        for i in found:
            assert i.kind in INTERACTION_KINDS and i.distance > 0
        ran += 1
    assert ran >= 25


@pytest.mark.slow      # takes long
def test_cli_prints_table(complexes, capsys):
    from misigen.pipeline.cli import main
    assert main(["interactions", str(complexes / "paired" / "cdk2"), "--kinds", "hbond,salt_bridge"]) == 0
    out = capsys.readouterr().out
    assert "LEU83" in out and "interaction(s)" in out
    assert main(["interactions", str(complexes / "pdb" / "1rmd.pdb"), "--ligand", "ZN", "--kinds", "metal"]) == 0
    assert "CYS" in capsys.readouterr().out


def test_suites_name_their_hbond_definition(tmp_path):
    """misi_bench reproduces the reference (MiSI-Bench's ground truth); misi_plus keeps misigen's
    departures. A suite names one with ``hbonds: {definition: ...}``; another name is refused with
    the file named."""
    from misigen.core.errors import InputError
    from misigen.core.tasks.spec import REPO_TASK_SPECS
    from misigen.core.tasks.suite import load_suite
    assert load_suite(REPO_TASK_SPECS / "misi_bench.yaml").settings.hbond_definition == "chimerax"
    assert load_suite(REPO_TASK_SPECS / "misi_plus.yaml").settings.hbond_definition == "misigen"
    bad = tmp_path / "suite.yaml"
    bad.write_text(f"name: x\ntasks: [{REPO_TASK_SPECS / 'translation.yaml'}]\nhbonds: {{definition: plip}}\n")
    with pytest.raises(InputError, match="hbonds.definition.*plip") as err:
        load_suite(bad)
    assert str(bad) in str(err.value)
