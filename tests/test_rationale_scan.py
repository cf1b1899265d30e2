"""No rationale quotes a number that only the sidecar knows (``core/rationale/scan.py``).

Every rationale of datasets planned as ``generate --plan-only`` plans them (both suites, on the bundled
examples and on shared complexes) replays and keeps to the rule: each fact a reading of the images or
the question, each decimal one of those facts, each Å a reference length or an estimate written
"about". The scanner itself fails on planted rationales that quote a 3D distance from the sidecar, in
the text or through a builder that reads ``camera_xyz``.
"""
from __future__ import annotations

import collections
import re
from pathlib import Path

import numpy as np
import pytest

from misigen.core.structure.loader import discover
from misigen.core.rationale import replay, scan
from misigen.core.rationale.evidence import READABLE, Fact
from misigen.core.rationale.rederive import CHECKS
from misigen.core.rationale.replay import rationale_facts
from misigen.core.look.style import load_style
from misigen.core.tasks import load_suite, task_type
from misigen.pipeline.unit import plan_structure

ROOT = Path(__file__).resolve().parents[1]
SHARED = ("1acj.pdb", "3ems.pdb")


def planned_records(suite: str, paths: list[Path], split: str, only=None) -> list[tuple[dict, dict]]:
    """(record, {image path: sidecar}) of every question ``generate --plan-only`` makes of ``paths``
    (``only``: of that task)."""
    tasks = load_suite(ROOT / "task_specs" / f"{suite}.yaml", None if only is None else [only])
    style = load_style("misi_bench", {"render": {"resolution": [256, 256]}})
    sources = discover(paths)
    catalog = {s.id: s for s in sources}
    out = []
    for source in sources:
        _, samples, _, sidecars = plan_structure(source, tasks, style, split, 0, catalog=catalog)
        cars = {f"images/{k}.png": v for k, v in sidecars.items()}
        out += [(s.as_record(), cars) for s in samples]
    return out


def scan_all(records) -> collections.Counter:
    """Replay and scan every rationale; returns how many records of each task have one."""
    seen = collections.Counter()
    for rec, cars in records:
        if not rec.get("rationale"):
            continue
        build = task_type(rec["program"]["task_type"]).rationale
        assert replay(rec, cars, build) == [], (rec["id"], rec["rationale"])
        facts = rationale_facts(rec, cars, build)
        assert {f.kind for f in facts.items} <= READABLE, rec["id"]
        seen[rec["task"]] += 1
    return seen


@pytest.mark.slow      # plans every suite on the examples
@pytest.mark.parametrize("suite", ["misi_bench", "misi_plus", "misi_hard"])
def test_every_rationale_of_the_examples_keeps_to_the_images(examples, suite):
    seen = scan_all(planned_records(suite, [examples], "test"))
    # every task type with a builder says something on the examples (T7's move rounds right for few;
    # misi_hard's sparse labels and hiding orientations leave T8/T9 of the two examples none)
    expect = {"translation", "rotation", "zooming", "residue_ligand_interaction", "translation_rotation",
              "rotation_rotation"}
    if suite != "misi_hard":
        expect |= {"interaction_location", "pocket_ligand_interaction"}
    assert expect <= set(seen), seen


@pytest.mark.slow      # plans both suites on two shared complexes
def test_every_rationale_of_shared_complexes_keeps_to_the_images(complexes):
    paths = [complexes / "pdb" / n for n in SHARED]
    for suite in ("misi_bench", "misi_plus"):
        seen = scan_all(planned_records(suite, paths, "auto"))
        assert sum(seen.values()) >= 20, (suite, seen)


def test_every_readable_kind_has_a_reading():
    assert set(CHECKS) == READABLE


# ------------------------------------------------------------------ the scanner on planted rationales
@pytest.fixture(scope="module")
def examples_records(examples):
    return {"misi_bench": planned_records("misi_bench", [examples], "test", only="pocket_ligand_interaction")}


def _hbond_record(examples_records):
    """A T9 record with a rationale, its sidecars, builder, and its first H-bond's atoms and 3D distance."""
    for rec, cars in examples_records["misi_bench"]:
        if rec["task"] == "pocket_ligand_interaction" and rec.get("rationale"):
            b = rec["program"]["hbonds"][0]
            return rec, cars, task_type(rec["program"]["task_type"]).rationale, b
    pytest.fail("no pocket–ligand record with a rationale on the examples")


def test_a_sidecar_distance_in_the_text_is_caught(examples_records):
    rec, cars, build, b = _hbond_record(examples_records)
    assert replay(rec, cars, build) == []
    first = re.search(r"about (\d+\.\d) Å apart", rec["rationale"])
    true = f"{float(b['distance']):.2f}"                       # what the sidecar's camera_xyz gives
    plain = dict(rec, rationale=rec["rationale"].replace(first.group(0), f"{true} Å apart", 1))
    problems = replay(plain, cars, build)
    assert any(f"quotes {true} Å, which is neither" in p for p in problems), problems
    assert any(f"quotes {true}, which no sidecar reading" in p for p in problems), problems
    # marked as an estimate, it is still no reading's
    marked = dict(rec, rationale=rec["rationale"].replace(first.group(0), f"about {true} Å apart", 1))
    assert any(f"quotes {true}, which no sidecar reading" in p for p in replay(marked, cars, build))


def test_a_builder_reading_3d_from_the_sidecar_is_caught(examples_records):
    rec, cars, build, b = _hbond_record(examples_records)
    pk = f"P:{b['chain']}:{b['resseq']}{b['icode']}:{b['protein_atom']}"
    lk = f"L:{b['ligand_atom']}"

    def leaky(rec, V, F, W):
        """The builder, plus a 3D distance read from camera_xyz and an expression hiding one as a constant."""
        build(rec, V, F, W)
        d = float(np.linalg.norm(V[1].xyz(pk) - V[1].xyz(lk)))
        F.add(Fact("length", "leak", d, 2, 1, (pk, lk)))
        F.calc("hidden", f"{d:.2f} * 1", 2)
    text = rec["rationale"]
    facts = rationale_facts(rec, cars, leaky)
    problems = scan(text, facts)
    assert any("is a 'length' reading, which no image shows" in p for p in problems), problems
    assert any("uses constants" in p for p in problems), problems
    assert any("not a reading of the images" in p for p in replay(rec, cars, leaky))


def test_a_number_with_a_unit_must_be_a_reading(examples_records):
    rec, cars, build, _ = _hbond_record(examples_records)
    facts = rationale_facts(rec, cars, build)
    assert scan(rec["rationale"], facts) == []
    assert any("quotes 7 px" in p for p in scan(rec["rationale"] + " They are 7 px apart.", facts))
    assert any("quotes 12°" in p for p in scan(rec["rationale"] + " The angle is 12°.", facts))
    assert any("quotes 3 Å" in p for p in scan(rec["rationale"] + " They are 3 Å apart.", facts))
