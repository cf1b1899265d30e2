"""A task defined outside the package (examples/custom_task/) passes every command, and choice
tasks with fewer than four options generate and validate (the options count comes from the record)."""
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "custom_task"


def test_no_package_file_names_the_custom_task():
    package = ROOT / "blender_addon" / "misigen"
    named = [p for p in package.rglob("*") if p.is_file() and p.suffix in (".py", ".yaml", ".txt", ".toml")
             and "nearer_atom" in p.read_text(encoding="utf-8", errors="replace")]
    assert named == []


def test_the_custom_task_imports_only_the_public_task_api():
    """Of misigen, the example imports ``misigen.tasks`` alone, and every name it takes is exported there."""
    import ast
    import misigen.tasks
    tree = ast.parse((EXAMPLE / "nearer_atom.py").read_text(encoding="utf-8"))
    used = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            used.append((node.module or "", [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            used += [(a.name, []) for a in node.names]
    ours = [(mod, names) for mod, names in used if mod == "misigen" or mod.startswith("misigen.")]
    assert [mod for mod, _ in ours] == ["misigen.tasks"]
    assert set(ours[0][1]) <= set(misigen.tasks.__all__)
    assert {mod for mod, _ in used} - {"misigen.tasks"} <= {"__future__", "collections", "numpy"}


def test_a_plugin_task_stays_out_of_the_paper_average():
    """A task a suite's ``modules:`` adds is not one of MiSI-Bench's: its rows leave the "Avg." row alone,
    while the builtins keep theirs (T5 and T6 out, the rest in)."""
    from misigen.core.tasks import REGISTRY, load_suite
    from misigen.core.tasks.scoring import in_paper_average
    from misigen.pipeline.score import format_tables, score_records
    load_suite(EXAMPLE / "suite.yaml")
    assert REGISTRY["nearer_atom"].paper_average is False
    program = {"kind": "nearer_atom", "correct": "A"}
    recs = [{"id": f"n{k}", "task": "nearer_atom", "answer": "A", "options": ["atom C1", "atom C2"],
             "program": program, "split": "test"} for k in range(3)]
    recs.append({"id": "t1", "task": "translation", "answer": "move x 2", "options": None,
                 "program": {"kind": "cloze", "value_range": [-4, 4]}, "split": "test"})
    assert [in_paper_average(r) for r in recs] == [False, False, False, True]
    result = score_records(recs, {"n0": "A", "n1": "A", "n2": "A", "t1": "move x -4"})
    paper, every = result["average"]["paper"], result["average"]["all"]
    assert paper["rows"] == 1 and paper["exact"] == 0.0 and paper["excluded"] == ["nearer_atom"]
    assert every["rows"] == 2 and every["exact"] == 50.0
    assert "average, paper (no nearer_atom)" in format_tables(result)


def _records(out):
    return [json.loads(line) for line in (out / "annotations.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def custom_dataset(tmp_path_factory, examples):
    import subprocess
    import sys
    out = tmp_path_factory.mktemp("custom") / "out"
    res = subprocess.run([sys.executable, str(ROOT / "run_blender.py"), "generate", "--structures",
                          str(examples / "1hvi.pdb"), "--suite", str(EXAMPLE / "suite.yaml"), "--out", str(out),
                          "--split", "test", "--scene", "draft", "--resolution", "128", "128", "--no-progress"],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    return out


@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.render
def test_custom_task_generates_with_an_answer_from_3d_depths(custom_dataset):
    recs = _records(custom_dataset)
    assert recs and {r["task"] for r in recs} == {"nearer_atom"}
    for r in recs:
        atoms = r["program"]["atoms"]
        nearer = "AB"[min(range(2), key=lambda k: atoms[k]["depth"])]
        assert r["answer"] == nearer == r["program"]["correct"] and len(r["options"]) == 2
        assert abs(atoms[0]["depth"] - atoms[1]["depth"]) >= 1.0
        assert all(f"atom {a['name']}" in r["question"] or a["name"] in r["question"] for a in atoms)


@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.render
def test_custom_task_validates_and_a_wrong_answer_is_caught(custom_dataset, cli, tmp_path):
    res = cli("validate", custom_dataset)
    assert res.returncode == 0, res.stdout + res.stderr
    bad = tmp_path / "bad"
    shutil.copytree(custom_dataset, bad)
    recs = _records(bad)
    r = recs[0]
    flip = "B" if r["answer"] == "A" else "A"
    r["answer"] = r["program"]["correct"] = flip          # consistent with its program, wrong by the sidecar
    (bad / "annotations.jsonl").write_text("".join(json.dumps(x) + "\n" for x in recs))
    res = cli("validate", bad)
    assert res.returncode != 0 and f"is nearer, not {flip}" in res.stdout + res.stderr


@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.render
def test_custom_task_audit_score_baseline_export_report(custom_dataset, cli, tmp_path):
    out = custom_dataset
    res = cli("audit", out)
    assert res.returncode == 0, res.stdout + res.stderr
    rows = {g["guesser"] for g in json.loads((out / "audit.json").read_text())["tasks"]["nearer_atom"]["guessers"]}
    assert {"first option", "always A", "always B"} <= rows
    perfect = tmp_path / "perfect.jsonl"
    perfect.write_text("".join(json.dumps({"id": r["id"], "prediction": r["answer"]}) + "\n" for r in _records(out)))
    res = cli("score", "--dataset", out, "--predictions", perfect, "--json", tmp_path / "s.json")
    assert res.returncode == 0, res.stdout + res.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["tasks"]["nearer_atom"]["composite"] == 100.0 and s["average"]["all"]["exact"] == 100.0
    assert s["average"]["paper"]["rows"] == 0 and s["average"]["paper"]["excluded"] == ["nearer_atom"]
    for kind in ("random", "majority"):
        res = cli("baseline", "--kind", kind, "--dataset", out, "--out", tmp_path / f"{kind}.jsonl")
        assert res.returncode == 0, res.stdout + res.stderr
        preds = [json.loads(line) for line in (tmp_path / f"{kind}.jsonl").read_text().splitlines()]
        assert len(preds) == len(_records(out)) and {p["prediction"] for p in preds} <= {"A", "B"}
    res = cli("export", "--dataset", out, "--format", "hf", "--out", tmp_path / "hf")
    assert res.returncode == 0, res.stdout + res.stderr
    import pyarrow.parquet as pq
    table = pq.read_table(tmp_path / "hf" / "test" / "metadata.parquet").to_pylist()
    assert {r["task"] for r in table} == {"nearer_atom"} and all(len(r["options"]) == 2 for r in table)
    res = cli("report", out)
    assert res.returncode == 0 and "nearer_atom" in (out / "report.html").read_text()


def test_a_suite_module_that_does_not_load_is_one_clear_error(tmp_path):
    from misigen.core.errors import InputError
    from misigen.core.tasks import load_suite
    (tmp_path / "broken.py").write_text("raise RuntimeError('boom')\n")
    (tmp_path / "suite.yaml").write_text("name: x\nmodules: [broken.py]\ntasks: [t.yaml]\n")
    with pytest.raises(InputError, match="broken.py.*boom"):
        load_suite(tmp_path / "suite.yaml")
    (tmp_path / "suite2.yaml").write_text("name: x\nmodules: [missing.py]\ntasks: [t.yaml]\n")
    with pytest.raises(InputError, match="no such file"):
        load_suite(tmp_path / "suite2.yaml")


@pytest.mark.render
def test_three_options_generate_and_validate(tmp_path, examples):
    """Specs accept 2–4 options; validate takes the count from the record, not a fixed 4."""
    from misigen.core.look.style import load_style
    from misigen.pipeline.generate import run_generate
    from misigen.pipeline.run_config import RunConfig
    from misigen.pipeline.validate import validate_dataset
    specs = ROOT / "task_specs"
    text = (specs / "interaction_location.yaml").read_text()
    text = text.replace("prompt: prompts/interaction_location.txt",
                        f"prompt: {json.dumps(str(specs / 'prompts' / 'interaction_location.txt'))}")
    text = text.replace("options: 4", "options: 3").replace("design: product", "design: paper")
    text = text.replace("A, B, C or D.", "A, B or C.")
    (tmp_path / "t8.yaml").write_text(text)
    (tmp_path / "suite.yaml").write_text("name: three_options\ntasks: [t8.yaml]\n")
    out = tmp_path / "out"
    style = load_style("draft", {"render": {"resolution": [256, 256]}})
    run_generate(RunConfig([examples / "1hvi.pdb"], out, suite=tmp_path / "suite.yaml", style=style, split="test",
                           device="cpu", progress=False))
    recs = _records(out)
    assert recs and all(len(r["options"]) == 3 and r["answer"] in "ABC" for r in recs)
    assert validate_dataset(out) == []
    # the count is the record's: a fourth option the program does not list is a defect
    recs[0]["options"] = recs[0]["options"] + ["move x 99, move y 99"]
    (out / "annotations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert any("options must be 3 distinct" in p for p in validate_dataset(out))


def test_a_module_name_is_imported_from_the_suite_folder(tmp_path):
    """``modules: [pkg.mod]`` imports a module (the suite's folder is searched first)."""
    from misigen.core.tasks import REGISTRY, load_suite
    pkg = tmp_path / "my_tasks"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "distance.py").write_text(
        "import dataclasses, importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('example_nearer', {str(EXAMPLE / 'nearer_atom.py')!r})\n"
        "m = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(m)\n"
        "TASK_TYPES = (dataclasses.replace(m.TASK_TYPES[0], name='nearer_atom_by_name'),)\n")
    spec = (EXAMPLE / "nearer_atom.yaml").read_text().replace("task: nearer_atom", "task: nearer_atom_by_name")
    spec = spec.replace("prompt: nearer_atom.txt", f"prompt: {json.dumps(str(EXAMPLE / 'nearer_atom.txt'))}")
    (tmp_path / "t.yaml").write_text(spec)
    (tmp_path / "suite.yaml").write_text("name: x\nmodules: [my_tasks.distance]\ntasks: [t.yaml]\n")
    tasks = load_suite(tmp_path / "suite.yaml").tasks
    assert [t.type for t in tasks] == ["nearer_atom_by_name"] and "nearer_atom_by_name" in REGISTRY
    assert load_suite(tmp_path / "suite.yaml").tasks[0].name == "nearer_atom_by_name"     # loading twice is fine
