"""Loading real structures: ligand choice, altlocs, pocket, bonds, and bad input."""
import numpy as np
import pytest

from misigen.core.errors import InputError
from misigen.core.structure.loader import (discover, load_structure, pocket_residue_mask, safe_id,
                                 shown_mask)

NO_LIGAND = {"1hwu", "4day", "1rmd", "1vfy", "2pvb"}   # only waters / ions / caps as HETATM


def all_sources(complexes):
    return discover([complexes / "paired", complexes / "pdb"])


@pytest.mark.slow      # takes long
def test_every_shared_complex_loads_or_fails_clearly(complexes):
    loaded, failed = {}, {}
    for src in all_sources(complexes):
        try:
            loaded[src.id] = load_structure(src)
        except InputError as exc:
            failed[src.id] = str(exc)
    assert set(failed) == NO_LIGAND
    for sid, msg in failed.items():
        assert f"{sid}.pdb" in msg and "no drug-like ligand" in msg
    assert len(loaded) == 18 + 10
    for s in loaded.values():
        assert s.ligand.sum() >= 6 and (~s.ligand).sum() > 500


def test_pdbbind_layout_uses_folder_name_and_sdf(complexes):
    src = discover([complexes / "paired" / "cdk2"])[0]
    assert src.id == "cdk2" and src.ligand.suffix == ".sdf"
    s = load_structure(src)
    # SDF bond orders come through: the ligand has aromatic or double bonds.
    lig_bonds = s.ligand[s.bonds[:, 0]] & s.ligand[s.bonds[:, 1]]
    assert (s.bond_order[lig_bonds] > 1).any()
    assert s.meta["ligand_bond_orders"] == "file"


@pytest.mark.parametrize("pdb, expected", [("1hvi", "A77"), ("1hpx", "KNI"), ("4dst", "GCP"),
                                           ("3ems", "ARG"), ("2q8q", "HEM"), ("3shy", "5FO")])
def test_drug_like_ligand_is_picked(complexes, pdb, expected):
    s = load_structure(discover([complexes / "pdb" / f"{pdb}.pdb"])[0])
    assert set(s.resname[s.ligand]) == {expected}
    # Exactly one residue (one copy), never water or ions.
    assert len({(c, n) for c, n in zip(s.chain[s.ligand], s.resseq[s.ligand])}) == 1


@pytest.mark.slow      # takes long
def test_named_ligand_selector(complexes):
    src = discover([complexes / "pdb" / "4dst.pdb"])[0]
    s = load_structure(src, ligand="9LI")
    assert set(s.resname[s.ligand]) == {"9LI"}
    with pytest.raises(InputError, match="XYZ"):
        load_structure(src, ligand="XYZ:A:1")


def test_one_altloc_kept_once(complexes):
    """One conformer per residue, the reference's (ChimeraX) choice: highest mean occupancy.
    4gql's Met105 has A at 0.45 and B at 0.55, so B's atoms are kept and A's are not."""
    s = load_structure(discover([complexes / "pdb" / "4gql.pdb"])[0])
    names = s.name[s.ligand].tolist()
    assert len(names) == len(set(names))                 # no atom twice (A and B)
    text = (complexes / "pdb" / "4gql.pdb").read_text().splitlines()

    def met_n(alt):
        line = next(l for l in text if l.startswith("ATOM") and l[12:16] == " N  " and l[16] == alt
                    and l[17:26] == "MET A 105")
        xyz = np.array([float(line[30:38]), float(line[38:46]), float(line[46:54])])
        return np.min(np.linalg.norm(s.coords - xyz, axis=1))
    assert met_n("B") < 1e-3 and met_n("A") > 1.0
    keys = list(zip(s.chain, s.resseq, s.icode, s.name, s.ligand))
    assert len(keys) == len(set(keys))


def test_pocket_is_exactly_the_10A_residues(brd4):
    s = brd4
    mask = pocket_residue_mask(s, 10.0)
    heavy = ~s.is_hydrogen
    lig = s.coords[s.ligand & heavy]
    dmin = np.linalg.norm(s.coords[:, None] - lig[None], axis=-1).min(axis=1)
    res = s.residue_index()
    for r in np.unique(res[~s.ligand & ~s.is_water]):
        rows = (res == r) & heavy
        within = (dmin[rows] <= 10.0).any()
        assert mask[res == r].all() == within and mask[res == r].any() == within


@pytest.mark.slow      # takes long
def test_shown_atoms_have_sane_bonds(complexes):
    for src in all_sources(complexes):
        if src.id in NO_LIGAND:
            continue
        s = load_structure(src)
        shown = s.subset(shown_mask(s))
        assert not shown.is_hydrogen.any() and not shown.is_water.any()
        length = np.linalg.norm(shown.coords[shown.bonds[:, 0]] - shown.coords[shown.bonds[:, 1]], axis=1)
        assert length.max() < 2.7, src.id            # no spurious long bonds
        assert length.min() > 0.9, src.id
        degree = np.bincount(shown.bonds.ravel(), minlength=shown.n_atoms)
        lonely = degree == 0
        # Only ions/metals may stand alone.
        assert all(len(shown.resname[i]) <= 2 or shown.hetero[i] for i in np.nonzero(lonely)[0]), src.id
        assert degree.max() <= 6, src.id


def test_peptide_and_disulfide_links(complexes):
    s = load_structure(discover([complexes / "paired" / "thrombin_core"])[0])
    names = s.name
    pairs = {(names[i], names[j]) for i, j in s.bonds}
    assert ("C", "N") in pairs or ("N", "C") in pairs
    sg = [tuple(sorted((names[i], names[j]))) for i, j in s.bonds]
    assert sg.count(("SG", "SG")) >= 3                    # thrombin has several disulfides


