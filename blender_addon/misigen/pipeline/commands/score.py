"""``score``: predictions against a dataset, as MiSI-Bench's Tables 1 and 2."""
from __future__ import annotations

from pathlib import Path

from ..exit_codes import EXIT_OK
from .args import add_subset_args


def add_parser(sub) -> None:
    p = sub.add_parser("score", help="score predictions against a dataset (MiSI-Bench Tables 1 and 2)")
    p.add_argument("--dataset", required=True, type=Path, help="a folder written by generate")
    p.add_argument("--predictions", required=True, type=Path, help='JSONL: {"id": ..., "prediction": ...} per line')
    p.add_argument("--json", type=Path, help="also write the tables as JSON to this file")
    p.add_argument("--by", choices=("level",), help="level: also break every row down by difficulty level "
                                                    "(easy / medium / hard, from each record's program)")
    add_subset_args(p, default_split="test")


def run(args) -> int:
    from ..score import format_tables, run_score

    result = run_score(args.dataset, args.predictions, args.split, args.tiny, args.seed, args.json, by=args.by)
    print(format_tables(result, f"{args.predictions.name} on {args.dataset} ({args.split})"))
    return EXIT_OK
