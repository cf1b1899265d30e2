"""The level tables' reference: its graded features as a fixture, and a check that both are current.

The committed ``core/tasks/<task>/levels.yaml`` were written by ``calibrate-levels`` on the shared
complexes (suite misi_bench, test and train splits, plan-only, 512², seed 0). ``levels_reference.json``
beside this file holds what they were computed from: per task type, each reference question's split,
stratum and graded features, in the order of the questions' ids. ``tests/test_levels.py`` recalibrates from it (the committed tables must
come out) and checks that each level holds 25–45 % of every task in each split, in seconds.

This script plans the reference again (15–30 min on two cores) and prints, per task, ``same`` or
``DIFFERS`` for the fixture and for the table; exit 1 when any differs. A deliberate change of a
task's features or planning changes both: rewrite them knowingly (``--bless`` rewrites the fixture;
the tables: ``run_blender.py calibrate-levels --dataset …`` or ``--structures …`` with
``--out blender_addon/misigen/core/tasks``, as the script prints).

    .venv/bin/python tests/data/levels_reference.py           # check only
    .venv/bin/python tests/data/levels_reference.py --bless   # rewrite the fixture
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).with_name("levels_reference.json")
TASKS = ROOT / "blender_addon" / "misigen" / "core" / "tasks"
SPLITS = ("test", "train")


def fixture_of(records: list[dict]) -> dict:
    """Per task type: splits, strata and graded features of its reference records (in id order)."""
    sys.path.insert(0, str(ROOT / "blender_addon"))
    from misigen.core.quality.levels import stratum
    from misigen.core.tasks import REGISTRY

    out: dict = {}
    for r in sorted(records, key=lambda r: r["id"]):
        name = r["program"].get("task_type") or r["task"]
        tt = REGISTRY[name]
        t = out.setdefault(name, {"split": [], "stratum": [], "features": {f: [] for f in tt.level_features}})
        t["split"].append(r["split"])
        t["stratum"].append(stratum(r["program"], tt.level_strata))
        for f in tt.level_features:
            t["features"][f].append(r["program"]["difficulty"].get(f))
    return dict(sorted(out.items()))


def records_of(fixture: dict) -> dict:
    """Per task type, records with just what ``core.quality.levels`` reads (the stratum as a balance class)."""
    out = {}
    for name, t in fixture.items():
        recs = []
        for k, s in enumerate(t["stratum"]):
            cls = dict(kv.split("=", 1) for kv in s.split(",")) if s != "*" else {}
            recs.append({"split": t["split"][k],
                         "program": {"task_type": name, "balance_class": cls,
                                     "difficulty": {f: v[k] for f, v in t["features"].items()}}})
        out[name] = recs
    return out


def dump(fixture: dict) -> str:
    """One line per task and key, so a diff shows which changed."""
    lines = ["{"]
    for i, (name, t) in enumerate(fixture.items()):
        parts = [f'"{k}": {json.dumps(t[k], separators=(",", ":"))}' for k in ("split", "stratum")]
        feats = [f'"{f}": {json.dumps(v, separators=(",", ":"))}' for f, v in t["features"].items()]
        body = ",\n  ".join(parts + ['"features": {\n   ' + ",\n   ".join(feats) + "}"])
        lines.append(f' "{name}": {{\n  {body}}}' + ("," if i < len(fixture) - 1 else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def plan(complexes: Path, tmp: Path) -> list[dict]:
    records = []
    for split in SPLITS:
        out = tmp / split
        res = subprocess.run([sys.executable, str(ROOT / "run_blender.py"), "generate", "--structures",
                              str(complexes / "pdb"), str(complexes / "paired"), "--out", str(out), "--plan-only",
                              "--split", split, "--resolution", "512", "512", "--seed", "0", "--no-audit",
                              "--no-validate", "--no-progress"], capture_output=True, text=True)
        if res.returncode not in (0, 3):
            raise RuntimeError(f"generate {split} exited {res.returncode}\n{res.stderr[-2000:]}")
        records += [json.loads(line) for line in (out / "annotations.jsonl").read_text().splitlines() if line]
    return records


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import COMPLEXES
    if COMPLEXES is None:
        print("shared complexes not found: set MISIGEN_COMPLEXES", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        fresh = fixture_of(plan(COMPLEXES, Path(tmp)))
    if "--bless" in argv:
        FIXTURE.write_text(dump(fresh))
        print(f"wrote {FIXTURE}")
    old = json.loads(FIXTURE.read_text()) if FIXTURE.is_file() else {}
    from misigen.core.quality import levels
    from misigen.core.tasks import REGISTRY
    bad = 0
    for name, recs in records_of(fresh).items():
        tt = REGISTRY[name]
        table = levels.calibrate(recs, tt.level_features, tt.level_strata)
        committed = levels.load_level_table(tt.level_table) or {}
        same_fix = old.get(name) == fresh[name]
        same_tab = all(committed.get(k) == table[k] for k in ("features", "strata", "cuts", "quantiles"))
        bad += not (same_fix and same_tab)
        print(f"{name:28s} fixture {'same' if same_fix else 'DIFFERS'}, table {'same' if same_tab else 'DIFFERS'}"
              + ("" if same_tab else f" (cuts {committed.get('cuts')} -> {table['cuts']})"))
    if bad:
        print("rewrite the tables: run_blender.py calibrate-levels --structures SHARED/pdb SHARED/paired "
              "--out blender_addon/misigen/core/tasks")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
