"""Atom typing and the non-H-bond interaction kinds on real complexes."""
import functools
import pathlib

import pytest

from misigen.core.chemistry.interactions import INTERACTION_KINDS, find_interactions
from misigen.core.chemistry.interactions.hbond_rules import acceptor_rule, donor_rule
from misigen.core.chemistry.interactions.atom_typing import type_structure
from misigen.core.structure.loader import discover, load_structure


@functools.lru_cache(maxsize=None)
def _load(root, name, ligand=None):
    root = pathlib.Path(root)
    path = root / "paired" / name if (root / "paired" / name).is_dir() else root / "pdb" / f"{name}.pdb"
    return load_structure(discover([path])[0], ligand=ligand)


@pytest.fixture
def load(complexes):
    return lambda name, ligand=None: _load(str(complexes), name, ligand)


def _row(s, chain, resseq, atom):
    return [i for i in range(s.n_atoms) if s.chain[i] == chain and s.resseq[i] == resseq and s.name[i] == atom][0]


def test_kinds_tuple():
    assert INTERACTION_KINDS == ("hbond", "salt_bridge", "pi_stacking", "cation_pi", "halogen_bond",
                                 "metal", "hydrophobic")


def test_protein_template_types(load):
    s = load("cdk2")
    T = type_structure(s)
    n = _row(s, "A", 83, "N")
    o = _row(s, "A", 81, "O")
    assert T.types[n] == "Npl" and donor_rule(T, n).rule_id == "l"
    assert T.types[o] == "O2" and acceptor_rule(T, o).rule_id == "#6"


def test_histidine_tautomer_from_explicit_h(load):
    """With H in the file, the protonated ring N is a donor only, the other an acceptor only."""
    s = load("cdk2")
    T = type_structure(s)
    his = [i for i in range(s.n_atoms) if s.resname[i] == "HIS" and s.name[i] in ("ND1", "NE2") and T.active[i]]
    assert his
    for i in his:
        if T.h_nb[i]:
            assert T.types[i] == "Npl" and acceptor_rule(T, i) is None and donor_rule(T, i) is not None
        else:
            assert T.types[i] == "N2" and acceptor_rule(T, i) is not None


def test_histidine_without_h_is_both(load):
    """H-less HIS (PDB entry), misigen definition: both ring N are donors (inferred H) and 5-ring
    acceptors (#28): the tautomer is not decidable from the coordinates (the chimerax definition
    picks one from the ring bond lengths, as the reference: test_reference_match.py)."""
    s = load("2q8q")
    T = type_structure(s, definition="misigen")
    i = _row(s, "A", 229, "ND1")
    assert T.types[i] == "Npl"
    assert acceptor_rule(T, i).rule_id == "#28" and donor_rule(T, i).rule_id == "p"


def test_rdkit_ligand_types(load):
    """SDF ligands, misigen definition: typed from the file's bond orders by RDKit: carboxylate O
    are O2- (ptp1b), aromatic ring N are N2 acceptors (cdk2). The chimerax definition types them
    from coordinates, as the reference types the same ligand written as a HETATM residue, and
    gets the same types here."""
    for definition, how in (("misigen", "rdkit"), ("chimerax", "geometry")):
        s = load("ptp1b")
        T = type_structure(s, definition=definition)
        assert T.notes["ligand_typing"] == how
        lig = [i for i in range(s.n_atoms) if s.ligand[i]]
        assert sum(T.types[i] == "O2-" for i in lig) >= 2
        assert all(acceptor_rule(T, i).rule_id == "#3" for i in lig if T.types[i] == "O2-")
        s = load("cdk2")
        T = type_structure(s, definition=definition)
        assert any(T.types[i] == "N2" for i in range(s.n_atoms) if s.ligand[i])


