"""One run per output folder: an OS-level lock inside --out.

The race test starts two ``generate`` with different seeds at the same instant, 20 times: one
must always be refused (exit 2, one line naming the holder) and the folder must always hold a
single run (its identity, its manifest and every record agree on the seed).
"""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT

from misigen.pipeline.folder_lock import FolderBusy, FolderLock, lock_folder

# Each process imports misigen first, then waits for the go file, so both reach the folder together.
RACER = ("import sys, os, time; sys.path.insert(0, {root!r}); "
         "from misigen.pipeline import cli, generate; "
         "open(sys.argv[1] + '.ready', 'w').close(); "
         "[time.sleep(0.001) for _ in iter(lambda: os.path.exists(sys.argv[1]), True)]; "
         "sys.exit(cli.main(sys.argv[2:]))")


def _racers(tmp_path, examples, out, seeds, extra=()):
    procs = []
    for seed in seeds:
        ready = tmp_path / f"go-{out.name}-{seed}"
        cmd = [sys.executable, "-c", RACER.format(root=str(ROOT / "blender_addon")), str(ready),
               "generate", "--structures", str(examples / "wagner_brd4"), str(examples / "1hvi.pdb"),
               "--out", str(out), "--plan-only", "--tasks", "translation", "--split", "test",
               "--no-audit", "--no-progress", "--seed", str(seed), *extra]
        procs.append((seed, ready, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                     text=True)))
    deadline = time.monotonic() + 120
    while not all(os.path.exists(f"{r}.ready") for _s, r, _p in procs) and time.monotonic() < deadline:
        time.sleep(0.005)
    for _s, ready, _p in procs:                 # as close to one instant as two files allow
        open(ready, "w").close()
    return [(seed, p.wait(timeout=300), p.stdout.read(), p.stderr.read()) for seed, _r, p in procs]


def _single_run(out, references: dict) -> int:
    """The seed the folder is a run of; asserts its identity, its manifest and its records (equal to
    those of an undisturbed run with that seed) agree."""
    identity = json.loads((out / "parts" / "_run.json").read_text())
    manifest = json.loads((out / "manifest.json").read_text())
    seed = identity["seed"]
    assert manifest["seed"] == seed, (manifest["seed"], seed)
    assert (out / "annotations.jsonl").read_bytes() == (references[seed] / "annotations.jsonl").read_bytes(), seed
    return seed


def _references(tmp_path, examples, seeds, extra=()):
    refs = {}
    for seed in seeds:
        refs[seed] = tmp_path / f"reference{seed}"
        [(_s, code, _o, err)] = _racers(tmp_path, examples, refs[seed], (seed,), extra)
        assert code == 0, err
    return refs


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_two_generates_started_together_twenty_times_one_refused_and_one_run(tmp_path, examples):
    references = _references(tmp_path, examples, (0, 1))
    for k in range(20):
        out = tmp_path / f"race{k}"
        results = _racers(tmp_path, examples, out, (0, 1))
        codes = sorted(code for _s, code, _o, _e in results)
        assert codes == [0, 2], (k, results)
        (winner,) = [s for s, code, _o, _e in results if code == 0]
        (refused,) = [e for _s, code, _o, e in results if code == 2]
        assert len(refused.strip().splitlines()) == 1 and "Traceback" not in refused, refused
        assert "in use by pid" in refused and "generate" in refused, refused
        assert _single_run(out, references) == winner


def test_exclusive_lock_refuses_a_second_holder_and_names_it(tmp_path):
    first = lock_folder(tmp_path / "out")
    try:
        with pytest.raises(FolderBusy) as err:
            lock_folder(tmp_path / "out")
        msg = str(err.value)
        assert f"pid {os.getpid()}" in msg and os.uname().nodename in msg and "in use by" in msg
        with pytest.raises(FolderBusy):                 # a shard is refused while a plain run holds it
            lock_folder(tmp_path / "out", shared=True)
    finally:
        first.release()
    lock_folder(tmp_path / "out").release()             # free again once released


def test_shards_share_the_folder_but_a_plain_run_is_refused(tmp_path):
    a, b = lock_folder(tmp_path, shared=True), lock_folder(tmp_path, shared=True)
    try:
        with pytest.raises(FolderBusy):
            lock_folder(tmp_path)
        with a.step():                                   # the steps lock is exclusive among shards
            with open(tmp_path / ".misigen.steps.lock", "rb") as fh:
                import fcntl
                with pytest.raises(BlockingIOError):
                    fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with b.step():
            pass
    finally:
        a.release()
        b.release()


def test_the_lock_is_gone_when_its_holder_is_killed(tmp_path):
    code = (f"import sys, time; sys.path.insert(0, {str(ROOT / 'blender_addon')!r}); "
            "from misigen.pipeline.folder_lock import lock_folder; "
            f"lock_folder({str(tmp_path)!r}); print('locked', flush=True); time.sleep(600)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        with pytest.raises(FolderBusy) as err:
            FolderLock(tmp_path).acquire()
        assert f"pid {proc.pid}" in str(err.value)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    FolderLock(tmp_path).acquire().release()


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_shards_into_one_folder_still_make_one_dataset(tmp_path, examples, cli):
    out = tmp_path / "shared"
    args = ("generate", "--structures", examples / "wagner_brd4", examples / "1hvi.pdb", "--out", out,
            "--plan-only", "--tasks", "translation", "--split", "test", "--no-audit", "--no-progress")
    procs = [subprocess.Popen([sys.executable, str(ROOT / "run_blender.py"), *map(str, args), "--shard", f"{i}/2"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(2)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    assert [c for c, _e in results] == [0, 0], results
    assert _single_run(out, _references(tmp_path, examples, (0,))) == 0
    # a shard with another seed is refused by the identity, checked under the steps lock
    got = cli(*args, "--shard", "0/2", "--seed", "3")
    assert got.returncode == 2 and "different seed" in got.stderr, got.stderr


def test_merge_and_export_take_the_lock_of_their_output_folder(tmp_path, examples):
    from misigen.core.resources import suite_path
    from misigen.core.look.style import load_style
    from misigen.pipeline.exports import run_export
    from misigen.pipeline.generate import run_generate
    from misigen.pipeline.run_config import RunConfig
    from misigen.pipeline.shards import merge_folders, rebuild_folder

    shard = tmp_path / "shard"
    run_generate(RunConfig([examples / "wagner_brd4"], shard, suite=suite_path("misi_bench"),
                           style=load_style("misi_bench"), split="test", tasks=["translation"], render=False,
                           progress=False, audit=False))
    merged, export = tmp_path / "merged", tmp_path / "export"
    for folder, act in ((merged, lambda: merge_folders([shard], merged)), (shard, lambda: rebuild_folder(shard)),
                        (export, lambda: run_export(shard, "sharegpt", export, "all"))):
        held = lock_folder(folder)
        try:
            with pytest.raises(FolderBusy):
                act()
        finally:
            held.release()
        act()                                          # free: it works (and releases its own lock)
        lock_folder(folder).release()
    held = lock_folder(shard)                          # a shard folder being written is not merged
    try:
        with pytest.raises(FolderBusy):
            merge_folders([shard], tmp_path / "merged2")
    finally:
        held.release()
