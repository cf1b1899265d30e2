"""Difficulty levels fitted on readers (core/quality/levels.py): the model's prediction and bands, the
fit's folds, selection and concordance, the committed models of the task folders (refitted from the
committed reader answers), and the ``calibrate-levels`` command."""
from __future__ import annotations

import json

import numpy as np
import pytest

from misigen.core.quality import levels as L
from misigen.core.quality.difficulty import grade
from misigen.core.tasks.catalog import BUILTIN_MODULES

from conftest import ROOT

BUNDLED = [t for m in BUILTIN_MODULES for t in m.TASK_TYPES]
ANSWERS = ROOT / "benchmarks" / "data" / "reader_answers.jsonl"


def _answers(n, rng, slope=120.0):
    """Synthetic by-eye answers: right more often the larger ``gap``; ``noise`` says nothing."""
    rows = []
    for k in range(n):
        gap, noise = rng.uniform(0.0, 0.03), rng.uniform(0.0, 1.0)
        p = 1.0 / (1.0 + np.exp(-(slope * gap - 1.5)))
        rows.append({"structure": f"s{k % 40:02d}", "reader": f"r{k % 6}", "id": f"q{k:03d}", "suite": "x",
                     "composite": float(rng.random() < p), "features": {"gap": round(gap, 5), "noise": round(noise, 4)}})
    return rows


# ------------------------------------------------------------------ the model
def test_prediction_is_the_logistic_of_the_standardised_features_and_missing_takes_the_centre():
    model = {"intercept": 0.5, "features": {"gap": {"centre": 0.01, "scale": 0.005, "coef": 2.0}}}
    assert L.predict({"gap": 0.01}, model) == pytest.approx(1 / (1 + np.exp(-0.5)))
    assert L.predict({"gap": 0.015}, model) == pytest.approx(1 / (1 + np.exp(-2.5)))
    assert L.predict({}, model) == L.predict({"gap": None}, model) == L.predict({"gap": 0.01}, model)


def test_bands():
    assert L.level_of_prediction(0.85) == "easy" and L.level_of_prediction(0.849) == "medium"
    assert L.level_of_prediction(0.55) == "hard" and L.level_of_prediction(0.56) == "medium"
    assert L.level_of_prediction(0.7, {"easy": 0.6, "hard": 0.2}) == "easy"
    assert L.level_of_prediction(None) == "medium"


def test_folds_keep_each_complex_in_one_fold_and_balance_them():
    groups = [f"s{k % 13}" for k in range(100)]
    fold = L.folds(groups, 5)
    assert len(set(fold)) == 5
    for g in set(groups):
        assert len({f for f, h in zip(fold, groups) if h == g}) == 1
    sizes = [fold.count(f) for f in range(5)]
    assert max(sizes) - min(sizes) <= 8


def test_concordance_is_the_auc_for_right_and_wrong_and_half_for_ties():
    assert L.concordance([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9]) == 1.0
    assert L.concordance([0, 0, 1, 1], [0.9, 0.8, 0.2, 0.1]) == 0.0
    assert L.concordance([0, 1], [0.5, 0.5]) == 0.5
    assert L.concordance([1, 1], [0.2, 0.3]) is None
    assert L.concordance([0.0, 0.5, 1.0], [0.1, 0.2, 0.3]) == 1.0       # graded scores


def test_fit_keeps_the_feature_that_predicts_drops_noise_and_separates_held_out_levels():
    rows = _answers(240, np.random.default_rng(0))
    model, pred = L.calibrate(rows, ["gap", "noise"])
    assert list(model["features"]) == ["gap"] and model["features"]["gap"]["coef"] > 0
    held = model["fit"]["heldout"]
    assert held["concordance"] > 0.7 and held["folds"] == 5
    by = held["by_level"]
    assert by["easy"]["measured"] - by["hard"]["measured"] > 0.25
    assert model["fit"]["answers"] == 240 and model["fit"]["complexes"] == 40 and len(pred) == 240


