"""Using a generated dataset: score, baselines, exports (HF datasets, ShareGPT, lmms-eval),
the HTML report in a real headless Chromium, and the dataset card."""
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from misigen.core.resources import suite_path
from misigen.core.tasks.predictions import read_prediction
from misigen.core.tasks import answer_kind
from misigen.core.tasks.scoring import score_row
from misigen.pipeline.generate import run_generate
from misigen.pipeline.run_config import RunConfig

SUITE = suite_path("misi_bench")
RES = 256
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def run(capsys):
    """A command run in this process (as the CLI, without ~2 s of interpreter start-up per call)."""
    from types import SimpleNamespace

    from misigen.pipeline.cli import main

    def _run(*args):
        code = main([str(a) for a in args])
        cap = capsys.readouterr()
        return SimpleNamespace(returncode=code, stdout=cap.out, stderr=cap.err)
    return _run


def _records(out):
    return [json.loads(l) for l in (Path(out) / "annotations.jsonl").read_text().splitlines()]


def _write_predictions(path, pairs):
    path.write_text("".join(json.dumps({"id": i, "prediction": p}) + "\n" for i, p in pairs))
    return path


@pytest.fixture(scope="module")
def planned(tmp_path_factory, examples, fast_style):
    """Every task, both examples, test split, no images (fast)."""
    out = tmp_path_factory.mktemp("planned")
    style = fast_style
    run_generate(RunConfig([examples], out, suite=SUITE, style=style, split="test", seed=5, render=False,
                           progress=False))
    return out


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, examples, fast_style):
    """A small rendered dataset with both splits: BRD4 in train (the few-shot pool), 1HVI in
    test; 1 sample per pixel, a handful of tasks covering every answer kind and option kind.
    256² rather than 128²: at 128² the label checks reject 1HVI's pocket question (T9)."""
    out = tmp_path_factory.mktemp("rendered")
    style = fast_style                        # RES² (256²)
    # One run (a folder holds one run): split "auto" with a seed that puts BRD4 in train, 1HVI in test.
    run_generate(RunConfig([examples / "wagner_brd4", examples / "1hvi.pdb"], out, suite=SUITE, style=style,
                           split="auto", seed=16, device="cpu",
                           tasks=["translation", "residue_ligand_interaction", "rotation_rotation",
                                  "interaction_location", "pocket_ligand_interaction"], progress=False))
    recs = _records(out)
    assert {(r["task"], r["split"]) for r in recs} >= {
        ("residue_ligand_interaction", "train"), ("pocket_ligand_interaction", "train"),
        ("pocket_ligand_interaction", "test"), ("rotation_rotation", "test"), ("interaction_location", "test")}
    return out


# ------------------------------------------------------------------ score
@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_score_perfect_empty_and_missing(planned, cli, run, tmp_path):
    recs = _records(planned)
    perfect = _write_predictions(tmp_path / "perfect.jsonl", [(r["id"], r["answer"]) for r in recs])
    res = cli("score", "--dataset", planned, "--predictions", perfect, "--json", tmp_path / "p.json")  # the real entry point
    assert res.returncode == 0, res.stderr
    assert "Table 1" in res.stdout and "Table 2" in res.stdout
    s = json.loads((tmp_path / "p.json").read_text())
    rows = {score_row(r) for r in recs}
    assert set(s["tasks"]) == rows and {"residue_ligand_interaction/pos", "residue_ligand_interaction/neg"} <= rows
    for name, row in s["tasks"].items():
        assert row["composite"] == 100.0 and row["exact"] == 100.0 and row["unparsed"] == 0, name
        assert row["n"] == sum(score_row(r) == name for r in recs)
        assert ("f1" in row) == (answer_kind(name.split("/")[0]) in ("residue", "pocket", "residues"))
    assert s["average"]["all"]["composite"] == 100.0 and s["average"]["paper"]["exact"] == 100.0
    assert s["average"]["all"]["rows"] == len(rows) and s["average"]["paper"]["rows"] == len(rows) - 2

    empty = _write_predictions(tmp_path / "empty.jsonl", [(r["id"], "") for r in recs])
    s = _score(run, planned, empty, tmp_path)
    for name, row in s["tasks"].items():
        assert row["composite"] == 0.0 and row["exact"] == 0.0 and row["unparsed"] == row["n"], name

    # Half the ids missing: those score 0 and are listed; the rest stay perfect.
    kept = recs[::2]
    half = _write_predictions(tmp_path / "half.jsonl", [(r["id"], r["answer"]) for r in kept] + [("nope", "A")])
    s = _score(run, planned, half, tmp_path)
    assert s["missing"] == sorted(r["id"] for r in recs[1::2]) and s["unknown_ids"] == ["nope"]
    for name, row in s["tasks"].items():
        n_kept = sum(score_row(r) == name for r in kept)
        assert row["missing"] == row["n"] - n_kept
        assert row["composite"] == pytest.approx(round(100 * n_kept / row["n"], 2))


