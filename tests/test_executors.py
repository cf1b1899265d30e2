"""Executors: the same annotations from 1 process, 2 workers, Ray and 3 shard folders merged;
workers that die are replaced and their unit retried; merge refuses shards of different runs."""
import json
import os
import shutil
import threading
import time

import pytest

from misigen.pipeline.executors import WorkerPool
from misigen.pipeline.generate import prepare_run, run_generate
from misigen.pipeline.run_config import RunConfig
from misigen.pipeline.shards import merge_folders
from misigen.pipeline.validate import validate_dataset

TASKS = ["translation", "zooming"]


@pytest.fixture(scope="module")
def suite():
    from misigen.core.resources import suite_path
    return suite_path("misi_bench")


@pytest.fixture(scope="module")
def inputs(examples):
    return [examples / "wagner_brd4", examples / "1hvi.pdb"]


def _gen(out, inputs, suite, style, **kw):
    return run_generate(RunConfig(inputs, out, suite=suite, style=style, split="test", seed=11, tasks=TASKS,
                                  device="cpu", progress=False, **kw))


@pytest.fixture(scope="module")
def reference(tmp_path_factory, inputs, suite, fast_style):
    out = tmp_path_factory.mktemp("one_process")
    manifest = _gen(out, inputs, suite, fast_style)
    assert manifest["this_run"]["executor"] == "in-process"
    return out


@pytest.mark.render
def test_reference_run_is_valid(reference):
    assert validate_dataset(reference) == []
    assert len((reference / "annotations.jsonl").read_bytes().splitlines()) >= 6


@pytest.mark.render
def test_two_workers_give_the_same_annotations(tmp_path, reference, inputs, suite, fast_style):
    manifest = _gen(tmp_path / "w2", inputs, suite, fast_style, workers=2)
    assert manifest["this_run"]["executor"] == "worker pool" and manifest["this_run"]["done"] == 2
    assert (tmp_path / "w2" / "annotations.jsonl").read_bytes() == (reference / "annotations.jsonl").read_bytes()
    assert validate_dataset(tmp_path / "w2") == []
    # one process plans each structure while the one before renders (the first renders task by task as
    # planning hands them over) and writes the sidecars planning made; workers plan, then render
    ours = {p.name: p.read_bytes() for p in (reference / "images").glob("*.json")}
    theirs = {p.name: p.read_bytes() for p in (tmp_path / "w2" / "images").glob("*.json")}
    assert ours and ours == theirs
    assert sorted(p.name for p in (reference / "images").glob("*.png")) == \
        sorted(p.name for p in (tmp_path / "w2" / "images").glob("*.png"))


@pytest.mark.render
def test_ray_gives_the_same_annotations(tmp_path, reference, inputs, suite, fast_style):
    """A real local Ray instance; workers return their files and this process writes them."""
    import ray  # noqa: F401  (installed by the test extra)
    out = tmp_path / "ray"
    manifest = _gen(out, inputs, suite, fast_style, executor="ray",
                    ray_options={"transfer": "driver", "local_cpus": 2})
    assert manifest["this_run"]["executor"] == "ray" and manifest["this_run"]["done"] == 2
    assert (out / "annotations.jsonl").read_bytes() == (reference / "annotations.jsonl").read_bytes()
    assert validate_dataset(out) == []
    assert not list((out / "parts").glob(".run-*"))          # the shared-disk marker is gone


@pytest.mark.render
def test_three_shard_folders_merged_give_the_same_annotations(tmp_path, reference, inputs, suite, fast_style):
    shards = [tmp_path / f"shard{i}" for i in range(3)]
    for i, folder in enumerate(shards):
        _gen(folder, inputs, suite, fast_style, shard=(i, 3))
    merged = merge_folders(shards, tmp_path / "merged")
    assert (tmp_path / "merged" / "annotations.jsonl").read_bytes() == (reference / "annotations.jsonl").read_bytes()
    assert merged["structures_missing"] == [] and merged["counts"]["structures"] == 2
    assert validate_dataset(tmp_path / "merged") == []
    # The shard folders are untouched (images were linked, not moved).
    assert all((s / "annotations.jsonl").exists() for s in shards)


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_merge_refuses_shards_of_different_runs(tmp_path, inputs, suite, fast_style, cli):
    a, b = tmp_path / "a", tmp_path / "b"
    run_generate(RunConfig(inputs, a, suite=suite, style=fast_style, split="test", seed=1, tasks=TASKS,
                           render=False, progress=False, shard=(0, 2)))
    run_generate(RunConfig(inputs, b, suite=suite, style=fast_style, split="test", seed=2, tasks=TASKS,
                           render=False, progress=False, shard=(1, 2)))
    res = cli("merge", a, b, "--out", tmp_path / "m")
    assert res.returncode == 2 and "seed" in res.stderr and str(b) in res.stderr
    assert not (tmp_path / "m").exists()
    # A shard missing from the merge is reported, with its own exit code.
    res = cli("merge", a, "--out", tmp_path / "half")
    assert res.returncode == 3 and "incomplete" in res.stderr


