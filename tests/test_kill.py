"""Kill-safety, shown: SIGKILL a running generate mid-structure, run it again, get the same dataset
as an uninterrupted run; Ctrl-C (SIGINT) stops cleanly with exit 130 and says how to resume."""
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT

pytestmark = [pytest.mark.render, pytest.mark.slow]   # renders with Cycles from run_blender.py subprocesses


def _command(examples, out):
    return [sys.executable, str(ROOT / "run_blender.py"), "generate", "--structures", str(examples / "wagner_brd4"),
            "--out", str(out), "--tasks", "translation,rotation,zooming", "--split", "test", "--seed", "5",
            "--resolution", "256", "256", "--samples", "1", "--device", "cpu", "--no-progress"]


def _interrupt_after_first_new_image(cmd, out, sig, seen=0):
    """Start ``cmd``; send ``sig`` as soon as more than ``seen`` images exist; return the process."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list((out / "images").glob("*.png"))) > seen:
            proc.send_signal(sig)
            break
        time.sleep(0.01)
    proc.wait(timeout=300)
    return proc


def test_sigint_then_sigkill_then_rerun_equals_an_uninterrupted_run(tmp_path, examples):
    out = tmp_path / "interrupted"
    cmd = _command(examples, out)
    proc = _interrupt_after_first_new_image(cmd, out, signal.SIGINT)
    err = proc.stderr.read()
    assert proc.returncode == 130, err
    assert "run the same command again to resume" in err and "Traceback" not in err
    assert not (out / "parts" / "wagner_brd4.jsonl").exists()          # stopped mid-structure
    seen = len(list((out / "images").glob("*.png")))
    proc = _interrupt_after_first_new_image(cmd, out, signal.SIGKILL, seen)
    assert proc.returncode == -signal.SIGKILL
    assert not (out / "parts" / "wagner_brd4.jsonl").exists()          # killed mid-structure
    assert subprocess.run(cmd, capture_output=True).returncode == 0   # the same command finishes the job
    reference = tmp_path / "uninterrupted"
    assert subprocess.run(_command(examples, reference), capture_output=True).returncode == 0
    assert (out / "annotations.jsonl").read_bytes() == (reference / "annotations.jsonl").read_bytes()
    images = sorted(p.name for p in (out / "images").glob("*.png"))
    assert images == sorted(p.name for p in (reference / "images").glob("*.png"))
