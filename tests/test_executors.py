"""Executors: the same annotations from 1 process, planning processes, 2 workers, Ray and 3 shard
folders merged (every file byte for byte where the run is the same); workers that die are replaced
and their units retried; merge refuses shards of different runs."""
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


def _run(suite, inputs, out, style, **kw):
    """``run_generate`` of these settings (keyword arguments as RunConfig's)."""
    return run_generate(RunConfig(inputs, out, suite=suite, style=style, **kw))


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
    real = unit.UnitPlanning.samples_of

    def flaky(self, index):               # planning runs on the planner thread: its error is the unit's
        if self.source.id == "1hvi":
            raise RuntimeError("simulated bug")
        return real(self, index)

    monkeypatch.setattr(unit.UnitPlanning, "samples_of", flaky)
    manifest = run_generate(RunConfig(inputs, out, suite=suite, style=fast_style, split="test", seed=11,
                                      tasks=TASKS, render=False, progress=False))
    assert manifest["this_run"]["failed"] == 1
    fails = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert any(f["structure"] == "1hvi" and "simulated bug" in f["why"] for f in fails)
    monkeypatch.setattr(unit.UnitPlanning, "samples_of", real)
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


# ------------------------------------------------------------------ planning processes
def _files(folder) -> dict:
    """Every file a run wrote, by path, except the manifest (it holds this run's timings and executor)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != "manifest.json" and not p.name.startswith(".misigen")}


def _same_files(a, b) -> None:
    ours, theirs = _files(a), _files(b)
    assert sorted(ours) == sorted(theirs)
    assert [name for name in ours if ours[name] != theirs[name]] == []


@pytest.mark.slow      # takes long
@pytest.mark.parametrize("split", [dict(planners=2), dict(workers=2, planners=1)])
def test_planning_processes_write_the_same_files(tmp_path, inputs, suite, fast_style, split):
    """Plan-only, every task of the suite: the files of one helper thread and of planning processes
    (their tasks spread over them, each task handed back in any order) are the same, byte for byte."""
    runs = {}
    for name, kw in (("thread", dict(planners=0)), ("split", split)):
        out = tmp_path / name
        runs[name] = _run(suite, inputs, out, fast_style, split="test", seed=3, render=False, progress=False,
                          audit=False, **kw)
    assert runs["split"]["this_run"]["planners"] == split["planners"]
    assert runs["thread"]["this_run"]["planners"] == 0 and runs["thread"]["counts"]["records"] > 20
    _same_files(tmp_path / "thread", tmp_path / "split")


@pytest.fixture(scope="module")
def small_style(fast_style):
    import copy
    style = copy.deepcopy(fast_style)
    style["render"]["resolution"] = [128, 128]
    return style


@pytest.mark.render
def test_planning_processes_render_the_same_files(tmp_path, inputs, suite, small_style):
    """A real render at 128²: sidecars, PNGs (names and bytes), parts and annotations of one helper
    thread, two planning processes and two workers (each with a planning process) are the same."""
    for name, kw in (("thread", dict(planners=0)), ("planners", dict(planners=2)),
                     ("workers", dict(workers=2, planners=1))):
        manifest = _gen(tmp_path / name, inputs, suite, small_style, audit=False, **kw)
        assert manifest["this_run"]["done"] == 2 and manifest["this_run"]["images_rendered"] > 0
    assert list((tmp_path / "thread" / "images").glob("*.png"))
    _same_files(tmp_path / "thread", tmp_path / "planners")
    _same_files(tmp_path / "thread", tmp_path / "workers")


BUG = ('        if self.sid == "1hvi":\n'
       '            raise RuntimeError("simulated bug")\n')
HANG = ('        import os, pathlib, time\n'
        '        if self.sid == "1hvi" and os.environ.get("MISIGEN_TEST_HANG"):\n'
        '            pathlib.Path(os.environ["MISIGEN_TEST_HANG"]).write_text("planning")\n'
        '            time.sleep(120)\n')


def _plugin_suite(folder, examples_root, setup_code: str, name: str):
    """A suite of translation and a plugin task ``name`` (the bundled example's, renamed: the
    registry is one per process) whose planner's setup begins with ``setup_code``."""
    src = examples_root.parent.parent / "examples" / "custom_task"
    folder.mkdir()
    code = (src / "nearer_atom.py").read_text().replace('TaskType("nearer_atom"', f'TaskType("{name}"')
    code = code.replace("    def setup(self):\n", "    def setup(self):\n" + setup_code, 1)
    (folder / f"{name}.py").write_text(code)
    (folder / "nearer_atom.txt").write_text((src / "nearer_atom.txt").read_text())
    (folder / f"{name}.yaml").write_text((src / "nearer_atom.yaml").read_text()
                                         .replace("task: nearer_atom", f"task: {name}"))
    translation = examples_root.parent.parent / "task_specs" / "translation.yaml"
    (folder / "suite.yaml").write_text(f"name: planning_{name}\nmodules:\n  - {name}.py\n"
                                       f"tasks:\n  - {translation}\n  - {name}.yaml\n")
    return folder / "suite.yaml"