def _score(run, dataset, preds, tmp_path):
    res = run("score", "--dataset", dataset, "--predictions", preds, "--json", tmp_path / "s.json")
    assert res.returncode == 0, res.stderr
    return json.loads((tmp_path / "s.json").read_text())


@pytest.mark.slow      # plans every task on the examples (the `planned` fixture)
def test_score_averages_rows_and_partial_credit(planned, run, tmp_path):
    """Translation answered with the opposite sign: each question scores 1 − 2|d|/8; the row is
    their mean, and the averages are unweighted means over rows (the paper's 'Avg.' without
    translation_rotation and rotation_rotation)."""
    recs = _records(planned)
    preds = []
    for r in recs:
        if r["task"] == "translation":
            verb, axis, value = r["answer"].split()
            preds.append((r["id"], f"{verb} {axis} {-float(value):g}"))
        else:
            preds.append((r["id"], r["answer"]))
    s = _score(run, planned, _write_predictions(tmp_path / "p.jsonl", preds), tmp_path)
    trans = [r for r in recs if r["task"] == "translation"]
    expected = 100 * sum(1 - 2 * abs(float(r["answer"].split()[2])) / 8 for r in trans) / len(trans)
    assert s["tasks"]["translation"]["composite"] == pytest.approx(expected, abs=0.01)
    assert s["tasks"]["translation"]["exact"] == 0.0
    rows = s["tasks"]
    assert s["average"]["all"]["composite"] == pytest.approx(sum(r["composite"] for r in rows.values()) / len(rows), abs=0.01)
    paper = [r for k, r in rows.items() if k not in ("translation_rotation", "rotation_rotation")]
    assert s["average"]["paper"]["composite"] == pytest.approx(sum(r["composite"] for r in paper) / len(paper), abs=0.01)


@pytest.mark.slow      # plans every task on the examples (the `planned` fixture)
def test_score_bad_predictions_file(planned, run, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "prediction": "A"}\nnot json\n')
    res = run("score", "--dataset", planned, "--predictions", bad)
    assert res.returncode == 2 and "bad.jsonl" in res.stderr and "line 2" in res.stderr
    bad.write_text('{"id": "a", "prediction": "A"}\n{"id": "a", "prediction": "B"}\n')
    res = run("score", "--dataset", planned, "--predictions", bad)
    assert res.returncode == 2 and "predicted twice" in res.stderr
    res = run("score", "--dataset", planned, "--predictions", bad, "--split", "train")
    assert res.returncode == 2 and "no records in split 'train'" in res.stderr


@pytest.mark.slow      # takes long
def test_score_and_baselines_cover_interaction_kind_variants(examples, run, tmp_path, fast_style):
    """misi_plus adds T4/T9 variants (Yes/No, residue lists): perfect predictions score 100 in
    every row (Yes/No variants split into pos/neg), random guesses are all readable."""
    out = tmp_path / "plus"
    style = fast_style
    run_generate(RunConfig([examples], out, suite=suite_path("misi_plus"), style=style, split="test", seed=5,
                           render=False, progress=False))
    recs = _records(out)
    perfect = _write_predictions(tmp_path / "perfect.jsonl", [(r["id"], r["answer"]) for r in recs])
    s = _score(run, out, perfect, tmp_path)
    assert "residue_ligand_hydrophobic/neg" in s["tasks"] and "f1" in s["tasks"]["pocket_ligand_hydrophobic"]
    assert all(row["composite"] == 100.0 and row["exact"] == 100.0 for row in s["tasks"].values())
    guesses = tmp_path / "random.jsonl"
    assert run("baseline", "--kind", "random", "--dataset", out, "--out", guesses).returncode == 0
    s = _score(run, out, guesses, tmp_path)
    assert all(row["unparsed"] == 0 for row in s["tasks"].values())