@pytest.mark.slow      # takes long
def test_a_worker_that_dies_is_replaced_and_its_unit_retried(tmp_path, inputs, suite, fast_style):
    """SIGKILL the first worker while it works; the pool starts another and finishes every unit."""
    out = tmp_path / "crash"
    out.mkdir()
    setup = prepare_run(RunConfig(inputs, out, suite=suite, style=fast_style, split="test", tasks=TASKS, seed=11,
                                  device="cpu", render=False))
    pool = WorkerPool(1, per_worker=10)
    results, killed = [], []

    def kill_first_worker():
        for _ in range(600):
            for pid in _children_running("worker_main"):
                time.sleep(0.3)                                # let it start on its unit
                os.kill(pid, 9)
                killed.append(pid)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_first_worker)
    killer.start()
    pool.run([s.id for s in setup.mine], setup.ctx, results.append)
    killer.join()
    assert killed and pool.started >= 2
    assert sorted(r.structure for r in results) == ["1hvi", "wagner_brd4"]
    assert all(r.status == "done" for r in results)


def _children_running(marker: str) -> list:
    """Live child processes of this one whose command line contains ``marker`` (Linux /proc)."""
    me, found = str(os.getpid()), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
            cmd = open(f"/proc/{entry}/cmdline", "rb").read().decode(errors="replace")
        except OSError:
            continue
        ppid = stat.rsplit(")", 1)[1].split()[1]
        if ppid == me and marker in cmd and stat.rsplit(")", 1)[1].split()[0] != "Z":
            found.append(int(entry))
    return found


@pytest.mark.slow      # takes long
def test_a_unit_that_raises_is_recorded_and_retried_on_rerun(tmp_path, inputs, suite, fast_style, monkeypatch):
    import misigen.pipeline.unit as unit
    out = tmp_path / "bug"
    real = unit.plan_unit

    def flaky(source, *a, **kw):          # planning runs on the planner thread: its error is the unit's
        if source.id == "1hvi":
            raise RuntimeError("simulated bug")
        return real(source, *a, **kw)

    monkeypatch.setattr(unit, "plan_unit", flaky)
    manifest = run_generate(RunConfig(inputs, out, suite=suite, style=fast_style, split="test", seed=11,
                                      tasks=TASKS, render=False, progress=False))
    assert manifest["this_run"]["failed"] == 1
    fails = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert any(f["structure"] == "1hvi" and "simulated bug" in f["why"] for f in fails)
    monkeypatch.setattr(unit, "plan_unit", real)
    again = run_generate(RunConfig(inputs, out, suite=suite, style=fast_style, split="test", seed=11, tasks=TASKS,
                                   render=False, progress=False))
    assert again["this_run"]["structures"] == 1 and again["this_run"]["done"] == 1
    assert not any("simulated bug" in line for line in (out / "failures.jsonl").read_text().splitlines())
    shutil.rmtree(out)


@pytest.mark.slow      # takes long
def test_each_worker_is_replaced_after_its_quota(tmp_path, inputs, suite, fast_style):
    """--structures-per-worker 1: every unit gets a fresh process (bounded memory per process)."""
    out = tmp_path / "quota"
    out.mkdir()
    setup = prepare_run(RunConfig(inputs, out, suite=suite, style=fast_style, split="test", tasks=TASKS, seed=11,
                                  device="cpu", render=False))
    pool, results = WorkerPool(1, per_worker=1), []
    pool.run([s.id for s in setup.mine], setup.ctx, results.append)
    assert pool.started == 2 and [r.status for r in results] == ["done", "done"]
