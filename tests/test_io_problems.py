"""Every input and output problem is one line.

A chmod-000 file or an unlistable folder under --structures is one failure line and the batch goes
on (generate, render, interactions); an --out that is a file, on a read-only file system, under
/proc or on a full disk is one line, not a traceback; a full disk leaves nothing half written and a
resume removes an earlier run's ``*.tmp`` files; ``fov_deg: 0`` is refused, naming the preset (it
would render black with NaN in the sidecar); ``--views sideways`` / ``--views ''`` / ``--transform
'move q 3'`` are refused before anything is loaded; ``--resolution 10000`` is blamed on the option
or the preset that sets it.
"""
import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT

RUN = [sys.executable, str(ROOT / "run_blender.py")]
PLAN = ("--plan-only", "--tasks", "translation", "--split", "test", "--no-audit", "--no-progress")


def _one_line_error(proc, code):
    err = proc.stderr.strip()
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and len(err.splitlines()) == 1, proc.stderr
    return err


def _as_other_user(cmd, home):
    """As root, permissions do not apply: run as nobody (setpriv) so chmod 000 means something."""
    if os.geteuid() != 0:
        return cmd, None
    if not shutil.which("setpriv"):
        pytest.fail("running as root without setpriv: cannot demonstrate unreadable files")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cmd], dict(os.environ, HOME=str(home))


@pytest.fixture
def shared_tmp():
    """A folder another user can work in (pytest's tmp_path is private to its owner)."""
    path = Path(tempfile.mkdtemp(prefix="misigen-io-"))
    path.chmod(0o777)
    yield path
    for p in [path, *path.rglob("*")]:
        try:
            p.chmod(0o777)
        except OSError:
            pass
    shutil.rmtree(path, ignore_errors=True)


def _inputs_with_unreadable(root: Path, examples) -> Path:
    inputs = root / "in"
    (inputs / "sub").mkdir(parents=True)
    shutil.copytree(examples / "wagner_brd4", inputs / "wagner_brd4")
    shutil.copy(examples / "1hvi.pdb", inputs / "1hvi.pdb")
    shutil.copy(examples / "1hvi.pdb", inputs / "locked.pdb")
    shutil.copy(examples / "1hvi.pdb", inputs / "sub" / "hidden.pdb")
    for p in inputs.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    inputs.chmod(0o755)
    (inputs / "locked.pdb").chmod(0o000)
    (inputs / "sub").chmod(0o000)
    return inputs


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_unreadable_file_and_folder_are_recorded_and_the_batch_goes_on(shared_tmp, examples):
    inputs = _inputs_with_unreadable(shared_tmp, examples)
    out = shared_tmp / "out"
    cmd, env = _as_other_user([*RUN, "generate", "--structures", str(inputs), "--out", str(out), *PLAN], shared_tmp)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 3 and "Traceback" not in proc.stderr, proc.stderr
    done = {json.loads(line)["structure"] for line in (out / "annotations.jsonl").read_text().splitlines()}
    assert done == {"wagner_brd4", "1hvi"}
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    unreadable = {Path(f["where"]).name: f["why"] for f in failures if f.get("kind") == "unreadable"}
    assert set(unreadable) == {"locked.pdb", "sub"}, failures
    assert all("Permission denied" in why for why in unreadable.values())
    assert f"{inputs / 'locked.pdb'}: file cannot be read (Permission denied)" in proc.stderr


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_interactions_on_an_unreadable_file_is_one_line(shared_tmp, examples):
    inputs = _inputs_with_unreadable(shared_tmp, examples)
    cmd, env = _as_other_user([*RUN, "interactions", str(inputs / "locked.pdb")], shared_tmp)
    err = _one_line_error(subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300), 2)
    assert err == f"error: {inputs / 'locked.pdb'}: file cannot be read (Permission denied)"


@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.render
def test_render_records_an_unreadable_file_and_renders_the_others(shared_tmp, examples):
    inputs = _inputs_with_unreadable(shared_tmp, examples)
    out = shared_tmp / "rout"
    cmd, env = _as_other_user([*RUN, "render", "--structures", str(inputs / "1hvi.pdb"), str(inputs / "locked.pdb"),
                               "--out", str(out), "--resolution", "32", "32", "--samples", "1", "--device", "cpu"],
                              shared_tmp)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 3 and "Traceback" not in proc.stderr, proc.stderr
    assert len(list((out / "images").glob("*.png"))) == 1
    (line,) = (out / "failures.jsonl").read_text().splitlines()
    assert json.loads(line)["where"] == str(inputs / "locked.pdb")


# ------------------------------------------------------------------ bad --out
def _generate(examples, out, *extra):
    return subprocess.run([*RUN, "generate", "--structures", str(examples / "wagner_brd4"),
                           str(examples / "1hvi.pdb"), "--out", str(out), *PLAN, *extra],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_an_out_that_is_a_file_or_cannot_be_made_is_one_line_before_work(tmp_path, examples, cli):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    err = _one_line_error(_generate(examples, a_file), 2)
    assert err == f"error: {a_file}: is a file, not a folder; give a folder for --out"
    err = _one_line_error(_generate(examples, "/proc/misigen-out"), 2)
    assert err.startswith("error: /proc/misigen-out: cannot be created")
    err = _one_line_error(cli("render", "--structures", examples / "1hvi.pdb", "--out", a_file), 2)
    assert "is a file, not a folder" in err


def _mount_tmpfs(path: Path, options: str) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        return False
    return subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
                          capture_output=True).returncode == 0


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_a_read_only_out_is_one_line_before_work(tmp_path, examples):
    ro = tmp_path / "ro"
    if _mount_tmpfs(ro, "size=1m,ro"):
        try:
            err = _one_line_error(_generate(examples, ro / "out"), 2)
            assert err == f"error: {ro / 'out'}: cannot be created (Read-only file system)"
            err = _one_line_error(_generate(examples, ro), 2)
            assert err == f"error: {ro}: is not writable"
        finally:
            subprocess.run(["umount", str(ro)])
    elif os.geteuid() != 0:                          # as a user, a folder without write permission
        ro.chmod(0o555)
        err = _one_line_error(_generate(examples, ro), 2)
        assert err == f"error: {ro}: is not writable"
    else:
        pytest.fail("root without mount: cannot make a read-only folder")