def test_fit_of_pure_noise_keeps_the_intercept_alone():
    rng = np.random.default_rng(5)
    rows = _answers(200, rng, slope=0.0)
    model, _ = L.calibrate(rows, ["gap", "noise"])
    assert model["features"] == {}
    p = L.predict({"gap": 0.0}, model)
    assert p == pytest.approx(np.mean([r["composite"] for r in rows]), abs=0.01)
    assert len(model["fit"]["levels"]) == 1


def test_models_round_trip_through_their_yaml(tmp_path):
    import yaml

    model, _ = L.calibrate(_answers(120, np.random.default_rng(2)), ["gap", "noise"])
    text = L.dump_table(model)
    assert text.startswith("# This task's difficulty levels") and "&id" not in text
    path = tmp_path / "levels.yaml"
    path.write_text(text)
    back = L.load_level_table(path)
    assert back == yaml.safe_load(text) and back["intercept"] == model["intercept"]


def test_grade_predicts_with_the_model_and_falls_back_to_thresholds():
    tt = next(t for t in BUNDLED if t.name == "rotation")
    model = L.load_level_table(tt.level_table)
    p, level = grade({"option_gap": 0.01}, tt.level_features, tt.level_table)
    assert p == round(L.predict({"option_gap": 0.01}, model), 3) and level == L.level_of_prediction(p, model["bands"])
    # no model (a plugin task): the fixed thresholds of core/data/difficulty.yaml, no prediction
    assert grade({"option_gap_px": 2.0}, ("option_gap_px",), None) == (None, "hard")
    assert grade({"option_gap_px": 2.0}, ("option_gap_px",), ROOT / "no_such_levels.yaml")[0] is None


# ------------------------------------------------------------------ the committed models and answers
def _rows():
    return [json.loads(line) for line in ANSWERS.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("tt", BUNDLED, ids=lambda t: t.name)
def test_each_task_has_a_model_using_only_its_candidate_features(tt):
    assert tt.level_table is not None and tt.level_table.parent.name == tt.name
    model = L.load_level_table(tt.level_table)
    assert model is not None, f"{tt.level_table} missing: run calibrate-levels --answers {ANSWERS}"
    assert set(model["features"]) <= set(tt.level_features)
    assert model["bands"] == L.BANDS and model["fit"]["answers"] > 0
    assert set(model["fit"]["candidates"]) <= set(tt.level_features)
    assert 0.0 <= model["fit"]["heldout"]["concordance"] <= 1.0


def test_the_study_has_enough_answers_of_both_kinds_one_question_per_complex_per_reader():
    rows = _rows()
    eye = [r for r in rows if r["kind"] == "eye"]
    careful = [r for r in rows if r["kind"] == "careful"]
    assert len(eye) >= 600 and len({r["reader"] for r in eye}) >= 12 and len(careful) >= 150
    assert {r["task"] for r in eye} == {t.name for t in BUNDLED}
    assert {r["suite"] for r in eye} >= {"misi_bench", "misi_hard"}
    seen = set()
    for r in rows:
        assert (r["reader"], r["structure"]) not in seen, r
        seen.add((r["reader"], r["structure"]))
        assert 0.0 <= r["composite"] <= 1.0 and r["exact"] in (0, 1)


@pytest.mark.slow
def test_calibrate_levels_reproduces_the_committed_models_from_the_committed_answers(cli, tmp_path):
    out = tmp_path / "models.yaml"
    res = cli("calibrate-levels", "--answers", ANSWERS, "--out", out)
    assert res.returncode == 0, res.stderr[-2000:]
    import yaml
    got = yaml.safe_load(out.read_text())
    assert set(got) == {t.name for t in BUNDLED}
    for tt in BUNDLED:
        committed = L.load_level_table(tt.level_table)
        assert list(got[tt.name]["features"]) == list(committed["features"]), tt.name
        assert got[tt.name]["intercept"] == pytest.approx(committed["intercept"], abs=2e-3), tt.name
        for name, spec in committed["features"].items():
            for k in ("centre", "scale", "coef"):
                assert got[tt.name]["features"][name][k] == pytest.approx(spec[k], rel=1e-3, abs=2e-3), (tt.name, name, k)
        assert got[tt.name]["fit"]["levels"] == committed["fit"]["levels"]
