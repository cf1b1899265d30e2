"""Honest exits and clear errors: exit codes, one-line messages, option checks, help text."""
import argparse
import json
import shutil
import sys

import pytest

from misigen.pipeline.cli import build_parser


def _one_error_line(stderr: str) -> str:
    lines = [l for l in stderr.splitlines() if l.strip() and not l.startswith("device:")]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def _missing_backend() -> str:
    """A GPU backend this machine cannot provide (all of them, on a machine without GPUs)."""
    from misigen.render.device import GPU_ORDER, DeviceError, probe_device
    for backend in GPU_ORDER:
        try:
            probe_device(backend)
        except DeviceError:
            return backend
    raise AssertionError("every GPU backend has a device here")


@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.render
def test_unavailable_device_is_one_error_before_any_work(tmp_path, examples, cli):
    backend = _missing_backend()
    out = tmp_path / "o"
    res = cli("generate", "--structures", examples / "wagner_brd4", "--out", out, "--device", backend)
    assert res.returncode == 2 and f"--device {backend}" in _one_error_line(res.stderr)
    assert not out.exists()
    res = cli("render", "--structures", examples / "1hvi.pdb", "--out", out, "--device", backend)
    assert res.returncode == 2 and backend in _one_error_line(res.stderr)
    assert not out.exists()


@pytest.mark.parametrize("args, option", [
    (["--device", "foo"], "--device"),
    (["--samples", "-3"], "--samples"),
    (["--resolution", "0", "0"], "--resolution"),
    (["--workers", "0"], "--workers"),
    (["--limit", "0"], "--limit"),
    (["--ray-gpus-per-task", "-1"], "--ray-gpus-per-task"),
])
def test_bad_numbers_are_rejected_naming_the_option(tmp_path, examples, capsys, args, option):
    from misigen.pipeline.cli import main
    with pytest.raises(SystemExit) as stop:
        main(["generate", "--structures", str(examples), "--out", str(tmp_path / "o"), *args])
    assert stop.value.code == 2 and f"argument {option}" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_every_option_has_help_text():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"{name} {opt.option_strings or opt.dest}"
               for name, p in sub.choices.items() for opt in p._actions
               if not isinstance(opt, argparse._HelpAction) and not opt.help]
    assert missing == []
    assert all(choice.help for choice in sub._choices_actions)


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_nothing_generated_exits_1_and_partial_failure_exits_3(tmp_path, examples, cli):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "broken.pdb").write_bytes(b"\x00\x00binary")
    res = cli("generate", "--structures", bad, "--out", tmp_path / "none", "--plan-only", "--no-progress")
    assert res.returncode == 1 and "nothing was generated" in res.stderr
    assert "failed: broken:" in res.stderr
    mixed = tmp_path / "mixed"
    shutil.copytree(examples / "wagner_brd4", mixed / "wagner_brd4")
    shutil.copy(bad / "broken.pdb", mixed / "broken.pdb")
    (mixed / "noligand.pdb").write_text(
        "ATOM      1  N   ALA A   1       0.000   0.000   0.000  1.00  0.00           N\n"
        "ATOM      2  CA  ALA A   1       1.458   0.000   0.000  1.00  0.00           C\nEND\n")
    res = cli("generate", "--structures", mixed, "--out", tmp_path / "some", "--plan-only", "--no-progress",
              "--tasks", "translation")
    assert res.returncode == 3
    failed = [l for l in res.stderr.splitlines() if l.startswith("failed: ")]
    assert len(failed) == 2 and any("broken" in l and "binary" in l for l in failed) \
        and any("noligand" in l and "no drug-like ligand" in l for l in failed)


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_unused_inputs_are_reported_and_count_as_failures(tmp_path, examples, cli):
    inputs = tmp_path / "inputs"
    (inputs / "1abc").mkdir(parents=True)
    shutil.copy(examples / "1hvi.pdb", inputs / "1abc" / "1abc.pdb")          # a folder holding one file
    shutil.copy(examples / "wagner_brd4" / "wagner_brd4_ligand.sdf", inputs / "lonely_ligand.sdf")
    (inputs / "README.txt").write_text("notes\n")
    out = tmp_path / "out"
    res = cli("generate", "--structures", inputs, "--out", out, "--plan-only", "--no-progress",
              "--tasks", "translation")
    assert res.returncode == 3, res.stderr
    assert "lonely_ligand.sdf" in res.stderr and "README.txt" in res.stderr
    assert "2 file(s) given but not used" in res.stdout
    fails = [json.loads(l) for l in (out / "failures.jsonl").read_text().splitlines()]
    kinds = {f["where"].rsplit("/", 1)[1]: f["kind"] for f in fails if f.get("kind")}
    assert kinds == {"lonely_ligand.sdf": "unused_input", "README.txt": "not_a_structure"}
    recs = [json.loads(l) for l in (out / "annotations.jsonl").read_text().splitlines()]
    assert {r["structure"] for r in recs} == {"1abc"}
    # Only the files that are not structures at all: reported, but the exit code stays 0.
    (inputs / "lonely_ligand.sdf").unlink()
    res = cli("generate", "--structures", inputs, "--out", tmp_path / "out2", "--plan-only", "--no-progress",
              "--tasks", "translation")
    assert res.returncode == 0 and "README.txt" in res.stderr


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_resume_into_a_folder_of_another_run_is_refused(tmp_path, examples, cli):
    args = ["generate", "--structures", examples / "wagner_brd4", "--out", tmp_path / "o", "--plan-only",
            "--no-progress", "--tasks", "translation"]
    assert cli(*args, "--seed", "1").returncode == 0
    res = cli(*args, "--seed", "2")
    assert res.returncode == 2 and "seed" in _one_error_line(res.stderr) and "another --out" in res.stderr


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_merge_of_a_missing_folder_is_an_error(tmp_path, cli):
    res = cli("merge", tmp_path / "nonexistent")
    assert res.returncode == 2 and "no such folder" in _one_error_line(res.stderr)
    assert not (tmp_path / "nonexistent").exists()
    res = cli("validate", tmp_path / "nonexistent")
    assert res.returncode == 2 and not (tmp_path / "nonexistent").exists()


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_install_deps_help_installs_nothing(cli):
    res = cli("install-deps", "--help")
    assert res.returncode == 0 and "usage:" in res.stdout and "rdkit" in res.stdout
    res = cli("install-deps", "--dry-run")
    assert res.returncode == 0 and "-m pip install" in res.stdout


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_without_bpy_one_line_says_how_to_install(tmp_path, examples):
    import subprocess
    from conftest import ROOT
    code = ("import runpy, sys; sys.modules['bpy'] = None; "
            f"sys.argv = ['run_blender.py', 'render', '--structures', {str(examples / '1hvi.pdb')!r}, "
            f"'--out', {str(tmp_path / 'o')!r}]; runpy.run_path({str(ROOT / 'run_blender.py')!r}, run_name='__main__')")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 2
    line = _one_error_line(res.stderr)
    assert "bpy" in line and 'pip install -e ".[standalone]"' in line and "blender -b -P run_blender.py" in line


