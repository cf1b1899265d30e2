"""``baseline``: the predictions of a reference predictor (random or majority), for ``score``."""
from __future__ import annotations

import sys
from pathlib import Path

from ..exit_codes import EXIT_OK


def add_parser(sub) -> None:
    p = sub.add_parser("baseline", help="write the predictions of a reference predictor")
    p.add_argument("--kind", required=True, choices=("random", "majority"),
                   help="random: uniform over each task's answer space; majority: each task's most frequent "
                        "train answer")
    p.add_argument("--dataset", required=True, type=Path, help="a folder written by generate")
    p.add_argument("--out", required=True, type=Path, help="predictions JSONL to write")
    p.add_argument("--split", default="test", choices=("train", "test", "all"),
                   help="the questions to predict (default: test)")
    p.add_argument("--seed", type=int, default=0, help="random baseline: the seed of its guesses")


def run(args) -> int:
    from ..baseline import run_baseline

    n, warnings = run_baseline(args.dataset, args.kind, args.out, args.split, args.seed)
    for w in warnings:
        print(f"note: {w}", file=sys.stderr)
    print(f"wrote {n} {args.kind} predictions -> {args.out}")
    return EXIT_OK
