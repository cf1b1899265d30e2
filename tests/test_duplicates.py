"""Byte-identical inputs under two names are reported and never split across train and test
(as two structures they could land in train and test)."""
import json
import shutil

import pytest

from misigen.core.structure.duplicates import duplicate_groups, with_split_keys
from misigen.core.structure.loader import StructureSource
from misigen.core.tasks import load_suite, split_for
from misigen.core.resources import suite_path


def test_groups_are_the_ids_sharing_a_hash():
    assert duplicate_groups({"b": "1", "a": "1", "c": "2", "e": "3", "d": "3"}) == [["a", "b"], ["d", "e"]]
    assert duplicate_groups({"a": "1", "b": "2"}) == []
    sources = [StructureSource(i, f"{i}.pdb") for i in "abc"]
    keyed = with_split_keys(sources, [["a", "c"]])
    assert [s.split_key for s in keyed] == [None, None, "a"]


def _names_in_both_splits(seed: int, fraction: float) -> tuple[str, str]:
    names = [f"copy{k:02d}" for k in range(200)]
    test = next(n for n in names if split_for(n, seed, fraction) == "test")
    train = next(n for n in names if split_for(n, seed, fraction) == "train")
    return test, train


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_byte_identical_inputs_land_in_one_split(tmp_path, examples, cli):
    fraction = load_suite(suite_path("misi_bench")).settings.test_fraction
    a, b = _names_in_both_splits(0, fraction)             # by name alone, one goes to test, one to train
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name in (a, b):
        shutil.copy(examples / "1hvi.pdb", inputs / f"{name}.pdb")
    out = tmp_path / "out"
    got = cli("generate", "--structures", inputs, "--out", out, "--plan-only", "--tasks", "translation",
              "--no-audit", "--no-progress", "--seed", "0")
    assert got.returncode == 0, got.stderr
    records = [json.loads(line) for line in (out / "annotations.jsonl").read_text().splitlines()]
    assert {r["structure"] for r in records} == {a, b}
    splits = {r["structure"]: r["split"] for r in records}
    assert len(set(splits.values())) == 1, splits
    assert set(splits.values()) == {split_for(min(a, b), 0, fraction)}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["duplicate_inputs"] == [sorted([a, b])]
    assert f"byte-identical inputs {' = '.join(sorted([a, b]))}: kept in one split" in got.stderr