def test_mmcif_equals_pdb(tmp_path, complexes):
    from Bio.PDB import MMCIFIO, PDBParser
    pdb = complexes / "pdb" / "1hvi.pdb"
    io = MMCIFIO()
    io.set_structure(PDBParser(QUIET=True).get_structure("x", str(pdb)))
    cif = tmp_path / "1hvi.cif"
    io.save(str(cif))
    a = load_structure(discover([pdb])[0])
    b = load_structure(discover([cif])[0])
    assert a.n_atoms == b.n_atoms and np.allclose(a.coords, b.coords, atol=1e-3)
    assert list(a.name[a.ligand]) == list(b.name[b.ligand])


def _write_mol2(mol, path):
    conf = mol.GetConformer()
    lines = ["@<TRIPOS>MOLECULE", "LIG", f"{mol.GetNumAtoms()} {mol.GetNumBonds()} 1", "SMALL", "NO_CHARGES", "",
             "@<TRIPOS>ATOM"]
    types = {"C": "C.3", "N": "N.3", "O": "O.3", "S": "S.3", "H": "H", "F": "F", "Cl": "Cl"}
    for a in mol.GetAtoms():
        p = conf.GetAtomPosition(a.GetIdx())
        t = types.get(a.GetSymbol(), a.GetSymbol())
        if a.GetIsAromatic():
            t = {"C": "C.ar", "N": "N.ar"}.get(a.GetSymbol(), t)
        elif a.GetHybridization().name == "SP2":
            t = {"C": "C.2", "N": "N.2", "O": "O.2"}.get(a.GetSymbol(), t)
        lines.append(f"{a.GetIdx()+1} {a.GetSymbol()}{a.GetIdx()+1} {p.x:.4f} {p.y:.4f} {p.z:.4f} {t} 1 LIG 0.0")
    lines.append("@<TRIPOS>BOND")
    for k, b in enumerate(mol.GetBonds()):
        order = "ar" if b.GetIsAromatic() else str(int(b.GetBondTypeAsDouble()))
        lines.append(f"{k+1} {b.GetBeginAtomIdx()+1} {b.GetEndAtomIdx()+1} {order}")
    path.write_text("\n".join(lines) + "\n")


def test_mol2_ligand_keeps_atom_names(tmp_path, examples):
    import shutil
    src_dir = examples / "wagner_brd4"
    folder = tmp_path / "brd4x"
    folder.mkdir()
    shutil.copy(src_dir / "wagner_brd4_protein.pdb", folder / "brd4x_protein.pdb")
    ref = load_structure(discover([src_dir])[0])
    _write_mol2(ref.ligand_mol, folder / "brd4x_ligand.mol2")
    s = load_structure(discover([folder])[0])
    assert s.id == "brd4x"
    assert s.ligand.sum() == ref.ligand.sum()
    assert np.allclose(s.coords[s.ligand], ref.coords[ref.ligand], atol=1e-3)
    assert s.name[s.ligand][0] == f"{s.element[s.ligand][0].title()}1"


@pytest.mark.parametrize("content, problem", [
    (b"", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00binary", "binary"),
    (b"HEADER    nothing here\nEND\n", "no ATOM or HETATM"),
    (b"ATOM      1  N   ALA A   1   99999999.0 1.000   2.000  1.00  0.00           N\n"
     b"ATOM      2  CA  ALA A   1       1.000   1.0", "cannot parse|absurd"),
])
def test_bad_protein_files_raise_one_clear_error(tmp_path, content, problem):
    path = tmp_path / "bad.pdb"
    path.write_bytes(content)
    with pytest.raises(InputError, match=problem) as err:
        load_structure(discover([path])[0])
    assert str(path) in str(err.value)


def test_truncated_file_reports_file(tmp_path, complexes):
    text = (complexes / "pdb" / "1hvi.pdb").read_bytes()
    path = tmp_path / "trunc.pdb"
    path.write_bytes(text[: len(text) // 3] + b"ATOM   9999  CA  ALA A 999      12.")
    with pytest.raises(InputError) as err:
        load_structure(discover([path])[0])
    assert "trunc.pdb" in str(err.value)


def test_absurd_ligand_coordinates(tmp_path, examples):
    import shutil
    folder = tmp_path / "far"
    folder.mkdir()
    shutil.copy(examples / "wagner_brd4" / "wagner_brd4_protein.pdb", folder / "far_protein.pdb")
    sdf = (examples / "wagner_brd4" / "wagner_brd4_ligand.sdf").read_text().splitlines()
    counts = int(sdf[3][:3])
    for k in range(4, 4 + counts):
        sdf[k] = f"{1e6:10.4f}" + sdf[k][10:]
    (folder / "far_ligand.sdf").write_text("\n".join(sdf) + "\n")
    with pytest.raises(InputError, match="far_ligand.sdf"):
        load_structure(discover([folder])[0])


def test_garbage_sdf(tmp_path, examples):
    import shutil
    folder = tmp_path / "junk"
    folder.mkdir()
    shutil.copy(examples / "wagner_brd4" / "wagner_brd4_protein.pdb", folder / "junk_protein.pdb")
    (folder / "junk_ligand.sdf").write_text("this is not\na molecule\n$$$$\n")
    with pytest.raises(InputError, match="junk_ligand.sdf"):
        load_structure(discover([folder])[0])


def test_ids_are_safe_file_names():
    assert safe_id("../../etc/passwd") == "etc_passwd"
    assert "/" not in safe_id("a/b\\c") and not safe_id(".hidden").startswith(".")