# ------------------------------------------------------------------ baselines
@pytest.mark.render
def test_random_baseline_is_deterministic_and_well_formed(rendered, planned, run, tmp_path):
    for dataset in (planned, rendered):
        a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
        for p in (a, b):
            res = run("baseline", "--kind", "random", "--dataset", dataset, "--out", p, "--split", "all")
            assert res.returncode == 0, res.stderr
        assert a.read_bytes() == b.read_bytes()
        recs = {r["id"]: r for r in _records(dataset)}
        preds = [json.loads(l) for l in a.read_text().splitlines()]
        assert [p["id"] for p in preds] == sorted(recs)
        for p in preds:
            r = recs[p["id"]]
            assert read_prediction(answer_kind(r["task"], r["program"]), p["prediction"]) is not None, p   # answer space
        s = _score(run, dataset, a, tmp_path)
        assert all(row["unparsed"] == 0 and row["missing"] == 0 for row in s["tasks"].values())
        assert s["average"]["all"]["composite"] < 60        # a floor, not a solver
    # With sidecars the H-bond guesses name atoms that are shown in the question's images.
    recs = {r["id"]: r for r in _records(rendered)}
    named = [json.loads(l) for l in a.read_text().splitlines()
             if recs[json.loads(l)["id"]]["task"] == "pocket_ligand_interaction"]
    for p in named:
        if p["prediction"] != "No":
            side = json.loads((rendered / recs[p["id"]]["images"][0]).with_suffix(".json").read_text())
            names = {a["name"] for a in side["atoms"]}
            for bond in p["prediction"].split("; "):
                assert bond.split(", ")[1] in names and bond.split()[2] in names


@pytest.mark.render
def test_majority_baseline(rendered, run, tmp_path):
    out = tmp_path / "maj.jsonl"
    res = run("baseline", "--kind", "majority", "--dataset", rendered, "--out", out)
    assert res.returncode == 0, res.stderr
    recs = _records(rendered)
    preds = {json.loads(l)["id"]: json.loads(l)["prediction"] for l in out.read_text().splitlines()}
    assert set(preds) == {r["id"] for r in recs if r["split"] == "test"}
    for task in {r["task"] for r in recs}:
        train = Counter(r["answer"] for r in recs if r["task"] == task and r["split"] == "train")
        test_ids = [r["id"] for r in recs if r["task"] == task and r["split"] == "test"]
        if train and test_ids:
            best = min(train.items(), key=lambda kv: (-kv[1], kv[0]))[0]
            assert {preds[i] for i in test_ids} == {best}
        elif test_ids:
            assert f"{task}: no train records" in res.stderr


# ------------------------------------------------------------------ exports
@pytest.mark.render
def test_hf_export_loads_with_datasets(rendered, run, tmp_path):
    datasets = pytest.importorskip("datasets", reason="datasets not installed (the test extra installs it)")
    out = tmp_path / "hf"
    res = run("export", "--dataset", rendered, "--format", "hf", "--out", out, "--few-shot", "2")
    assert res.returncode == 0, res.stderr
    assert not list(out.rglob("*.png")) or all(p.is_symlink() or any(q.is_symlink() for q in p.parents)
                                                for p in out.rglob("*.png"))          # linked, not copied
    ds = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    recs = {r["id"]: r for r in _records(rendered)}
    assert set(ds) == {"train", "test"}
    assert {s: len(ds[s]) for s in ds} == dict(Counter(r["split"] for r in recs.values()))
    assert isinstance(ds["test"].features["images"].feature, datasets.Image)
    for row in ds["test"]:
        rec = recs[row["id"]]
        n_opt = len([o for o in rec["options"] or [] if str(o).startswith("images/")])
        assert len(row["images"]) == len(rec["images"]) + n_opt
        assert all(im.size == (RES, RES) for im in row["images"])
        assert row["answer"] == rec["answer"] and row["question"] == rec["question"]
        assert json.loads(row["program"]) == rec["program"] and row["row"] == score_row(rec)
        assert row["rationale"] == (rec["rationale"] or "") and row["level"] == rec["program"]["difficulty"]["level"]
        if n_opt:
            assert row["options"] == [f"image {len(rec['images']) + k}" for k in range(1, 5)]
        for ex in row["few_shot"]:
            assert recs[ex["id"]]["split"] == "train" and recs[ex["id"]]["task"] == rec["task"]
            ex_rec = recs[ex["id"]]
            n_ex = len(ex_rec["images"]) + len([o for o in ex_rec["options"] or [] if str(o).startswith("images/")])
            assert ex_rec["structure"] != rec["structure"] and len(ex["images"]) == n_ex
    assert any(row["few_shot"] for row in ds["test"])
    card = (out / "README.md").read_text()
    assert card.startswith("---\nconfigs:") and "`images`" in card and "few_shot" in card


