"""One planning path: ``generate`` (``unit.plan_structure``), the API (``api.plan_task``) and the
Blender GUI's task preview (``ui.session``) all plan through ``core.teaching.plan_and_enrich``, so a
sample is the same record whichever made it, its rationale, difficulty and level included."""
import json

import pytest

from misigen import api
from misigen.core.structure.loader import discover
from misigen.core.resources import suite_path
from misigen.core.tasks import Suite, load_suite
from misigen.pipeline.unit import plan_structure

SEED = 3
TASKS = ("translation", "interaction_location", "pocket_ligand_interaction", "translation_rotation")


def _records(samples) -> list[str]:
    return sorted(json.dumps(s.as_record(), sort_keys=True) for s in samples)


@pytest.fixture(scope="module")
def planned(examples):
    """brd4's samples of TASKS as generate plans them (the bundled examples are the run: T5's partner)."""
    style = api.load_style("misi_bench", {"render": {"resolution": [256, 256]}})
    catalog = {s.id: s for s in discover([examples])}
    suite = load_suite(suite_path("misi_bench"), TASKS)
    _loaded, samples, _failures, _cars = plan_structure(catalog["wagner_brd4"], suite, style, "test", SEED,
                                                        catalog=catalog)
    return style, {t: [s for s in samples if s.task == t] for t in TASKS}


def test_generate_plans_rationale_and_level(planned):
    _style, by_task = planned
    samples = [s for got in by_task.values() for s in got]
    assert {s.task for s in samples} == set(TASKS)
    assert all(s.program["difficulty"]["level"] in ("easy", "medium", "hard") for s in samples)
    assert sum(s.rationale is not None for s in samples) >= len(TASKS)


def test_the_api_plans_what_generate_plans(planned, examples):
    style, by_task = planned
    brd4 = api.load(examples / "wagner_brd4")
    others = [api.load(examples / "1hvi.pdb")]
    for task in TASKS:
        samples, _failures = api.plan_task(api.load_task(task), brd4, style, "test", SEED,
                                           api.partner_catalog([brd4, *others], "test"))
        assert _records(samples) == _records(by_task[task]), task


@pytest.mark.slow      # imports bpy and loads every bundled example as the preview's partners
def test_the_gui_preview_plans_what_generate_plans(planned, examples):
    pytest.importorskip("bpy", reason="the GUI module imports bpy")
    from misigen.ui import session
    style, by_task = planned
    brd4 = api.load(examples / "wagner_brd4")
    for task in TASKS:
        key = ("misi_bench", task, "test-paths", id(brd4), api.style_hash(style), "test", SEED)
        samples, _failures = session._planned(session._Keyed(key, ("misi_bench", task, brd4, style, "test", SEED)))
        assert _records(samples) == _records(by_task[task]), task


def test_a_level_filter_drops_the_same_samples_everywhere(examples):
    """A spec's ``levels`` (what ``--level`` sets) keeps the same questions in the API as in generate."""
    style = api.load_style("misi_bench", {"render": {"resolution": [256, 256]}})
    brd4 = api.load(examples / "wagner_brd4")
    task = api.load_task("translation")
    every, _ = api.plan_task(task, brd4, style, "test", SEED)
    level = every[0].program["difficulty"]["level"]
    task.data["levels"] = [level]
    kept, failures = api.plan_task(task, brd4, style, "test", SEED)
    catalog = {s.id: s for s in discover([examples])}
    _loaded, generated, gen_failures, _cars = plan_structure(catalog["wagner_brd4"], Suite(task.settings, (task,)), style, "test", SEED,
                                                             catalog=catalog)
    assert [s.id for s in kept] == [s.id for s in every if s.program["difficulty"]["level"] == level]
    assert _records(kept) == _records(generated)
    assert [f for f in failures if f["category"] == "level"] == \
        [f.as_dict() for f in gen_failures if f.category == "level"]
