"""Discovery of --structures: recursive folders, .gz, single-file folders, every unused file reported."""
import gzip
import shutil

import numpy as np
import pytest

from misigen.core.errors import InputError
from misigen.core.structure.loader import discover, discover_inputs, load_structure


@pytest.fixture()
def messy_tree(tmp_path, examples):
    """A user's folder: nested PDBbind layouts, a folder holding one PDB, gzipped mmCIF, junk."""
    root = tmp_path / "inputs"
    pdbbind = root / "set_a" / "brd4x"
    pdbbind.mkdir(parents=True)
    shutil.copy(examples / "wagner_brd4" / "wagner_brd4_protein.pdb", pdbbind / "brd4x_protein.pdb")
    shutil.copy(examples / "wagner_brd4" / "wagner_brd4_ligand.sdf", pdbbind / "brd4x_ligand.sdf")
    shutil.copy(examples / "wagner_brd4" / "wagner_brd4_protein.pdb", pdbbind / "brd4x_pocket.pdb")
    (pdbbind / "brd4x_notes.txt").write_text("assay conditions\n")
    single = root / "1abc"
    single.mkdir()
    shutil.copy(examples / "1hvi.pdb", single / "1abc.pdb")
    from Bio.PDB import MMCIFIO, PDBParser
    io = MMCIFIO()
    io.set_structure(PDBParser(QUIET=True).get_structure("x", str(examples / "1hvi.pdb")))
    cif = tmp_path / "2xyz.cif"
    io.save(str(cif))
    deep = root / "set_b" / "deeper"
    deep.mkdir(parents=True)
    (deep / "2xyz.cif.gz").write_bytes(gzip.compress(cif.read_bytes()))
    (root / "README.md").write_text("my complexes\n")
    (root / "orphan_ligand.sdf").write_text((examples / "wagner_brd4" / "wagner_brd4_ligand.sdf").read_text())
    (root / ".DS_Store").write_bytes(b"\x00")
    return root


def test_recursive_discovery_finds_every_layout(messy_tree):
    found = discover_inputs([messy_tree])
    by_id = {s.id: s for s in found.sources}
    assert sorted(by_id) == ["1abc", "2xyz", "brd4x"]
    assert by_id["brd4x"].protein.name == "brd4x_protein.pdb" and by_id["brd4x"].ligand.name == "brd4x_ligand.sdf"
    assert by_id["1abc"].protein.name == "1abc.pdb" and by_id["1abc"].ligand is None
    assert by_id["2xyz"].protein.name == "2xyz.cif.gz"


def test_every_unused_file_is_reported_with_its_reason(messy_tree):
    found = discover_inputs([messy_tree])
    unused = {u.path.name: u for u in found.unused}
    assert set(unused) == {"brd4x_notes.txt", "README.md", "orphan_ligand.sdf"}     # hidden files skipped
    assert unused["orphan_ligand.sdf"].structure_like and "without a protein" in unused["orphan_ligand.sdf"].why
    assert not unused["README.md"].structure_like and "not a structure file" in unused["README.md"].why
    assert [p.name for p, _why in found.alternatives] == ["brd4x_pocket.pdb"]


def test_gzipped_mmcif_loads_like_the_plain_file(messy_tree, examples):
    gz = load_structure(next(s for s in discover([messy_tree]) if s.id == "2xyz"))
    plain = load_structure(discover([examples / "1hvi.pdb"])[0])
    assert gz.n_atoms == plain.n_atoms and np.allclose(gz.coords, plain.coords, atol=1e-3)
    assert list(gz.name[gz.ligand]) == list(plain.name[plain.ligand])


def test_gzipped_sdf_ligand(tmp_path, examples):
    folder = tmp_path / "brd4z"
    folder.mkdir()
    shutil.copy(examples / "wagner_brd4" / "wagner_brd4_protein.pdb", folder / "brd4z_protein.pdb")
    (folder / "brd4z_ligand.sdf.gz").write_bytes(
        gzip.compress((examples / "wagner_brd4" / "wagner_brd4_ligand.sdf").read_bytes()))
    s = load_structure(discover([folder])[0])
    ref = load_structure(discover([examples / "wagner_brd4"])[0])
    assert np.allclose(s.coords[s.ligand], ref.coords[ref.ligand])


def test_broken_gzip_is_one_clear_error(tmp_path):
    bad = tmp_path / "3bad.pdb.gz"
    bad.write_bytes(b"\x1f\x8b\x08 not really gzip")
    with pytest.raises(InputError, match="gzip") as err:
        load_structure(discover([bad])[0])
    assert "3bad.pdb.gz" in str(err.value)


def test_same_file_twice_counts_once_and_clashing_ids_are_an_error(tmp_path, examples):
    twice = discover([examples, examples / "1hvi.pdb"])
    assert [s.id for s in twice].count("1hvi") == 1
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(examples / "1hvi.pdb", other / "1hvi.pdb")
    with pytest.raises(InputError, match="duplicate structure id"):
        discover([examples, other])


def test_output_folder_inside_the_inputs_is_not_searched(tmp_path, examples):
    inputs = tmp_path / "inputs"
    shutil.copytree(examples / "wagner_brd4", inputs / "wagner_brd4")
    out = inputs / "dataset"
    (out / "images").mkdir(parents=True)
    (out / "images" / "x.png").write_bytes(b"png")
    found = discover_inputs([inputs], exclude=[out])
    assert [s.id for s in found.sources] == ["wagner_brd4"] and found.unused == []
