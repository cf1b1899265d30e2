"""The one cache of shown atoms (``scene_plan.SHOWN``): planning's context, the sidecars and the
scenes get the same object for one selection; it is bounded, and threads asking at once share one."""
import threading

import numpy as np

from misigen.core.scene.scene_plan import SHOWN, ShownCache, shown_structure
from misigen.core.tasks.common import context_for
from misigen.core.teaching import SidecarCache


def test_planning_sidecars_and_scenes_share_one_selection(brd4, style):
    ctx = context_for(brd4, style)
    shown = shown_structure(brd4, style, ("protein", "ligand"))
    assert ctx.shown() is shown                                  # the planners' context
    assert shown_structure(brd4, dict(style), ("protein", "ligand")) is shown   # same selection, another dict
    res = ((str(brd4.chain[0]), int(brd4.resseq[0]), str(brd4.icode[0])),)
    assert ctx.shown(("protein", "ligand"), res) is shown_structure(brd4, style, ("protein", "ligand"), res)
    assert ctx.shown(("protein", "ligand"), res).n_atoms < shown.n_atoms
    assert ctx.row_map(shown) is ctx.row_map(shown)               # memoised on the shared object


def test_sidecar_cache_reads_the_shared_selection(brd4, style, monkeypatch):
    from misigen.core import teaching
    calls = []
    real = teaching.shown_structure
    monkeypatch.setattr(teaching, "shown_structure", lambda *a, **k: calls.append(a[2:]) or real(*a, **k))
    from misigen.core.scene.scene_plan import RenderSpec
    from misigen.core.tasks.common import fit_camera
    shown = shown_structure(brd4, style)
    cam = fit_camera(shown.coords, np.ones(shown.n_atoms), style)
    cache = SidecarCache({brd4.id: brd4})
    car = cache.of(RenderSpec(brd4.id, cam, style))
    assert cache.of(RenderSpec(brd4.id, cam, style)) is car and len(calls) == 1
    assert len(car["atoms"]) == shown.n_atoms


def test_the_cache_is_bounded_and_least_recently_used_goes_first(brd4, hivp, style):
    cache = ShownCache(kept=2)
    a = cache.get(brd4, style, ("protein", "ligand"), None)
    b = cache.get(brd4, style, ("ligand",), None)
    assert cache.get(brd4, style, ("protein", "ligand"), None) is a      # a is now the most recent
    c = cache.get(hivp, style, ("ligand",), None)
    assert len(cache) == 2
    assert cache.get(brd4, style, ("protein", "ligand"), None) is a and cache.get(hivp, style, ("ligand",), None) is c
    again = cache.get(brd4, style, ("ligand",), None)                   # b was evicted: made again, equal
    assert again is not b and np.array_equal(again.coords, b.coords) and list(again.name) == list(b.name)


def test_threads_asking_at_once_get_one_object(hivp, style):
    cache = ShownCache()
    got, start = [], threading.Barrier(6)

    def ask():
        start.wait()
        got.append(cache.get(hivp, style, ("protein", "ligand"), None))
    threads = [threading.Thread(target=ask) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 6 and all(g is got[0] for g in got) and len(cache) == 1
    assert SHOWN is not cache
