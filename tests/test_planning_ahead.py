"""Planners (a helper thread, or planning processes) plan the structures ahead while the renderer
renders what they hand over, task by task: a render failing meanwhile is that structure's failure
and the run goes on; the caches behind it (structures read, shown atoms) never hand back stale data;
the feed hands every task over once, in any spread over its planners."""
import json
import shutil

import pytest

from misigen.core.structure.loader import discover
from misigen.core.scene.scene_plan import shown_structure
from misigen.pipeline import unit
from misigen.pipeline.generate import run_generate
from misigen.pipeline.run_config import RunConfig

TASKS = ["translation", "zooming"]


@pytest.mark.render
@pytest.mark.parametrize("broken, fine, planners", [
    ("1hvi", "wagner_brd4", 0),      # the first: rendered as it is planned
    ("wagner_brd4", "1hvi", 0),      # the second: planned while 1hvi renders
    ("1hvi", "wagner_brd4", 2)])     # planned in other processes: the render is still this one's
def test_a_render_failing_is_its_structures_failure_and_the_run_goes_on(tmp_path, examples, fast_style,
                                                                        monkeypatch, broken, fine, planners):
    from misigen.core.resources import suite_path
    from misigen.render.renderer import SceneRenderer

    real = SceneRenderer.render_raw

    def broken_for_one(self, cam, mats, out_png, parts=("protein", "ligand")):
        if self.shown.id == broken:
            raise RuntimeError("simulated render failure")
        return real(self, cam, mats, out_png, parts)

    monkeypatch.setattr(SceneRenderer, "render_raw", broken_for_one)
    out = tmp_path / "out"
    manifest = run_generate(RunConfig([examples / "wagner_brd4", examples / "1hvi.pdb"], out,
                                      suite=suite_path("misi_bench"), style=fast_style, split="test", seed=11,
                                      tasks=TASKS, device="cpu", progress=False, planners=planners))
    run = manifest["this_run"]
    assert run["executor"] == "in-process" and run["done"] == 1 and run["failed"] == 1
    fails = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert any(f["structure"] == broken and "simulated render failure" in f["why"] for f in fails)
    records = [json.loads(line) for line in (out / "annotations.jsonl").read_text().splitlines()]
    assert records and {r["structure"] for r in records} == {fine}
    assert not list((out / "images").glob(f"{broken}_*"))      # nothing half-written of the failed one
    assert not list((out / "images").glob(".*"))
    shutil.rmtree(out)


def test_a_structure_read_again_is_the_same_until_its_file_changes(tmp_path, examples):
    pdb = tmp_path / "1hvi.pdb"
    shutil.copy(examples / "1hvi.pdb", pdb)
    source = discover([pdb])[0]
    first = unit.load_cached(source)
    assert unit.load_cached(source) is first
    text = pdb.read_text()
    pdb.write_text(text.replace("END", "REMARK 999 changed\nEND", 1))       # another size and time
    again = unit.load_cached(source)
    assert again is not first and again.n_atoms == first.n_atoms


def test_the_shown_atoms_kept_belong_to_their_structure_and_selection(examples, style):
    source = discover([examples / "1hvi.pdb"])[0]
    a = unit.load_structure(source)
    b = unit.load_structure(source)          # equal content, another object
    pocket = shown_structure(a, style)
    assert shown_structure(a, style) is pocket
    assert shown_structure(b, style) is not pocket and shown_structure(b, style).n_atoms == pocket.n_atoms
    ligand_only = shown_structure(a, style, ("ligand",))
    assert ligand_only is not pocket and 0 < ligand_only.n_atoms < pocket.n_atoms
    wider = dict(style, selection=dict(style["selection"], pocket_cutoff=style["selection"]["pocket_cutoff"] + 4))
    assert shown_structure(a, wider).n_atoms > pocket.n_atoms


class _Planner:
    home = None


def test_a_planner_keeps_to_its_unit_and_helps_with_the_last_tasks_of_the_earliest():
    from misigen.pipeline.planners import Schedule
    from misigen.pipeline.unit import PlannedTask

    schedule = Schedule(tasks=4, ahead=2)
    for sid in ("a", "b", "c"):
        schedule.add(sid)
    p, q, r = _Planner(), _Planner(), _Planner()
    a0, b0 = schedule.next_for(p), schedule.next_for(q)
    assert (a0[:2], b0[:2]) == (("a", 0), ("b", 0))          # each starts a unit with its task 0
    assert schedule.next_for(r) is None     # two units ahead, neither read yet: nothing to help with
    schedule.accept(a0[2], PlannedTask("a", 0))
    assert schedule.next_for(p)[:2] == ("a", 1)               # its own unit, in order
    assert schedule.next_for(r)[:2] == ("a", 3)               # helps with a's last task
    assert schedule.take("a") == ([PlannedTask("a", 0)], False)
    assert schedule.take("a") is None                         # nothing new since
    for index in (1, 2, 3):
        schedule.accept(a0[2], PlannedTask("a", index))
    batch, complete = schedule.take("a")
    assert complete and sorted(t.index for t in batch) == [1, 2, 3]
    schedule.release("a")
    c0 = schedule.next_for(r)
    assert c0[:2] == ("c", 0)                                 # a's place went to the next unit
    schedule.accept(b0[2], PlannedTask("b", 0, unreadable=True))
    assert schedule.take("b") == ([PlannedTask("b", 0, unreadable=True)], True)   # b ended at once
    assert schedule.next_for(q) is None                       # c is not read yet
    schedule.accept(c0[2], PlannedTask("c", 0))
    assert schedule.next_for(q)[:2] == ("c", 3)


def test_a_task_of_a_unit_that_ended_is_dropped():
    from misigen.pipeline.planners import Schedule
    from misigen.pipeline.unit import PlannedTask

    schedule = Schedule(tasks=3, ahead=1)
    schedule.add("a")
    p = _Planner()
    ticket = schedule.next_for(p)[2]
    schedule.accept(ticket, PlannedTask("a", 0))
    schedule.accept(ticket, PlannedTask("a", 1, crash="unit failed: RuntimeError: x"))
    schedule.accept(ticket, PlannedTask("a", 2))              # planned meanwhile: the unit already ended
    batch, complete = schedule.take("a")
    assert complete and [t.index for t in batch] == [0, 1]
    schedule.release("a")
    schedule.add("a")                                         # the same unit again (a retry): a new ticket
    assert schedule.next_for(p)[2] != ticket
    schedule.accept(ticket, PlannedTask("a", 0))              # a stale answer is not this round's
    assert schedule.take("a") is None


def test_auto_plans_on_a_thread_beside_cycles_on_the_cpu_and_on_every_other_core_beside_a_gpu():
    import os

    from misigen.pipeline.planners import planners_for

    assert planners_for("auto", gpu=False, cores=16) == 0          # Cycles takes every core
    if os.name == "posix":
        assert planners_for("auto", gpu=True, cores=16) == 15
        assert planners_for("auto", gpu=True, cores=1) == 1
        assert planners_for(3, gpu=False) == 3
    assert planners_for(0, gpu=True) == 0
    with pytest.raises(ValueError):
        planners_for(-1, gpu=True)