@pytest.mark.render
def test_sharegpt_export(rendered, run, tmp_path):
    out = tmp_path / "sg"
    res = run("export", "--dataset", rendered, "--format", "sharegpt", "--out", out, "--split", "all",
              "--few-shot", "1", "--tiny", "2")
    assert res.returncode == 0, res.stderr
    assert "got fewer than 1 worked examples" in res.stderr                 # translation has no train pool
    info = json.loads((out / "dataset_info.json").read_text())
    assert set(info) == {"misigen_train", "misigen_test"}
    assert info["misigen_test"]["formatting"] == "sharegpt" and info["misigen_test"]["columns"]["images"] == "images"
    recs = {r["id"]: r for r in _records(rendered)}
    per_task = Counter()
    for split in ("train", "test"):
        for line in (out / info[f"misigen_{split}"]["file_name"]).read_text().splitlines():
            conv = json.loads(line)
            rec = recs[conv["id"]]
            per_task[rec["task"]] += 1
            msgs = conv["messages"]
            assert [m["role"] for m in msgs] == ["user", "assistant"] * (len(msgs) // 2)
            assert msgs[-1]["content"] == rec["answer"] and msgs[-2]["content"].endswith(rec["question"])
            assert sum(m["content"].count("<image>") for m in msgs) == len(conv["images"])
            assert all((out / p).is_file() for p in conv["images"])
            if len(msgs) == 4:                                              # one worked example
                assert "<image>" in msgs[0]["content"] and msgs[1]["content"] != ""
    assert all(n <= 2 for n in per_task.values()) and per_task                # --tiny 2 per task
    # Same inputs, same export, byte for byte.
    again = tmp_path / "sg2"
    run("export", "--dataset", rendered, "--format", "sharegpt", "--out", again, "--split", "all",
        "--few-shot", "1", "--tiny", "2")
    for name in ("misigen_train.jsonl", "misigen_test.jsonl"):
        assert (out / name).read_bytes() == (again / name).read_bytes()


@pytest.mark.render
def test_sharegpt_export_with_rationales_follows_llamafactory_schema(rendered, run, tmp_path):
    """--rationale: each assistant turn is the record's rationale (ending with its answer), in the
    multimodal ShareGPT layout LLaMA-Factory documents (data/README.md: "formatting": "sharegpt",
    columns messages + images, OpenAI-style role/content tags, one <image> per image, user first and
    turns alternating). benchmarks/check_llamafactory.py loads the file with LLaMA-Factory itself."""
    out = tmp_path / "sgr"
    res = run("export", "--dataset", rendered, "--format", "sharegpt", "--out", out, "--split", "all", "--rationale")
    assert res.returncode == 0, res.stderr
    info = json.loads((out / "dataset_info.json").read_text())
    recs = {r["id"]: r for r in _records(rendered)}
    seen = 0
    for name, entry in info.items():
        assert entry["formatting"] == "sharegpt"
        assert entry["columns"] == {"messages": "messages", "images": "images"}
        assert entry["tags"] == {"role_tag": "role", "content_tag": "content", "user_tag": "user",
                                 "assistant_tag": "assistant"}
        for line in (out / entry["file_name"]).read_text().splitlines():
            conv = json.loads(line)
            rec = recs[conv["id"]]
            msgs = conv["messages"]
            assert [m["role"] for m in msgs] == ["user", "assistant"]
            if not rec["rationale"]:                                      # no derivation: the bare answer
                assert msgs[1]["content"] == rec["answer"]
                continue
            assert msgs[1]["content"] == rec["rationale"] and msgs[1]["content"].rstrip().endswith(rec["answer"])
            assert "\n" in msgs[1]["content"] and "Answer: " in msgs[1]["content"]      # steps, then the answer
            assert msgs[0]["content"].count("<image>") == len(conv["images"]) > 0
            assert all((out / p).is_file() for p in conv["images"])
            assert conv["level"] in ("easy", "medium", "hard")
            seen += 1
    assert seen >= 0.85 * len(recs)                                      # nearly every record has one
    assert "Assistant turns are the records' rationales" in (out / "README.md").read_text()
    res = run("export", "--dataset", rendered, "--format", "hf", "--out", tmp_path / "h", "--rationale")
    assert res.returncode == 2 and "--rationale" in res.stderr


@pytest.mark.slow      # plans every task on the examples (the `planned` fixture)
def test_score_by_level(planned, run, tmp_path):
    recs = _records(planned)
    assert all(r["program"]["difficulty"]["level"] in ("easy", "medium", "hard") for r in recs)
    wrong = {r["id"] for r in recs if r["program"]["difficulty"]["level"] == "easy"}
    preds = _write_predictions(tmp_path / "p.jsonl", [(r["id"], "" if r["id"] in wrong else r["answer"])
                                                      for r in recs])
    res = run("score", "--dataset", planned, "--predictions", preds, "--by", "level", "--json", tmp_path / "s.json")
    assert res.returncode == 0, res.stderr
    assert "Table 3 — by difficulty level" in res.stdout
    by = json.loads((tmp_path / "s.json").read_text())["by_level"]
    for row, levels in by["rows"].items():
        for level, r in levels.items():
            assert r["exact"] == (0.0 if level == "easy" else 100.0), (row, level)
            n = sum(1 for x in recs if score_row(x) == row and x["program"]["difficulty"]["level"] == level)
            assert r["n"] == n
            assert f"| {row} | {level} | {n} |" in res.stdout
    assert sum(a["n"] for a in by["all_rows"].values()) == len(recs)


def _harness_python():
    env = os.environ.get("MISIGEN_HARNESS_PYTHON")
    if env:
        return env
    cand = ROOT / ".venv-harness" / "bin" / "python"
    return str(cand) if cand.exists() else None


@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.render
def test_lmms_eval_export_runs_in_the_harness(rendered, run, tmp_path):
    """The task folder, loaded by lmms-eval's own TaskManager and run by its evaluator with a
    model that replays a predictions file, gives the same scores as `misigen score`."""
    out = tmp_path / "lmms"
    res = run("export", "--dataset", rendered, "--format", "lmms-eval", "--out", out, "--few-shot", "1")
    assert res.returncode == 0, res.stderr
    rows = sorted({score_row(r) for r in _records(rendered) if r["split"] == "test"})
    assert sorted(p.stem for p in out.glob("misigen_*.yaml")) == sorted(
        ["misigen_paper"] + ["misigen_" + r.replace("/", "_") for r in rows])
    assert (out / "utils.py").is_file() and (out / "images").is_symlink()
    preds = tmp_path / "random.jsonl"
    assert run("baseline", "--kind", "random", "--dataset", rendered, "--out", preds).returncode == 0
    expected = _score(run, rendered, preds, tmp_path)
    python = _harness_python()
    if python is None:
        pytest.skip("no lmms-eval environment: .ci/run builds .venv-harness (or set MISIGEN_HARNESS_PYTHON)")
    env = dict(os.environ, HF_HOME=str(tmp_path / "hf"), HF_DATASETS_CACHE=str(tmp_path / "hf" / "datasets"))
    run = subprocess.run([python, str(ROOT / "tests" / "harness_lmms_eval.py"), str(out), str(preds)],
                         capture_output=True, text=True, timeout=900, env=env)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    for row in rows:
        name = "misigen_" + row.replace("/", "_")
        assert got[name]["composite"] * 100 == pytest.approx(expected["tasks"][row]["composite"], abs=0.01)
        assert got[name]["exact"] * 100 == pytest.approx(expected["tasks"][row]["exact"], abs=0.01)
    assert got["misigen"]["composite"] * 100 == pytest.approx(expected["average"]["all"]["composite"], abs=0.01)
    assert got["misigen_paper"]["exact"] * 100 == pytest.approx(expected["average"]["paper"]["exact"], abs=0.01)
    assert got["_images_per_request_ok"] is True


@pytest.mark.render
def test_export_refuses_bad_requests(rendered, run, tmp_path):
    res = run("export", "--dataset", rendered, "--format", "hf", "--out", rendered / "inside")
    assert res.returncode == 2 and "outside the dataset folder" in res.stderr
    res = run("export", "--dataset", rendered, "--format", "sharegpt", "--out", tmp_path / "x", "--tiny", "0")
    assert res.returncode == 2 and "--tiny" in res.stderr


# ------------------------------------------------------------------ report in a real browser
def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def _loaded_images(browser, page: Path) -> tuple[int, int]:
    run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=20000",
                          "--dump-dom", page.resolve().as_uri()], capture_output=True, text=True, timeout=180)
    body = re.search(r"<body[^>]*>", run.stdout)
    assert body, run.stderr[-2000:]
    ok = re.search(r'data-images-ok="(\d+)"', body.group(0))
    broken = re.search(r'data-images-broken="(\d+)"', body.group(0))
    assert ok and broken, f"the page's image check did not run: {body.group(0)}"
    return int(ok.group(1)), int(broken.group(1))


