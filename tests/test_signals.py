"""SIGINT / SIGTERM stop a run cleanly, also while Cycles renders.

A signal during ``bpy.ops.render.render`` ends the run with 130, not a KeyboardInterrupt traceback
from Cycles' wrapper with the run going on to the end and exiting 0.
"""
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT

ADDON = str(ROOT / "blender_addon")


def _block(body: str) -> list:
    return [sys.executable, "-c", f"import sys, os, time; sys.path.insert(0, {ADDON!r}); "
                                  "from misigen.pipeline import signals; signals.install(); "
                                  "signals.set_hint('stopped: run it again')\n" + body]


def test_a_signal_inside_a_short_block_is_raised_when_the_block_ends(tmp_path):
    # time.sleep is C code the handler cannot break into here: the block finishes, then stops the run
    body = ("try:\n"
            "    with signals.rendering():\n"
            "        print('in', flush=True); time.sleep(0.6); print('block finished', flush=True)\n"
            "except KeyboardInterrupt:\n"
            "    print('raised after the block', flush=True); sys.exit(130)\n")
    proc = subprocess.Popen(_block(body), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "in"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert out.split() == ["block", "finished", "raised", "after", "the", "block"], out
    assert "Traceback" not in err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_inside_a_long_block_cuts_it_short_and_removes_its_temp_files(tmp_path, sig):
    temp = tmp_path / ".img.raw.png"
    body = (f"open({str(temp)!r}, 'w').close(); r, w = os.pipe()\n"
            f"with signals.rendering(cleanup=lambda: os.unlink({str(temp)!r})):\n"
            "    print('in', flush=True); os.read(r, 1)\n"   # blocks for ever, as a long Cycles render does
            "print('not reached')\n")
    proc = subprocess.Popen(_block(body), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "in"
    t0 = time.monotonic()
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and time.monotonic() - t0 < 10, (proc.returncode, err)
    assert err.strip() == "stopped: run it again" and "not reached" not in out
    assert not temp.exists()


def test_without_install_a_block_changes_nothing(monkeypatch):
    """The GUI and the API never install the handlers: there a block holds no signal back (Ctrl-C
    stops at once, as Python's own handler does), keeps no cleanup and leaves the handlers as they were."""
    from misigen.pipeline import signals
    monkeypatch.setattr(signals, "_state", signals._State())     # a process that never called install()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        handlers = {sig: signal.getsignal(sig) for sig in signals.STOP_SIGNALS}
        cleaned, after_signal = [], []
        with pytest.raises(KeyboardInterrupt):
            with signals.rendering(cleanup=lambda: cleaned.append(True)):
                assert signals._state.depth == 0 and signals._state.cleanups == []
                signal.raise_signal(signal.SIGINT)
                after_signal.append(True)
        assert after_signal == [] and cleaned == []
        assert signals._state.pending is None and signals._state.depth == 0
        assert {sig: signal.getsignal(sig) for sig in signals.STOP_SIGNALS} == handlers
    finally:
        signal.signal(signal.SIGINT, previous)


def _generate(examples, out, *extra, structures=("wagner_brd4",)):
    return [sys.executable, str(ROOT / "run_blender.py"), "generate",
            "--structures", *[str(examples / s) for s in structures], "--out", str(out),
            "--tasks", "translation", "--split", "test", "--seed", "5", "--resolution", "192", "192",
            "--samples", "1024", "--device", "cpu", "--no-progress", "--no-audit", *extra]


def _signal_during_second_render(cmd, out, sig):
    """Send ``sig`` just after the first image exists: the second render is running. At 1024 samples it
    lasts several seconds, well past the signal module's grace second, so it is cut short rather than
    allowed to finish."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline, t_sig = time.monotonic() + 300, None
    while time.monotonic() < deadline and proc.poll() is None:
        if list((out / "images").glob("*.png")):
            time.sleep(0.3)
            proc.send_signal(sig)
            t_sig = time.monotonic()
            break
        time.sleep(0.01)
    _out, err = proc.communicate(timeout=300)
    assert t_sig is not None, err
    return proc.returncode, time.monotonic() - t_sig, err


def _assert_stopped_cleanly(code, seconds, err, out):
    assert code == 130, err
    assert seconds < 4, seconds                      # not the rest of the structure (~6 s an image)
    assert "run the same command again to resume" in err, err
    for bad in ("Traceback", "ReferenceError", "Not freed", "KeyboardInterrupt"):
        assert bad not in err, err
    assert len(list((out / "images").glob("*.png"))) == 1      # the render under way was abandoned
    finished = [p.name for p in (out / "parts").glob("*.jsonl")
                if not p.name.startswith("_") and not p.name.endswith(".failures.jsonl")]
    assert finished == []                                       # so was its structure
    hidden = sorted(p.name for p in out.rglob(".*") if p.is_file() and not p.name.startswith(".misigen"))
    assert hidden == [], hidden


@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.render
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_during_a_cycles_render_exits_130_at_once(tmp_path, examples, sig):
    out = tmp_path / "out"
    code, seconds, err = _signal_during_second_render(_generate(examples, out), out, sig)
    _assert_stopped_cleanly(code, seconds, err, out)


@pytest.mark.slow      # runs run_blender.py in a subprocess
@pytest.mark.render
def test_sigint_while_a_worker_renders_stops_the_worker_too(tmp_path, examples):
    out = tmp_path / "out"
    cmd = _generate(examples, out, "--workers", "1", "--structures-per-worker", "1",
                    structures=("wagner_brd4", "1hvi.pdb"))          # 2 units > 1 per worker: a worker pool
    code, seconds, err = _signal_during_second_render(cmd, out, signal.SIGINT)
    _assert_stopped_cleanly(code, seconds, err, out)
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert not [line for line in ps.splitlines() if ADDON in line and "worker_main" in line], ps


@pytest.mark.render
def test_sigint_while_planning_processes_feed_the_renderer_stops_them_too(tmp_path, examples):
    out = tmp_path / "out"
    cmd = _generate(examples, out, "--planners", "2", structures=("wagner_brd4", "1hvi.pdb"))
    code, seconds, err = _signal_during_second_render(cmd, out, signal.SIGINT)
    _assert_stopped_cleanly(code, seconds, err, out)
    time.sleep(1.0)                               # they follow their renderer within a moment
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert not [line for line in ps.splitlines() if "planner_main" in line], ps