@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.render
def test_auto_device_says_when_it_falls_back(tmp_path, examples, cli):
    from misigen.render.device import probe_device
    choice = probe_device("auto")
    res = cli("generate", "--structures", examples / "wagner_brd4", "--out", tmp_path / "o", "--dry-run",
              "--tasks", "translation", "--resolution", "256", "256", "--samples", "1")
    assert res.returncode == 0, res.stderr
    device_line = next(l for l in res.stderr.splitlines() if l.startswith("device:"))
    if choice.backend == "CPU":
        assert "no Cycles GPU device found, rendering on the CPU" in device_line
    # The dry run prints the plan and an estimate, and writes nothing.
    assert "translation/test" in res.stdout or "translation/train" in res.stdout
    assert "estimate:" in res.stdout and not (tmp_path / "o").exists()


@pytest.mark.slow      # takes long
def test_dry_run_counts_match_the_planned_dataset(tmp_path, examples, style):
    import io
    from misigen.core.resources import suite_path
    from misigen.pipeline.dry_run import dry_run
    from misigen.pipeline.generate import run_generate
    from misigen.pipeline.run_config import RunConfig
    suite = suite_path("misi_bench")
    inputs = [examples / "wagner_brd4", examples / "1hvi.pdb"]
    text = io.StringIO()
    report = dry_run(RunConfig(inputs, tmp_path / "dry", suite=suite, style=style, split="test", seed=4,
                               render=False), stream=text)
    manifest = run_generate(RunConfig(inputs, tmp_path / "plan", suite=suite, style=style, split="test", seed=4,
                                      render=False, progress=False))
    assert {k: v["qa"] for k, v in report["per_task_split"].items()} == manifest["counts"]["per_task_split"]
    assert report["images"] == manifest["counts"]["images"] and report["qa"] == manifest["counts"]["records"]
    assert "pocket_ligand_interaction/test" in text.getvalue() and not (tmp_path / "dry").exists()