def _whole_and_clean(out: Path):
    """Nothing half-written: no temp file, every JSON file parses."""
    temps = [p.name for p in out.rglob(".*") if p.is_file() and not p.name.startswith(".misigen")]
    assert temps == [], temps
    for p in out.rglob("*.json*"):
        text = p.read_text()
        lines = text.splitlines() if p.suffix == ".jsonl" else [text]
        for line in lines:
            if line.strip():
                json.loads(line)


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_a_full_disk_mid_run_is_one_line_exit_1_and_nothing_half_written(tmp_path, examples):
    full = tmp_path / "full"
    if not _mount_tmpfs(full, "size=16k"):
        pytest.fail("needs root and tmpfs to fill a disk; see the injected test below")
    try:
        err = _one_line_error(_generate(examples, full / "out"), 1)
        assert "No space left on device" in err and "run the same command again" in err, err
        _whole_and_clean(full / "out")
    finally:
        subprocess.run(["umount", str(full)])


def test_an_injected_enospc_at_the_write_layer_stops_the_run_with_nothing_half_written(tmp_path, examples,
                                                                                        monkeypatch):
    from misigen.core.resources import suite_path
    from misigen.core.look.style import load_style
    from misigen.pipeline import output
    from misigen.pipeline.generate import run_generate
    from misigen.pipeline.run_config import RunConfig

    real_fsync, calls = os.fsync, []

    def fsync(fd):
        calls.append(fd)
        if len(calls) == 4:                           # the 4th atomic write finds the disk full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(output.os, "fsync", fsync)
    with pytest.raises(output.OutputError) as err:
        run_generate(RunConfig([examples / "wagner_brd4", examples / "1hvi.pdb"], tmp_path / "out",
                               suite=suite_path("misi_bench"), style=load_style("misi_bench"), split="test",
                               tasks=["translation"], render=False, progress=False, audit=False))
    assert "No space left on device" in str(err.value)
    _whole_and_clean(tmp_path / "out")


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_temp_files_of_an_earlier_run_are_removed_on_resume(tmp_path, examples):
    out = tmp_path / "out"
    assert _generate(examples, out).returncode == 0
    stray = [out / "parts" / ".1hvi.jsonl.tmp4242", out / ".annotations.jsonl.tmp7", out / "images" / ".x.raw.png",
             out / "images" / ".x.tmp.png"]
    for p in stray:
        p.parent.mkdir(exist_ok=True)
        p.write_bytes(b"half")
    assert _generate(examples, out).returncode == 0
    assert [p for p in stray if p.exists()] == []


# ------------------------------------------------------------------ values checked before work
@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.parametrize("args, message", [
    (("--views", "sideways"), "error: --views: unknown view 'sideways' (known: front, left, right, top, bottom, back)"),
    (("--views", ""), "error: --views: give at least one of front, left, right, top, bottom, back"),
    (("--transform", "move q 3"), "error: --transform: not a command (expected 'move|roll x|y|z NUMBER'): 'move q 3'"),
])
def test_render_views_and_transform_are_checked_before_loading(tmp_path, examples, cli, args, message):
    err = _one_line_error(cli("render", "--structures", examples / "1hvi.pdb", "--out", tmp_path / "o", *args), 2)
    assert err == message
    assert not (tmp_path / "o").exists()                     # nothing loaded, nothing written


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_preset_values_are_range_checked_and_blamed_on_their_source(tmp_path, examples, cli):
    for fov in (0, 180, -5):
        preset = tmp_path / f"fov{fov}.yaml"
        preset.write_text(f"camera:\n  fov_deg: {fov}\n")
        err = _one_line_error(cli("generate", "--structures", examples / "1hvi.pdb", "--out", tmp_path / "o",
                                  "--scene", preset, *PLAN), 2)
        assert err == f"error: {preset}: camera.fov_deg must be in (0.0, 180.0), got {fov}"
    got = cli("render", "--structures", examples / "1hvi.pdb", "--out", tmp_path / "o", "--resolution", "10000", "10")
    assert got.returncode == 2 and "Traceback" not in got.stderr             # argparse: usage, then one line
    assert got.stderr.strip().splitlines()[-1].endswith("argument --resolution: must be between 16 and 8192, "
                                                        "got 10000"), got.stderr
    preset = tmp_path / "big.yaml"
    preset.write_text("render:\n  resolution: [10000, 512]\n")
    from misigen.core.errors import InputError
    from misigen.core.look.style import load_style
    with pytest.raises(InputError) as exc:
        load_style(preset)
    assert exc.value.path == str(preset) and "render.resolution" in exc.value.problem
    load_style(preset, {"render": {"resolution": [512, 512]}})       # the command line's value is fine