@pytest.mark.slow      # takes long
def test_a_planning_error_in_a_planning_process_is_its_units_failure(tmp_path, inputs, examples, fast_style):
    """The error is raised in another process: it is still that unit's one failure line, the same
    as when the helper thread plans it, and the other unit is done."""
    suite = _plugin_suite(tmp_path / "suite", examples, BUG, "nearer_atom_bug")
    for name, planners in (("thread", 0), ("processes", 2)):
        manifest = _run(suite, inputs, tmp_path / name, fast_style, split="test", seed=11, render=False,
                        progress=False, audit=False, planners=planners)
        assert manifest["this_run"]["done"] == 1 and manifest["this_run"]["failed"] == 1
        fails = [json.loads(line) for line in (tmp_path / name / "failures.jsonl").read_text().splitlines()]
        assert {"structure": "1hvi", "task": None, "sample": None,
                "why": "unit failed: RuntimeError: simulated bug"} in fails
        records = [json.loads(line) for line in (tmp_path / name / "annotations.jsonl").read_text().splitlines()]
        assert records and {r["structure"] for r in records} == {"wagner_brd4"}
    _same_files(tmp_path / "thread", tmp_path / "processes")


@pytest.mark.slow      # takes long
def test_a_planning_process_that_dies_fails_its_unit_and_is_replaced(tmp_path, inputs, examples, fast_style,
                                                                      monkeypatch):
    """SIGKILL the planning process while it plans 1hvi: that unit gets one failure line, a new
    planning process plans the rest, and the same command run again completes the dataset."""
    suite = _plugin_suite(tmp_path / "suite", examples, HANG, "nearer_atom_hang")
    out, marker = tmp_path / "planner_killed", tmp_path / "planning-1hvi"
    monkeypatch.setenv("MISIGEN_TEST_HANG", str(marker))
    killed = []

    def kill_the_planner_on_1hvi():
        for _ in range(3000):
            if marker.exists():
                for pid in _children_running("planner_main"):
                    os.kill(pid, 9)
                    killed.append(pid)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_the_planner_on_1hvi)
    killer.start()
    kw = dict(split="test", seed=11, render=False, progress=False, audit=False)
    first = _run(suite, inputs, out, fast_style, planners=1, **kw)
    killer.join()
    assert len(killed) == 1
    fails = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert [f["structure"] for f in fails if "planning process died (exit code -9)" in f["why"]] == ["1hvi"]
    assert first["this_run"]["failed"] == 1 and first["this_run"]["done"] == 1
    monkeypatch.delenv("MISIGEN_TEST_HANG")
    again = _run(suite, inputs, out, fast_style, planners=1, **kw)
    assert again["this_run"]["structures"] == 1 and again["this_run"]["done"] == 1
    _run(suite, inputs, tmp_path / "reference", fast_style, planners=0, **kw)
    _same_files(tmp_path / "reference", out)