@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.render
def test_report_opens_with_every_image_in_chromium(rendered, run, tmp_path):
    scores = tmp_path / "random.json"
    preds = tmp_path / "random.jsonl"
    run("baseline", "--kind", "random", "--dataset", rendered, "--out", preds)
    run("score", "--dataset", rendered, "--predictions", preds, "--json", scores)
    res = run("report", rendered, "--scores", scores)
    assert res.returncode == 0, res.stderr
    page = rendered / "report.html"
    text = page.read_text()
    n_img = len(re.findall(r"<img ", text))
    recs = _records(rendered)
    for task in {r["task"] for r in recs}:
        assert f"id='{task}'" in text
    assert "<svg" in text and "Failures" in text and "random" in text and "composite %" in text
    assert n_img >= 20 and "images/" in text and not list(rendered.glob("report_files"))
    browser = _chromium()
    if browser is None:
        pytest.skip("no chromium binary (apt-get install chromium; .ci/run installs it)")
    assert _loaded_images(browser, page) == (n_img, 0)
    # The check can fail: with one image gone, the browser reports it.
    copy = tmp_path / "copy"
    shutil.copytree(rendered, copy)
    first = re.search(r"src='(images/[^']+)'", text).group(1)
    (copy / first).unlink()
    assert _loaded_images(browser, copy / "report.html")[1] >= 1


