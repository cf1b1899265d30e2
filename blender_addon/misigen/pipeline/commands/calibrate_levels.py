"""``calibrate-levels``: recompute every task's level table (``core/quality/levels.py``) from a reference set.

The reference is planned here (plan-only, nothing rendered, in a temporary folder) from
``--structures`` for each split of ``--splits``, or read from datasets ``generate`` already wrote
(``--dataset``). Each task type's records give its table: the quantiles of the features its
registry entry grades, per stratum, and the cut points at the 1/3 and 2/3 quantiles of the
reference's scores. ``--out`` names a folder (``OUT/<task>/levels.yaml``, the layout of
``core/tasks/``: ``--out blender_addon/misigen/core/tasks`` rewrites the bundled tables) or one
``.yaml`` file holding every task's table.
"""
from __future__ import annotations

import sys
from pathlib import Path

from ..exit_codes import EXIT_NOTHING, EXIT_OK
from .args import add_reading_args, reading_from_args, whole

DEFAULT_SPLITS = "test,train"
DEFAULT_RESOLUTION = (512, 512)


def add_parser(sub) -> None:
    p = sub.add_parser("calibrate-levels", help="recompute the difficulty levels' cut points from a reference set")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--structures", nargs="+", help="reference inputs (files or folders, as generate reads them); "
                                                     "planned here, nothing rendered")
    src.add_argument("--dataset", nargs="+", help="reference datasets generate wrote (their annotations.jsonl)")
    p.add_argument("--out", required=True, help="a folder (writes OUT/<task>/levels.yaml, the layout of "
                                                "core/tasks/) or a .yaml file (every task's table in one)")
    p.add_argument("--suite", default="misi_bench", help="suite name or YAML path to plan (default: misi_bench)")
    p.add_argument("--splits", default=DEFAULT_SPLITS,
                   help=f"comma-separated splits to plan, all structures in each (default: {DEFAULT_SPLITS})")
    p.add_argument("--tasks", help="comma-separated task names (default: the whole suite)")
    p.add_argument("--resolution", nargs=2, type=whole(8, 16384), metavar=("W", "H"), default=DEFAULT_RESOLUTION,
                   help="image size the features are measured at (default: 512 512)")
    p.add_argument("--seed", type=whole(0, 2**63), default=0, help="root seed of the planning (default: 0)")
    p.add_argument("--scene", default="misi_bench", help="style preset (default: misi_bench)")
    add_reading_args(p)


def run(args) -> int:
    import json
    import tempfile

    from ...core.quality import levels
    from ...core.errors import InputError

    out = Path(args.out)
    if args.structures:
        with tempfile.TemporaryDirectory(prefix="misigen-levels-") as tmp:
            records, reference = plan_reference(args, Path(tmp))
    else:
        records, reference = [], {"datasets": [Path(d).name for d in args.dataset]}
        for d in args.dataset:
            path = Path(d) / "annotations.jsonl"
            if not path.is_file():
                raise InputError(d, "not a dataset: no annotations.jsonl")
            records += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    tables = tables_of(records, reference)
    if not tables:
        print("no records with difficulty features: nothing to calibrate", file=sys.stderr)
        return EXIT_NOTHING
    for path in write_tables(tables, out):
        print(f"wrote {path}")
    by_type = group(records)
    print(f"{'task':28s} {'questions':>9s}  easy / medium / hard")
    for name, table in tables.items():
        shares = levels.level_shares(by_type[name], table)
        print(f"{name:28s} {len(by_type[name]):9d}  " + " / ".join(f"{shares[lv]:.0%}" for lv in levels.LEVELS))
    return EXIT_OK


def plan_reference(args, tmp: Path) -> tuple[list, dict]:
    """Plan-only datasets of ``--structures`` for each split in ``tmp``; their records and what the
    reference was."""
    import json

    from ...core.errors import InputError
    from ...core.look.style import load_style
    from ..generate import run_generate
    from ..run_config import RunConfig

    splits = [s.strip() for s in args.splits.split(",") if s.strip()]
    bad = [s for s in splits if s not in ("train", "test")]
    if not splits or bad:
        raise InputError("--splits", f"expected test and/or train, got {args.splits!r}")
    style = load_style(args.scene, {"render": {"resolution": list(args.resolution)}})
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()] if args.tasks else None
    records = []
    for split in splits:
        config = RunConfig(tuple(args.structures), tmp / split, suite=args.suite, style=style, split=split,
                           tasks=tasks, seed=args.seed, render=False, progress=False, audit=False,
                           reading=reading_from_args(args))
        run_generate(config)
        path = tmp / split / "annotations.jsonl"
        if path.is_file():
            records += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    reference = {"suite": Path(str(config.suite)).stem, "splits": splits, "resolution": list(args.resolution),
                 "seed": args.seed, "structures": sorted({r["structure"] for r in records})}
    return records, reference


def group(records: list) -> dict:
    """Records by task type (a variant's records calibrate its type's table)."""
    out: dict = {}
    for r in records:
        if isinstance(r.get("program", {}).get("difficulty"), dict):
            out.setdefault(r["program"].get("task_type") or r["task"], []).append(r)
    return out


def tables_of(records: list, reference: dict) -> dict:
    """Task type → level table, for each bundled or loaded task type with records."""
    from ...core.quality import levels
    from ...core.tasks import REGISTRY

    tables = {}
    for name, recs in sorted(group(records).items()):
        if name not in REGISTRY.types:
            continue
        tt = REGISTRY[name]
        feats = tt.level_features or tuple(levels.default_features())
        table = levels.calibrate(recs, tuple(feats), tuple(tt.level_strata))
        table["reference"] = {**reference, **table["reference"]}
        tables[name] = table
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
