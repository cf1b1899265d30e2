"""Dataset commands find a user suite's task modules: the manifest records the suite's
resolved path; an older relative one is tried from the dataset's parent; a moved suite is one
clear error that names MISIGEN_SUITE, which points at its new place."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow      # runs run_blender.py in subprocesses

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "custom_task"


def _run(*args, cwd, env=None):
    return subprocess.run([sys.executable, str(ROOT / "run_blender.py"), *map(str, args)], capture_output=True,
                          text=True, timeout=600, cwd=cwd, env=dict(os.environ, **(env or {})))


@pytest.fixture(scope="module")
def planned(tmp_path_factory, examples):
    """A custom-task dataset generated with a relative --suite, from the folder above it."""
    work = tmp_path_factory.mktemp("work")
    shutil.copytree(EXAMPLE, work / "my_suite")
    res = _run("generate", "--structures", examples / "1hvi.pdb", "--suite", "my_suite/suite.yaml", "--out", "out",
               "--split", "test", "--plan-only", "--resolution", "128", "128", "--no-progress", cwd=work)
    assert res.returncode == 0, res.stderr
    return work


def test_manifest_records_the_suite_resolved(planned):
    manifest = json.loads((planned / "out" / "manifest.json").read_text())
    assert manifest["suite"] == str((planned / "my_suite" / "suite.yaml").resolve())
    assert manifest["suite_modules"] == ["nearer_atom.py"]


def test_commands_from_another_folder_find_the_tasks(planned, tmp_path):
    """validate run from another folder than generate's finds the suite's tasks (a relative
    'my_suite/suite.yaml' in the manifest would make every record's task unknown there)."""
    res = _run("validate", planned / "out", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    # an older dataset whose manifest holds the relative path: tried from the dataset's parent
    old = planned / "old"
    shutil.copytree(planned / "out", old)
    manifest = json.loads((old / "manifest.json").read_text())
    manifest["suite"] = "my_suite/suite.yaml"
    (old / "manifest.json").write_text(json.dumps(manifest))
    res = _run("validate", old, cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr


def test_a_moved_suite_is_one_clear_error_and_MISIGEN_SUITE_finds_it(planned, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(planned / "out", data)
    moved = tmp_path / "elsewhere"
    shutil.copytree(planned / "my_suite", moved)
    manifest = json.loads((data / "manifest.json").read_text())
    manifest["suite"] = str(tmp_path / "gone" / "suite.yaml")
    (data / "manifest.json").write_text(json.dumps(manifest))
    preds = tmp_path / "p.jsonl"
    recs = [json.loads(l) for l in (data / "annotations.jsonl").read_text().splitlines()]
    preds.write_text("".join(json.dumps({"id": r["id"], "prediction": r["answer"]}) + "\n" for r in recs))
    res = _run("score", "--dataset", data, "--predictions", preds, "--split", "all", cwd=tmp_path)
    assert res.returncode == 2 and "MISIGEN_SUITE" in res.stderr and "nearer_atom.py" in res.stderr, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    res = _run("score", "--dataset", data, "--predictions", preds, "--split", "all", cwd=tmp_path,
               env={"MISIGEN_SUITE": str(moved / "suite.yaml")})
    assert res.returncode == 0 and "nearer_atom" in res.stdout, res.stdout + res.stderr