# ------------------------------------------------------------------ dataset card
@pytest.mark.render
def test_generate_writes_a_dataset_card(rendered, planned):
    card = (rendered / "README.md").read_text()
    manifest = json.loads((rendered / "manifest.json").read_text())
    assert card.startswith("# misigen dataset")
    assert manifest["blender"] and manifest["blender"] in card and "root seed: 16" in card
    assert "1hvi" in card and "1hvi.pdb" in card
    # The licence and provenance notes beside the inputs are quoted.
    assert "SOURCES.md" in card and "LICENSE-MIT-fep-benchmark.txt" in card and "CC0" in card
    assert "| residue_ligand_interaction |" in card
    plan_card = (planned / "README.md").read_text()
    assert "not used (plan only)" in plan_card and "wagner_brd4" in plan_card


@pytest.mark.slow      # plans every task on the examples (the `planned` fixture)
def test_audit_and_report_show_levels(planned):
    from misigen.core.tasks.audit import format_audit
    from misigen.pipeline.audit import audit_dataset
    from misigen.pipeline.report import write_report

    recs = _records(planned)
    report = audit_dataset(planned)
    for task, sec in report["tasks"].items():
        mine = [r for r in recs if r["task"] == task]
        want = Counter(r["program"]["difficulty"]["level"] for r in mine)
        assert {k: v["n"] for k, v in sec["levels"].items()} == dict(want)
        assert all(0.0 <= a <= 1.0 for lv in sec["levels"].values() for a in lv["guessers"].values())
    text = format_audit(report)
    assert re.search(r"level (easy|medium|hard)\s*: \d+ question", text)
    html_text = write_report(planned).read_text()
    assert "<summary>rationale</summary>" in html_text and "aria-label='level'" in html_text
    assert "blind guessers' accuracy by level" in html_text
