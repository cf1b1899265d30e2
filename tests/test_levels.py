"""Calibrated difficulty levels (core/quality/levels.py): ranks, scores, cut points, strata, the committed
tables of the task folders, and the ``calibrate-levels`` command."""
from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from misigen.core.quality import levels as L
from misigen.core.data_files import load_table
from misigen.core.quality.difficulty import grade
from misigen.core.tasks.catalog import BUILTIN_MODULES

from conftest import ROOT

BUNDLED = [t for m in BUILTIN_MODULES for t in m.TASK_TYPES]


# ------------------------------------------------------------------ ranks and scores
def test_rank_interpolates_and_takes_the_middle_of_ties():
    q = [0, 0, 0, 1, 2]                       # quantiles at 0, 25, 50, 75, 100 %
    assert L.rank(q, 0) == pytest.approx(0.25)          # the middle of the run 0 … 50 %
    assert L.rank(q, 1.5) == pytest.approx(0.875)       # halfway between 75 % and 100 %
    assert L.rank(q, -1) == 0.0 and L.rank(q, 9) == 1.0
    assert L.rank([1, 2, 3], 2) == pytest.approx(0.5)


def _records(n, rng, strata=("a", "b")):
    """Synthetic records: gap (lower harder) shifted by stratum, so pooled ranks would skew it."""
    out = []
    for k in range(n):
        s = strata[k % len(strata)]
        gap = rng.normal(10.0 if s == "a" else 20.0, 3.0)
        out.append({"program": {"balance_class": {"cls": s},
                                "difficulty": {"gap": round(float(gap), 3), "crowd": int(rng.integers(0, 50))}}})
    return out


def test_calibration_gives_thirds_and_keeps_each_stratum_balanced(monkeypatch):
    monkeypatch.setattr(L, "harder_of", {"gap": "lower", "crowd": "higher"}.get)
    rng = np.random.default_rng(3)
    recs = _records(600, rng)
    table = L.calibrate(recs, ("gap", "crowd"), ("cls",))
    assert set(table["quantiles"]) == {"*", "cls=a", "cls=b"}
    assert table["features"] == {"gap": "lower", "crowd": "higher"}
    shares = L.level_shares(recs, table)
    assert all(abs(v - 1 / 3) < 0.02 for v in shares.values()), shares
    for lv in L.LEVELS:                       # each level holds both classes equally (ranked within them)
        got = Counter(r["program"]["balance_class"]["cls"] for r in recs
                      if L.level_of_score(L.score(r["program"]["difficulty"], r["program"], table), table) == lv)
        assert abs(got["a"] - got["b"]) <= 0.15 * (got["a"] + got["b"]), (lv, got)
    pooled = L.calibrate(recs, ("gap", "crowd"), ())   # without strata the hard level is mostly class a
    hard = Counter(r["program"]["balance_class"]["cls"] for r in recs
                   if L.level_of_score(L.score(r["program"]["difficulty"], r["program"], pooled), pooled) == "hard")
    assert hard["a"] > 2 * hard["b"]


def test_score_direction_missing_features_and_unknown_stratum(monkeypatch):
    monkeypatch.setattr(L, "harder_of", {"gap": "lower", "crowd": "higher"}.get)
    table = L.calibrate(_records(90, np.random.default_rng(1)), ("gap", "crowd"), ("cls",))
    easy = {"gap": 40.0, "crowd": 0}
    hard = {"gap": 1.0, "crowd": 49}
    prog = {"balance_class": {"cls": "a"}}
    assert L.score(easy, prog, table) < 0.05 and L.score(hard, prog, table) > 0.95
    assert L.score({"gap": 1.0, "crowd": None}, prog, table) == 1.0        # a missing feature is left out
    assert L.score({}, prog, table) is None and L.level_of_score(None, table) == "medium"
    other = {"balance_class": {"cls": "z"}}                                # not in the reference: pooled ranks
    assert L.score(hard, other, table) > 0.95


def test_tables_round_trip_through_their_yaml(tmp_path, monkeypatch):
    import yaml

    monkeypatch.setattr(L, "harder_of", {"gap": "lower", "crowd": "higher"}.get)
    table = L.calibrate(_records(60, np.random.default_rng(2)), ("gap", "crowd"), ("cls",))
    text = L.dump_table(table)
    assert text.startswith("# This task's calibrated difficulty levels") and "&id" not in text
    back = yaml.safe_load(text)
    assert back == {k: table[k] for k in back}
    path = tmp_path / "levels.yaml"
    path.write_text(text)
    assert L.load_level_table(path)["cuts"] == table["cuts"]


