"""HETATM ligand chemistry: CCD templates, composite ligands, ligand choice, MOL2 names.

Each typing fix is checked on a small excerpt of the PDB entry where it was seen
(tests/data/excerpts/, cut by tests/data/make_excerpts.py; wwPDB data, CC0), with the
reason written next to it, and against misigen's geometry-only typing (the fallback, a
simplified version of the reference's ligand typing) where that typing gets it wrong.
"""
import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from misigen.core.chemistry import ccd
from misigen.core.errors import InputError
from misigen.core.chemistry.ligand import parse_selectors
from misigen.core.chemistry.interactions import find_interactions
from misigen.core.chemistry.interactions.hbond_rules import acceptor_rule, donor_rule
from misigen.core.chemistry.interactions.atom_typing import type_structure
from misigen.core.structure.ligand_map import read_ligand_map
from misigen.core.structure.loader import discover, load_structure

EXCERPTS = Path(__file__).resolve().parent / "data" / "excerpts"

needs_ccd = pytest.mark.skipif(ccd.ccd_path() is None, reason="Biotite's CCD is not installed")


def load(name, ligand=None, chemistry="ccd", monkeypatch=None):
    if monkeypatch is not None:
        monkeypatch.setenv("MISIGEN_LIGAND_CHEMISTRY", chemistry)
    return load_structure(discover([EXCERPTS / f"{name}.pdb"])[0], ligand)


def row(s, name, ligand=True):
    hits = [i for i in range(s.n_atoms) if s.name[i] == name and bool(s.ligand[i]) == ligand]
    assert len(hits) == 1, (name, hits)
    return hits[0]


def bonds(s):
    return {(i.resname, i.resseq, i.protein_atom, i.ligand_atom, i.donor): round(i.distance, 2)
            for i in find_interactions(s, kinds=("hbond",), definition="misigen")}


# ------------------------------------------------------------------ typing fixes
@pytest.mark.slow      # takes long
@needs_ccd
def test_guanine_n1_h_donates_to_asp(monkeypatch):
    """7MG (1h2t) and BGO (3tah): guanine N1 carries an H (keto tautomer, CCD H1), so it donates
    to the Asp that binds the base edge (Asp114 OD2 2.86 A; Asp116 OD1 2.84 A). Geometry typing
    (the reference's way, the chimerax definition) gets both too: a ring with a C=O is not
    aromatic there and N1, no C=N by its bond lengths, keeps its H (test_reference_match.py)."""
    s = load("1h2t_gdp_7mg", monkeypatch=monkeypatch)
    T = type_structure(s, definition="misigen")
    n1 = row(s, "7MG.N1")
    assert T.types[n1] == "Npl" and donor_rule(T, n1) is not None
    assert bonds(s)[("ASP", 114, "OD2", "7MG.N1", "ligand")] == 2.86
    b = load("3tah_bgo", monkeypatch=monkeypatch)
    assert bonds(b)[("ASP", 116, "OD1", "N1", "ligand")] == 2.84
    g = load("1h2t_gdp_7mg", chemistry="geometry", monkeypatch=monkeypatch)
    assert type_structure(g, definition="misigen").types[row(g, "7MG.N1")] == "Npl"
    assert ("ASP", 114, "OD2", "7MG.N1", "ligand") in bonds(g)
    g = load("3tah_bgo", chemistry="geometry", monkeypatch=monkeypatch)
    assert any(k[3] == "N1" for k in bonds(g))


@needs_ccd
def test_urea_nh_of_amidinophenyl_urea_donate(monkeypatch):
    """GP6 (1bju): N3 and N4 are urea N-H (CCD H3, H4), donors, with bonds to the sulfate next to
    them (2.87-3.01 A). Geometry typing makes them donors too (pass 4.75: an N next to an
    aromatic C is planar), Npl in the misigen definition (Ng+ in the chimerax one)."""
    s = load("1bju_gp6", monkeypatch=monkeypatch)
    T = type_structure(s, definition="misigen")
    for name in ("N3", "N4"):
        i = row(s, name)
        assert T.types[i] == "Npl" and donor_rule(T, i) is not None
    # the sulfate is no partner by default (the pocket is protein); without roles every
    # group is one, which shows the urea's donors
    found = bonds(replace(s, role=None))
    assert ("SO4", 901, "O3", "N3", "ligand") in found and ("SO4", 901, "O4", "N4", "ligand") in found
    assert not any(k[0] == "SO4" for k in bonds(s))
    g = load("1bju_gp6", chemistry="geometry", monkeypatch=monkeypatch)
    G = type_structure(g, definition="misigen")
    assert G.types[row(g, "N3")] == G.types[row(g, "N4")] == "Npl"
    assert ("SO4", 901, "O3", "N3", "ligand") in bonds(replace(g, role=None))
    # the amidine keeps its bonds to Asp189 either way (the S1 pocket salt bridge)
    assert ("ASP", 189, "OD2", "N1", "ligand") in found


