"""``calibrate-levels``: refit every task's level model (``core/quality/levels.py``) from the reader
study's answers (``benchmarks/data/reader_answers.jsonl``; docs/TAKERS.md).

Each task type's by-eye answers give its model: the features chosen by cross-validated forward
selection, the fractional logit of the by-eye score on them, the bands, and the held-out summary.
``--out`` names a folder (``OUT/<task>/levels.yaml``, the layout of ``core/tasks/``: ``--out
blender_addon/misigen/core/tasks`` rewrites the bundled models) or one ``.yaml`` file holding every task's.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..exit_codes import EXIT_NOTHING, EXIT_OK

KIND = "eye"              # the reader the levels predict: one who reads the images by eye


def add_parser(sub) -> None:
    p = sub.add_parser("calibrate-levels", help="refit the difficulty levels' models on readers' answers")
    p.add_argument("--answers", required=True, nargs="+",
                   help="the reader study's answers (JSONL: one scored answer per line, with the question's "
                        "features; benchmarks/data/reader_answers.jsonl)")
    p.add_argument("--out", required=True, help="a folder (writes OUT/<task>/levels.yaml, the layout of "
                                                "core/tasks/) or a .yaml file (every task's model in one)")
    p.add_argument("--tasks", help="comma-separated task names (default: every task with answers)")


def read_answers(paths) -> list:
    from ...core.errors import InputError

    rows = []
    for path in map(Path, paths):
        if not path.is_file():
            raise InputError(path, "no such answers file")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(path, f"line {n}: not JSON ({exc.msg})") from None
            missing = [k for k in ("kind", "task", "structure", "composite", "features", "reader", "id", "suite")
                       if k not in row]
            if missing:
                raise InputError(path, f"line {n}: missing {', '.join(missing)}")
            rows.append(row)
    return rows


def run(args) -> int:

    rows = [r for r in read_answers(args.answers) if r["kind"] == KIND]
    wanted = {t.strip() for t in args.tasks.split(",")} if args.tasks else None
    tables = tables_of(rows, wanted)
    if not tables:
        print("no by-eye answers of a known task: nothing to calibrate", file=sys.stderr)
        return EXIT_NOTHING
    for path in write_tables(tables, Path(args.out)):
        print(f"wrote {path}")
    print(f"{'task':28s} {'answers':>7s}  features; held-out concordance; measured by-eye score per predicted level")
    for name, t in tables.items():
        h = t["fit"]["heldout"]
        per = ", ".join(f"{lv} {v['measured']:.2f} (n={v['n']})" for lv, v in h["by_level"].items())
        print(f"{name:28s} {t['fit']['answers']:7d}  {', '.join(t['features']) or '(none)'}; "
              f"{h['concordance']}; {per}")
    return EXIT_OK


def group(rows: list) -> dict:
    """Answers by task type (a variant's answers fit its type's model)."""
    out: dict = {}
    for r in rows:
        out.setdefault(r.get("task_type") or r["task"], []).append(r)
    return out


def tables_of(rows: list, wanted=None) -> dict:
    """Task type → level model, for each bundled or loaded task type with answers."""
    from ...core.quality import levels
    from ...core.tasks import REGISTRY

    tables = {}
    for name, recs in sorted(group(rows).items()):
        if name not in REGISTRY.types or (wanted and name not in wanted):
            continue
        recs = sorted(recs, key=lambda r: (r["id"], r["reader"]))
        tables[name], _ = levels.calibrate(recs, list(REGISTRY[name].level_features or ()) or None)
    return tables


def write_tables(tables: dict, out: Path) -> list[Path]:
    from ...core.quality import levels
    from ..output import write_text_atomic

    if out.suffix in (".yaml", ".yml"):
        write_text_atomic(out, levels.dump_tables(tables))
        return [out]
    paths = []
    for name, table in tables.items():
        path = out / name / "levels.yaml"
        write_text_atomic(path, levels.dump_table(table))
        paths.append(path)
    return paths