# ------------------------------------------------------------------ the committed tables
@pytest.mark.parametrize("tt", BUNDLED, ids=lambda t: t.name)
def test_each_task_has_a_table_grading_exactly_its_features(tt):
    """Adding a graded feature to a task means recalibrating it (docs/TASKS.md, "Difficulty levels")."""
    assert tt.level_table is not None and tt.level_table.parent.name == tt.name
    table = L.load_level_table(tt.level_table)
    assert table is not None, f"{tt.level_table} missing: run calibrate-levels"
    directions = load_table("difficulty.yaml")["features"]
    assert table["features"] == {f: directions[f]["harder"] for f in tt.level_features}
    assert table["strata"] == list(tt.level_strata)
    assert 0.0 < table["cuts"]["medium"] < table["cuts"]["hard"] < 1.0
    assert "*" in table["quantiles"]
    for dist in table["quantiles"].values():
        for f, q in dist.items():
            assert f in tt.level_features and len(q) == L.POINTS and q == sorted(q)
    ref = table["reference"]
    assert ref["suite"] == "misi_bench" and ref["splits"] == ["test", "train"] and ref["resolution"] == [512, 512]
    assert ref["scored"] == ref["questions"] > 0


def test_grade_uses_the_table_and_falls_back_to_thresholds():
    tt = next(t for t in BUNDLED if t.name == "translation")
    table = L.load_level_table(tt.level_table)
    lo = {"option_gap_px": 1e6, "atoms_shown": 0}
    hi = {"option_gap_px": 0.0, "atoms_shown": 1e6}
    prog = {"balance_class": {"axis": "x", "sign": "+"}}
    assert grade(lo, prog, tt.level_features, tt.level_table) == (0.0, "easy")
    assert grade(hi, prog, tt.level_features, tt.level_table) == (1.0, "hard")
    assert table["cuts"]["medium"] > 0
    # no table (a plugin task): the fixed thresholds of core/data/difficulty.yaml, no score
    assert grade({"option_gap_px": 2.0}, prog, ("option_gap_px",), None) == (None, "hard")
    assert grade({"option_gap_px": 2.0}, prog, ("option_gap_px",), ROOT / "no_such_levels.yaml")[0] is None


# ------------------------------------------------------------------ the reference
@pytest.fixture(scope="module")
def reference():
    """The reference's graded features (tests/data/levels_reference.json; ``levels_reference.py``
    plans the reference again and says whether this fixture and the tables are current)."""
    import sys
    sys.path.insert(0, str(ROOT / "tests" / "data"))
    import levels_reference
    return levels_reference.records_of(json.loads(levels_reference.FIXTURE.read_text()))


def test_calibration_reproduces_the_committed_tables_from_the_reference(reference):
    assert set(reference) == {t.name for t in BUNDLED}
    for tt in BUNDLED:
        table = L.calibrate(reference[tt.name], tt.level_features, tt.level_strata)
        committed = L.load_level_table(tt.level_table)
        for key in ("features", "strata", "cuts", "quantiles"):
            assert committed[key] == table[key], (tt.name, key)
        assert committed["reference"]["questions"] == len(reference[tt.name])


@pytest.mark.parametrize("split", ["test", "train"])
def test_each_level_holds_a_quarter_to_45_percent_of_every_task_on_the_reference(reference, split):
    for tt in BUNDLED:
        recs = [r for r in reference[tt.name] if r["split"] == split]
        shares = L.level_shares(recs, L.load_level_table(tt.level_table))
        assert all(0.25 <= v <= 0.45 for v in shares.values()), (tt.name, split, len(recs), shares)


# ------------------------------------------------------------------ calibrate-levels on a plan-only dataset
@pytest.mark.slow
def test_calibrate_levels_command_reproduces_in_process_tables(cli, examples, tmp_path):
    """The command, run on a dataset and on the structures it was planned from, writes the tables that
    ``levels.calibrate`` gives for those records; the written folder has the task folders' layout."""
    from misigen.pipeline.commands.calibrate_levels import tables_of

    data = tmp_path / "ds"
    res = cli("generate", "--structures", examples, "--out", data, "--plan-only", "--split", "test",
              "--resolution", "512", "512", "--no-audit", "--no-validate", "--no-progress",
              "--tasks", "translation,residue_ligand_interaction")
    assert res.returncode in (0, 3), res.stderr[-2000:]
    out_file = tmp_path / "tables.yaml"
    res = cli("calibrate-levels", "--dataset", data, "--out", out_file)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "translation" in res.stdout and "easy / medium / hard" in res.stdout
    records = [json.loads(line) for line in (data / "annotations.jsonl").read_text().splitlines()]
    assert out_file.read_text() == L.dump_tables(tables_of(records, {"datasets": ["ds"]}))
    folder = tmp_path / "tasks"
    res = cli("calibrate-levels", "--structures", examples, "--splits", "test", "--out", folder,
              "--tasks", "translation,residue_ligand_interaction")
    assert res.returncode == 0, res.stderr[-2000:]
    planned = {p.parent.name: L.load_level_table(p) for p in folder.glob("*/levels.yaml")}
    assert set(planned) == {"translation", "residue_ligand_interaction"}
    for name, table in tables_of(records, {}).items():
        assert planned[name]["quantiles"] == table["quantiles"] and planned[name]["cuts"] == table["cuts"]
        assert planned[name]["reference"]["structures"] == sorted({r["structure"] for r in records})