@pytest.mark.slow      # takes long
@needs_ccd
def test_flavin_ring_oxygens_are_carbonyls(monkeypatch):
    """FMN (1aku): O2 and O4 of the isoalloxazine are C=O (O2 type: acceptors only) and N3 carries the
    H. Geometry types the ring as aromatic with phenol-like O that 'donate' (O2 to Tyr100 O, 3.38 A)
    and misses the real N3-H...O=C Tyr100 bond (2.81 A)."""
    s = load("1aku_fmn", monkeypatch=monkeypatch)
    T = type_structure(s, definition="misigen")
    assert T.types[row(s, "O2")] == "O2" and T.types[row(s, "O4")] == "O2"
    found = bonds(s)
    assert found[("TYR", 100, "O", "N3", "ligand")] == 2.81
    assert not any(k[3] in ("O2", "O4") and k[4] == "ligand" for k in found)
    assert ("ALA", 95, "N", "O2", "protein") in found          # O2 still accepts from the backbone
    g = load("1aku_fmn", chemistry="geometry", monkeypatch=monkeypatch)
    gfound = bonds(g)
    assert ("TYR", 100, "O", "O2", "ligand") in gfound and ("TYR", 100, "O", "N3", "ligand") not in gfound


@pytest.mark.slow      # takes long
@needs_ccd
def test_thioimidate_nitrogen_accepts_in_the_oxyanion_hole(monkeypatch):
    """NFT (1vsn) is a nitrile that reacted with Cys25 SG (LINK record): C44=N45-H is a thioimidate.
    The CCD entry describes C44-N45 as an aminomethyl, so atoms at a covalent link are typed from
    geometry, with the link counted as a bond: N45 (C=N 1.29 A) is an imine N2 that accepts from the
    oxyanion hole (Gln19 NE2, 3.11 A), not an NH2 donor."""
    s = load("1vsn_nft", monkeypatch=monkeypatch)
    assert s.meta["covalent_links"] == [[["A", 25, "", "CYS", "SG"], ["A", 283, "", "NFT", "C44"]]]
    assert "geometry for C41 C44 N45" in s.meta["ligand_templates"]["NFT:A:283"]
    T = type_structure(s, definition="misigen")
    n45 = row(s, "N45")
    assert T.types[n45] == "N2" and acceptor_rule(T, n45) is not None
    found = bonds(s)
    assert found[("GLN", 19, "NE2", "N45", "protein")] == 3.11
    assert not any(k[3] == "N45" and k[4] == "ligand" for k in found)   # an N2's H is never placed
    # the covalent bond is a neighbour for typing but not a drawn bond (renders move the ligand)
    sg = next(i for i in range(s.n_atoms) if s.name[i] == "SG" and s.resseq[i] == 25)
    assert sg in T.nb[row(s, "C44")]
    assert not any({int(a), int(b)} == {sg, row(s, "C44")} for a, b in s.bonds)


def test_acid_pair_closer_than_contact_shares_a_proton(monkeypatch):
    """R47 (4gql): its phosphonate O3 is 2.56 A from Glu219 OE1. Both typed as anions they would be
    two acceptors and no bond, but two O- cannot approach below the 3.04 A O...O contact: one group
    is protonated and the proton is shared. Reported as an H-bond, donor 'shared'."""
    s = load("4gql_r47", monkeypatch=monkeypatch)
    found = [i for i in find_interactions(s, kinds=("hbond",), definition="misigen") if i.donor == "shared"]
    assert [(i.resname, i.resseq, i.protein_atom, i.ligand_atom) for i in found] == [("GLU", 219, "OE1", "O3")]
    assert found[0].distance == pytest.approx(2.56, abs=0.01)
    assert "shared proton" in found[0].criterion and found[0].identity()[0] == "hbond"