def test_geometry_ligand_types(complexes, monkeypatch):
    """HETATM ligand without bond orders (the fallback, forced with MISIGEN_LIGAND_CHEMISTRY=geometry):
    GTP-analogue phosphates, ribose OH, guanine ring typed from geometry."""
    from misigen.core.structure.loader import discover, load_structure
    monkeypatch.setenv("MISIGEN_LIGAND_CHEMISTRY", "geometry")
    s = load_structure(discover([complexes / "pdb" / "4dst.pdb"])[0])
    T = type_structure(s)
    assert T.notes["ligand_typing"] == "geometry"
    t = {s.name[i]: T.types[i] for i in range(s.n_atoms) if s.ligand[i]}
    assert t["PG"] == "Pac" and t["PA"] == "Pac"
    assert t["O2'"] == "O3" and t["O3'"] == "O3"
    assert t["O6"] in ("O2", "O3")          # the guanine carbonyl
    assert t["N7"] == "N2"                  # imidazole N of the purine
    assert t["C8"] == "Car"


def test_pi_stacking_tacrine(load):
    """Tacrine in AChE (1acj, Harel et al. 1993): sandwiched face-to-face between Trp84 and Phe330."""
    found = find_interactions(load("1acj"), kinds=("pi_stacking",))
    res = {(i.resname, i.resseq) for i in found}
    assert ("TRP", 84) in res and ("PHE", 330) in res
    assert all(i.extra["geometry"] == "face-to-face" for i in found if i.resseq in (84, 330))


def test_metal_coordination(load):
    # a protein-side metal is a partner only when kept (the pocket is protein by default)
    assert not find_interactions(load("4dst"), kinds=("metal",))
    found = find_interactions(load("4dst"), kinds=("metal",), keep=("metals",))
    assert found and all(i.resname == "MG" and i.distance < 2.6 for i in found)
    heme = find_interactions(load("2q8q"), kinds=("metal",))
    assert ("HIS", 229, "NE2") in {(i.resname, i.resseq, i.protein_atom) for i in heme}
    zn = find_interactions(load("1rmd", "ZN"), kinds=("metal",))
    assert sum(i.resname == "CYS" for i in zn) >= 2


def test_salt_bridges(load):
    """Catalytic Asp of BACE1 to the cationic amidine; PTP1B Arg221 to the carboxylate."""
    bace = find_interactions(load("bace"), kinds=("salt_bridge",))
    assert ("ASP", 93) in {(i.resname, i.resseq) for i in bace}
    ptp = find_interactions(load("ptp1b"), kinds=("salt_bridge",))
    assert ("ARG", 221) in {(i.resname, i.resseq) for i in ptp}
    assert all(i.distance <= 5.5 and i.donor == "" for i in bace + ptp)


def test_cation_pi_and_halogen(load):
    gal = find_interactions(load("galectin3_extra"), kinds=("cation_pi",))
    assert ("ARG", 144) in {(i.resname, i.resseq) for i in gal}   # galectin-3 Arg144 over the aryl ring
    hal = find_interactions(load("tyk2"), kinds=("halogen_bond",))
    assert hal and all(i.ligand_atom.upper().startswith("CL") and i.distance <= 4.0 for i in hal)
    assert all(i.angles["C-X..A"] >= 135 for i in hal)


def test_hydrophobic_contacts(load):
    """T4 lysozyme L99A cavity: the ligand sits in an apolar pocket (no H-bonds, many C...C contacts)."""
    s = load("t4lysozyme_uvt")
    found = find_interactions(s, kinds=("hbond", "hydrophobic"))
    kinds = [i.kind for i in found]
    assert "hbond" not in kinds and kinds.count("hydrophobic") >= 5
    assert all(i.distance <= 4.0 for i in found)
    per = [(i.chain, i.resseq, i.ligand_index) for i in found]
    assert len(per) == len(set(per))


def test_kind_selection(load):
    s = load("ptp1b")
    only = find_interactions(s, kinds=("salt_bridge",))
    both = find_interactions(s, kinds=("hbond", "salt_bridge"))
    assert {i.kind for i in only} == {"salt_bridge"}
    assert {i.kind for i in both} == {"hbond", "salt_bridge"}
    assert find_interactions(s, kinds="hbond,salt_bridge") == both
