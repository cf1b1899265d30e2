"""Exports are re-runnable: the same dataset into the same folder replaces it (exit 0,
identical files); another dataset's folder, or a folder that is no export, is refused before
anything is written; lmms-eval names its data files relative to the folder."""
import json
import os
import subprocess

import pytest

from misigen.core.resources import suite_path
from misigen.core.look.style import load_style
from misigen.pipeline.generate import run_generate
from misigen.pipeline.run_config import RunConfig

pytestmark = pytest.mark.slow      # runs run_blender.py in subprocesses


def _plan(out, structure, seed):
    style = load_style("misi_bench", {"render": {"resolution": [128, 128]}})
    run_generate(RunConfig([structure], out, suite=suite_path("misi_bench"), style=style, split="test",
                           tasks=["rotation"], seed=seed, render=False, progress=False, audit=False))
    return out


@pytest.fixture(scope="module")
def datasets(tmp_path_factory, examples):
    root = tmp_path_factory.mktemp("exports")
    return _plan(root / "a", examples / "1hvi.pdb", 1), _plan(root / "b", examples / "wagner_brd4", 2)


def _snapshot(folder):
    """Every file's bytes and every link's target under ``folder`` (links not followed); not the
    lock files, which name the last holder (pid, time: folder_lock.py)."""
    out = {}
    for dirpath, dirs, files in os.walk(folder):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]:
            if name.startswith(".misigen.") and name.endswith(".lock"):
                continue
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, folder)
            out[rel] = ("link", os.readlink(p)) if os.path.islink(p) else open(p, "rb").read()
    return out


@pytest.mark.parametrize("fmt", ["hf", "sharegpt", "lmms-eval"])
def test_export_again_replaces_with_identical_files(cli, datasets, tmp_path, fmt):
    """A second export of the same dataset into the same folder exits 0 and writes the same files (no
    'refusing to write outside the output folder' for the export's own images)."""
    a, _ = datasets
    out = tmp_path / "x"
    res = cli("export", "--dataset", a, "--format", fmt, "--out", out, "--split", "test")
    assert res.returncode == 0, res.stderr
    first = _snapshot(out)
    res = cli("export", "--dataset", a, "--format", fmt, "--out", out, "--split", "test")
    assert res.returncode == 0, res.stderr
    assert _snapshot(out) == first and len(first) >= 3


def test_another_export_of_the_same_dataset_leaves_nothing_of_the_first(cli, datasets, tmp_path):
    a, _ = datasets
    out = tmp_path / "x"
    assert cli("export", "--dataset", a, "--format", "hf", "--out", out, "--split", "test").returncode == 0
    assert (out / "test" / "metadata.parquet").is_file()
    assert cli("export", "--dataset", a, "--format", "sharegpt", "--out", out, "--split", "test").returncode == 0
    fresh = tmp_path / "fresh"
    assert cli("export", "--dataset", a, "--format", "sharegpt", "--out", fresh, "--split", "test").returncode == 0
    marker = ".misigen-export.json"
    assert {k: v for k, v in _snapshot(out).items() if k != marker} == \
        {k: v for k, v in _snapshot(fresh).items() if k != marker}
    assert not (out / "test").exists()


def test_another_datasets_folder_is_refused_before_writing(cli, datasets, tmp_path):
    """Another dataset's export folder, or a folder that is no export, is refused with exit 2 before
    any file in it is written or touched."""
    a, b = datasets
    out = tmp_path / "x"
    assert cli("export", "--dataset", a, "--format", "lmms-eval", "--out", out, "--split", "test").returncode == 0
    before = _snapshot(out)
    stamps = {p: os.lstat(p).st_mtime_ns for p in out.rglob("*")}
    res = cli("export", "--dataset", b, "--format", "lmms-eval", "--out", out, "--split", "test")
    assert res.returncode == 2 and "another dataset" in res.stderr and str(a.resolve()) in res.stderr
    assert _snapshot(out) == before and {p: os.lstat(p).st_mtime_ns for p in out.rglob("*")} == stamps
    # a folder that is not an export at all
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep")
    res = cli("export", "--dataset", a, "--format", "sharegpt", "--out", other, "--split", "test")
    assert res.returncode == 2 and "holds no misigen export" in res.stderr
    assert sorted(p.name for p in other.iterdir()) == ["mine.txt"]


def _harness_python():
    from test_dataset_use import _harness_python as find
    return find()


def test_lmms_eval_paths_are_relative_and_a_moved_folder_loads(cli, datasets, tmp_path):
    """lmms-eval's data_files are relative to the export folder, so the folder still loads after a move."""
    a, _ = datasets
    out = tmp_path / "lmms"
    assert cli("export", "--dataset", a, "--format", "lmms-eval", "--out", out, "--split", "test").returncode == 0
    yamls = sorted(out.glob("misigen_*.yaml"))
    text = "".join(p.read_text() for p in yamls)
    assert str(tmp_path) not in text and 'test: "data/' in text
    moved = tmp_path / "moved"
    out.rename(moved)
    python = _harness_python()
    if python is None:
        pytest.skip("no lmms-eval environment: .ci/run builds .venv-harness (or set MISIGEN_HARNESS_PYTHON)")
    task = next(p for p in moved.glob("misigen_*.yaml") if p.stem != "misigen_paper")
    script = ("import sys, datasets; from lmms_eval.utils import load_yaml_config\n"
              "cfg = load_yaml_config(sys.argv[1])\n"
              "ds = datasets.load_dataset('json', data_files=cfg['dataset_kwargs']['data_files'])\n"
              "print(len(ds['test']))\n")
    env = dict(os.environ, HF_HOME=str(tmp_path / "hf"), HF_DATASETS_CACHE=str(tmp_path / "hf" / "datasets"))
    run = subprocess.run([python, "-c", script, str(task)], capture_output=True, text=True, timeout=600,
                         cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = (moved / json.loads(json.dumps("data")) / f"{task.stem[len('misigen_'):]}.jsonl")
    assert int(run.stdout.strip().splitlines()[-1]) == len(rows.read_text().splitlines()) > 0