# ------------------------------------------------------------------ composite ligands
@needs_ccd
def test_covalently_linked_het_residues_form_one_ligand(monkeypatch, capsys):
    """GDP + 7MG (1h2t) are joined by the O3B-P bond (LINK): one ligand, whichever half is named;
    both have N1, C2, … so every name gets its residue as prefix, unique in answers."""
    s = load("1h2t_gdp_7mg", "GDP:Z:1151", monkeypatch=monkeypatch)
    assert s.meta["ligand_id"] == "GDP:Z:1151+7MG:Z:1152"
    assert s.meta["ligand_links"] == [[["Z", 1151, "", "GDP", "O3B"], ["Z", 1152, "", "7MG", "P"]]]
    names = s.name[s.ligand].tolist()
    assert len(names) == 52 and len({n.upper() for n in names}) == 52
    assert all(n.startswith(("GDP.", "7MG.")) for n in names)
    assert set(s.resname[s.ligand]) == {"GDP", "7MG"}         # each atom keeps its own residue
    other = load("1h2t_gdp_7mg", "7MG:Z:1152", monkeypatch=monkeypatch)
    assert other.meta["ligand_id"] == "7MG:Z:1152+GDP:Z:1151"
    auto = load("1h2t_gdp_7mg", monkeypatch=monkeypatch)       # unnamed: the composite is the candidate
    assert auto.ligand.sum() == 52
    # the link replaces the template H of O3B: a phosphodiester O, not a hydroxyl donor
    T = type_structure(s, definition="misigen")
    assert T.types[row(s, "GDP.O3B")] == "O3" and len(T.heavy_nb[row(s, "GDP.O3B")]) == 2
    from misigen.pipeline.cli import main
    assert main(["interactions", str(EXCERPTS / "1h2t_gdp_7mg.pdb"), "--ligand", "GDP:Z:1151"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# 1h2t_gdp_7mg: ligand GDP:Z:1151+7MG:Z:1152 (52 atoms")
    assert "7MG.N2" in out and "GDP.O1B" in out     # prefixed names (default definition: chimerax)


def test_single_residue_ligand_keeps_file_names(monkeypatch):
    s = load("3tah_bgo", monkeypatch=monkeypatch)
    assert "N1" in s.name[s.ligand].tolist() and "ligand_atom_names" not in s.meta


# ------------------------------------------------------------------ choosing the ligand
@pytest.mark.slow      # takes long
@needs_ccd
def test_lone_small_molecule_is_the_ligand(monkeypatch):
    """3o1h: trimethylamine N-oxide (5 heavy atoms, below the drug-like minimum) is the only HETATM
    molecule besides waters: it is used, with the CCD's charges (N+, O-), and its O- accepts from
    Trp45 NE1 (the bond the TMAO paper describes)."""
    s = load("3o1h_tmo", monkeypatch=monkeypatch)
    assert s.meta["ligand_id"] == "TMO:B:1" and s.meta["ligand_choice"] == "only small molecule"
    q = dict(zip(s.name[s.ligand].tolist(), s.formal_charge[s.ligand].tolist()))
    assert q["NAC"] == 1 and q["OAE"] == -1
    assert ("TRP", 45, "NE1", "OAE", "protein") in bonds(s)


def test_several_small_molecules_are_refused_with_their_names(tmp_path):
    text = (EXCERPTS / "3o1h_tmo.pdb").read_text().splitlines()
    tmo = [l for l in text if l.startswith("HETATM") and l[17:20] == "TMO"]
    moved = [l[:22] + "   2" + l[26:30] + f"{float(l[30:38]) + 6:8.3f}" + l[38:] for l in tmo]
    path = tmp_path / "two_tmo.pdb"
    path.write_text("\n".join(text[:-1] + moved + ["END"]) + "\n")
    with pytest.raises(InputError, match="several small molecules.*TMO:B:1, TMO:B:2") as err:
        load_structure(discover([path])[0])
    assert "two_tmo.pdb" in str(err.value)
    s = load_structure(discover([path])[0], "TMO:B:2")       # naming one resolves it
    assert s.meta["ligand_id"] == "TMO:B:2"


@pytest.mark.slow      # takes long
def test_named_ligand_is_used_whatever_its_size(monkeypatch):
    """An explicit name wins over the drug-likeness rules: the sulfate of 1bju (excluded by name,
    5 atoms) becomes the ligand when asked for."""
    s = load("1bju_gp6", "SO4:A:901", monkeypatch=monkeypatch)
    assert s.meta["ligand_id"] == "SO4:A:901" and s.ligand.sum() == 5
    with pytest.raises(InputError, match=r"SO4:A:999 not found.*GP6:A:910"):
        load("1bju_gp6", "SO4:A:999", monkeypatch=monkeypatch)


def test_selector_grammar():
    sel = parse_selectors("gdp:Z:1151+7MG:Z:1152")
    assert [(x.resname, x.chain, x.resseq) for x in sel] == [("GDP", "Z", 1151), ("7MG", "Z", 1152)]
    assert [(x.resname, x.chain, x.resseq) for x in parse_selectors("HEM")] == [("HEM", None, None)]
    assert parse_selectors("KNI:B:900")[0].matches(("B", 900, "", "KNI"))
    for bad in ("", "GDP:Z:x", "GDP+", "A:B:C:D", "GDP:Z:1151 +"):
        with pytest.raises(InputError, match="--ligand"):
            parse_selectors(bad) if bad != "GDP:Z:1151 +" else parse_selectors("GDP:Z:1151+ ")


def test_ligands_file_yaml_and_csv(tmp_path):
    y = tmp_path / "ligands.yaml"
    y.write_text("1h2t: GDP:Z:1151\n1bju: 'GP6:A:910+SO4:A:901'\n")
    assert read_ligand_map(y) == {"1h2t": "GDP:Z:1151", "1bju": "GP6:A:910+SO4:A:901"}
    c = tmp_path / "ligands.csv"
    c.write_text("id,ligand\n# comment\n1h2t,GDP:Z:1151\n3o1h, TMO:B:1\n")
    assert read_ligand_map(c) == {"1h2t": "GDP:Z:1151", "3o1h": "TMO:B:1"}
    for name, text, problem in [("a.yaml", "- 1h2t\n", "mapping"), ("b.yaml", "x: [1]\n", "string"),
                                ("c.csv", "x,GDP:Z:one\n", "structure 'x'"),
                                ("d.csv", "x,GDP\nx,GDP\n", "twice"), ("e.csv", "x\n", "2 columns")]:
        p = tmp_path / name
        p.write_text(text)
        with pytest.raises(InputError, match=problem) as err:
            read_ligand_map(p)
        assert name in str(err.value)


def test_generate_takes_ligands_file_and_default(tmp_path, monkeypatch):
    """--ligands names a ligand per structure id, --ligand is the default for the others; the
    manifest records which was used; a name that is not in the file is that structure's failure."""
    from misigen.core.look.style import load_style
    from misigen.core.resources import suite_path
    from misigen.pipeline.generate import run_generate
    from misigen.pipeline.run_config import RunConfig

    inputs = tmp_path / "in"
    inputs.mkdir()
    for name in ("1bju_gp6", "3tah_bgo"):
        shutil.copy(EXCERPTS / f"{name}.pdb", inputs)
    out = tmp_path / "out"
    manifest = run_generate(RunConfig([inputs], out, suite=suite_path("misi_bench"),
                                      style=load_style("misi_bench"), split="test", tasks=["translation"],
                                      render=False, progress=False, ligands={"1bju_gp6": "GP6:A:910"},
                                      ligand="XYZ:A:1"))
    assert manifest["inputs"]["1bju_gp6"]["ligand"] == "GP6:A:910"
    assert manifest["inputs"]["3tah_bgo"]["ligand"] == "XYZ:A:1"
    records = [json.loads(l) for l in (out / "annotations.jsonl").read_text().splitlines()]
    assert {r["structure"] for r in records} == {"1bju_gp6"}
    failures = [json.loads(l) for l in (out / "failures.jsonl").read_text().splitlines()]
    assert [f["structure"] for f in failures] == ["3tah_bgo"] and "XYZ:A:1 not found" in failures[0]["why"]


# ------------------------------------------------------------------ the dictionary
@pytest.mark.slow      # takes long
@needs_ccd
def test_ccd_templates_are_read_once_and_cached():
    ccd.clear_cache()
    got = ccd.components(["GDP", "TMO", "NOT_A_COMPONENT"])
    assert ccd.dictionary_passes() == 1
    assert got["NOT_A_COMPONENT"] is None
    tmo = got["TMO"]
    assert dict(zip(tmo.atoms, tmo.charges))["NAC"] == 1
    gdp = got["GDP"]
    assert gdp.elements[gdp.index("PB")] == "P"
    assert any(o == 2 for *_ij, o, _a in gdp.bonds)              # Kekulé double bonds are there
    ccd.components(["GDP", "TMO"])
    assert ccd.dictionary_passes() == 1                         # cached: no second read
    assert ccd.component("ZN").atoms == ("ZN",)                 # a bond-less component
    assert ccd.dictionary_passes() == 2


@pytest.mark.slow      # takes long
@needs_ccd
def test_ph7_deprotonates_template_acids(monkeypatch):
    """CCD templates are the neutral acids; at pH 7 phosphate OH lose their H (FMN O2P, O3P)."""
    s = load("1aku_fmn", monkeypatch=monkeypatch)
    assert s.meta["ligand_ph7"] == ["O2P: deprotonated (phosphate/phosphonate)",
                                    "O3P: deprotonated (phosphate/phosphonate)"]
    T = type_structure(s, definition="misigen")
    assert {T.types[row(s, n)] for n in ("O1P", "O2P", "O3P")} == {"O3-"}


# ------------------------------------------------------------------ MOL2 atom names
def _mol2_from(mol, path, names, shift=0.0):
    conf = mol.GetConformer()
    lines = ["@<TRIPOS>MOLECULE", "LIG", f"{mol.GetNumAtoms()} {mol.GetNumBonds()} 1", "SMALL",
             "NO_CHARGES", "", "@<TRIPOS>ATOM"]
    for a in mol.GetAtoms():
        p = conf.GetAtomPosition(a.GetIdx())
        t = {"C": "C.ar" if a.GetIsAromatic() else "C.3", "N": "N.ar" if a.GetIsAromatic() else "N.3",
             "O": "O.2", "H": "H"}.get(a.GetSymbol(), a.GetSymbol())
        lines.append(f"{a.GetIdx() + 1} {names[a.GetIdx()]} {p.x + shift:.4f} {p.y:.4f} {p.z:.4f} {t} 1 LIG 0.0")
    lines.append("@<TRIPOS>BOND")
    for k, b in enumerate(mol.GetBonds()):
        order = "ar" if b.GetIsAromatic() else str(int(b.GetBondTypeAsDouble()))
        lines.append(f"{k + 1} {b.GetBeginAtomIdx() + 1} {b.GetEndAtomIdx() + 1} {order}")
    path.write_text("\n".join(lines) + "\n")


def test_mol2_names_replace_generated_sdf_names(tmp_path, examples):
    """PDBbind folders ship SDF and MOL2: chemistry from the SDF, names from the MOL2 (MiSI-Bench's
    answers use them) when every heavy atom sits where the MOL2 has it; the MOL2 here lists the
    atoms in reverse order, so names must follow coordinates, not positions."""
    src = examples / "wagner_brd4"
    ref = load_structure(discover([src])[0])
    mol = ref.ligand_mol
    folder = tmp_path / "brd4m"
    folder.mkdir()
    shutil.copy(src / "wagner_brd4_protein.pdb", folder / "brd4m_protein.pdb")
    shutil.copy(src / "wagner_brd4_ligand.sdf", folder / "brd4m_ligand.sdf")
    names = [f"{a.GetSymbol()}X{a.GetIdx()}" for a in mol.GetAtoms()]
    from rdkit import Chem
    order = list(range(mol.GetNumAtoms()))[::-1]
    reordered = Chem.RenumberAtoms(mol, order)
    _mol2_from(reordered, folder / "brd4m_ligand.mol2", [names[k] for k in order])
    s = load_structure(discover([folder])[0])
    assert s.name[s.ligand].tolist() == names
    assert s.meta["ligand_atom_names"] == "MOL2 brd4m_ligand.mol2" and s.meta["ligand_bond_orders"] == "file"
    assert np.array_equal(s.bonds, ref.bonds)                  # chemistry unchanged
    _mol2_from(mol, folder / "brd4m_ligand.mol2", names, shift=0.5)   # another pose: do not trust it
    s = load_structure(discover([folder])[0])
    assert s.name[s.ligand].tolist() == ref.name[ref.ligand].tolist()
    assert s.meta["ligand_atom_names"].startswith("generated (heavy atom 1")


def test_deposited_rotor_h_of_a_het_ligand_does_not_restrict(hivp):
    """1hvi: the inhibitor's hydroxyl H were placed by refinement (riding H) and point away from
    the catalytic Asp25 of chain B that the paper (Hosur et al. 1994) describes as bound. Rotor H of
    a HETATM ligand are therefore not trusted: the hydroxyl is tested as a rotor without H and the
    Asp25 B bonds (O47/O48, 2.66-2.96 A) are found. Protein and SDF hydrogens are still used."""
    from misigen.core.chemistry.interactions.hydrogens import deposited_rotor, hydrogen_positions
    T = type_structure(hivp, definition="misigen")
    o = next(i for i in range(hivp.n_atoms) if hivp.ligand[i] and hivp.name[i] == "O47")
    assert T.h_nb[o] and deposited_rotor(T, o) and len(hydrogen_positions(T, o)) == 0
    found = {(i.chain, i.resseq, i.protein_atom, i.ligand_atom, i.donor) for i in find_interactions(hivp, definition="misigen")}
    assert ("B", 25, "OD2", "O47", "ligand") in found
