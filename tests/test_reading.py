"""Which model and alternate locations are read are options, stated in the manifest, not choices
taken silently."""
import numpy as np
import pytest

from misigen.core.errors import InputError
from misigen.core.structure.loader import StructureSource, discover, load_structure
from misigen.core.structure.readers import ReadOptions


def _two_models(src, dst, shift=5.0):
    """An NMR-like file: the structure as MODEL 1, and again shifted by ``shift`` Å in x as MODEL 2."""
    lines = [l for l in src.read_text().splitlines() if l.startswith(("ATOM", "HETATM", "TER"))]
    moved = [l[:30] + f"{float(l[30:38]) + shift:8.3f}" + l[38:] if l.startswith(("ATOM", "HETATM")) else l
             for l in lines]
    dst.write_text("\n".join(["MODEL        1", *lines, "ENDMDL", "MODEL        2", *moved, "ENDMDL", "END"]) + "\n")
    return dst


def test_model_is_an_option(tmp_path, examples):
    path = _two_models(examples / "1hvi.pdb", tmp_path / "nmr.pdb")
    first = load_structure(StructureSource("nmr", path))
    second = load_structure(StructureSource("nmr", path, reading=ReadOptions(model=2)))
    assert np.allclose(second.coords[:, 0] - first.coords[:, 0], 5.0, atol=1e-3)
    assert np.allclose(second.coords[:, 1:], first.coords[:, 1:])
    assert first.meta["reading"] == {"models": 2, "model": 1, "altloc": "occupancy", "residues_with_altlocs": 0}
    assert second.meta["reading"]["model"] == 2
    with pytest.raises(InputError) as exc:
        load_structure(StructureSource("nmr", path, reading=ReadOptions(model=3)))
    assert "nmr.pdb" in str(exc.value) and "2 model(s)" in str(exc.value)


@pytest.mark.slow      # takes long
def test_altloc_is_an_option(complexes):
    """4gql's Met105 has A at occupancy 0.45 and B at 0.55."""
    path = complexes / "pdb" / "4gql.pdb"
    text = path.read_text().splitlines()

    def met_n(s, alt):
        line = next(l for l in text if l.startswith("ATOM") and l[12:16] == " N  " and l[16] == alt
                    and l[17:26] == "MET A 105")
        xyz = np.array([float(line[30:38]), float(line[38:46]), float(line[46:54])])
        return np.min(np.linalg.norm(s.coords - xyz, axis=1))

    src = discover([path])[0]
    kept = {}
    for rule in ("occupancy", "first", "A", "B"):
        s = load_structure(StructureSource(src.id, src.protein, reading=ReadOptions(altloc=rule)))
        kept[rule] = "A" if met_n(s, "A") < 1e-3 else "B" if met_n(s, "B") < 1e-3 else "?"
        assert s.meta["reading"]["altloc"] == rule and s.meta["reading"]["residues_with_altlocs"] >= 1
        keys = list(zip(s.chain, s.resseq, s.icode, s.name, s.ligand))
        assert len(keys) == len(set(keys))                   # still one conformer per atom
    assert kept == {"occupancy": "B", "first": "A", "A": "A", "B": "B"}


@pytest.mark.parametrize("bad", [{"model": 0}, {"model": "2"}, {"altloc": "AB"}, {"altloc": ""}, {"altloc": "best"}])
def test_bad_read_options(bad):
    with pytest.raises(ValueError):
        ReadOptions(**bad)


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_model_and_altloc_options_are_in_the_manifest_and_the_run(cli, examples, tmp_path):
    """--model and --altloc are recorded in the manifest, per run and per input, and are part of the run."""
    import json
    from test_reading import _two_models
    inputs = tmp_path / "in"
    inputs.mkdir()
    _two_models(examples / "1hvi.pdb", inputs / "nmr.pdb")
    out = tmp_path / "o"
    args = ["generate", "--structures", inputs, "--out", out, "--tasks", "rotation", "--split", "test",
            "--plan-only", "--resolution", "128", "128", "--no-progress", "--no-audit"]
    res = cli(*args, "--model", "2", "--altloc", "first")
    assert res.returncode == 0, res.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["reading"] == {"model": 2, "altloc": "first"}
    assert manifest["inputs"]["nmr"]["reading"] == {"model": 2, "altloc": "first"}
    # the model is part of the run: resuming with another is refused
    res = cli(*args)
    assert res.returncode == 2 and "different inputs" in res.stderr
    # a model the file lacks: recorded for that structure, one line naming the file
    res = cli(*[a if a != out else tmp_path / "o3" for a in args], "--model", "3")
    assert res.returncode == 1 and "nmr.pdb" in res.stderr and "2 model(s)" in res.stderr
    assert cli(*args[:4], "--altloc", "AB").returncode == 2
