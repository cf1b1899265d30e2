"""Recompute every task's level table on the reference set and compare with the committed ones.

The committed ``core/tasks/<task>/levels.yaml`` were written by ``calibrate-levels`` on the shared
complexes (suite misi_bench, test and train splits, plan-only, 512², seed 0). This plans that
reference again (15–30 min on two cores) and prints, per task, ``same`` or ``DIFFERS`` (then the cut
points, old → new); exit 1 when any differs. A deliberate change of a task's features or planning
changes its table: rewrite them knowingly with

    .venv/bin/python run_blender.py calibrate-levels --structures SHARED/pdb SHARED/paired \\
        --out blender_addon/misigen/core/tasks

    .venv/bin/python tests/data/levels_reference.py          # check only
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "blender_addon" / "misigen" / "core" / "tasks"


def _complexes() -> Path | None:
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import COMPLEXES
    return COMPLEXES


def main() -> int:
    complexes = _complexes()
    if complexes is None:
        print("shared complexes not found: set MISIGEN_COMPLEXES", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "tables.yaml"
        res = subprocess.run([sys.executable, str(ROOT / "run_blender.py"), "calibrate-levels", "--structures",
                              str(complexes / "pdb"), str(complexes / "paired"), "--out", str(out)],
                             capture_output=True, text=True)
        if res.returncode != 0:
            print(res.stderr[-3000:], file=sys.stderr)
            return res.returncode
        print(res.stdout)
        tables = yaml.safe_load(out.read_text())
    bad = 0
    for name, table in tables.items():
        path = TASKS / name / "levels.yaml"
        old = yaml.safe_load(path.read_text()) if path.is_file() else None
        same = old is not None and all(old.get(k) == table.get(k) for k in ("features", "strata", "cuts", "quantiles"))
        bad += not same
        print(f"{name:28s} {'same' if same else 'DIFFERS'}"
              + ("" if same else f"  cuts {old and old.get('cuts')} -> {table['cuts']}"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
