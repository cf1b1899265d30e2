"""Command line for using a generated dataset: ``score``, ``baseline``, ``export``, ``report``.

Kept beside ``cli.py`` (which adds these subcommands with one call) so the generation
commands and these stay independent.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

COMMANDS = ("score", "baseline", "export", "report")
EXPORT_FORMATS = ("hf", "sharegpt", "lmms-eval")
# What each format is for decides which split it takes unless --split says otherwise.
EXPORT_DEFAULT_SPLIT = {"hf": "all", "sharegpt": "train", "lmms-eval": "test"}


def add_dataset_commands(sub) -> None:
    """Add these commands to the ``cli`` parser; each dispatches to ``run_dataset_command``."""
    p = sub.add_parser("score", help="score predictions against a dataset (MiSI-Bench Tables 1 and 2)")
    p.add_argument("--dataset", required=True, type=Path, help="a folder written by generate")
    p.add_argument("--predictions", required=True, type=Path, help='JSONL: {"id": ..., "prediction": ...} per line')
    p.add_argument("--json", type=Path, help="also write the tables as JSON to this file")
    p.add_argument("--by", choices=("level",), help="level: also break every row down by difficulty level "
                                                    "(easy / medium / hard, from each record's program)")
    _subset_args(p, default_split="test")
    p.set_defaults(func=run_dataset_command)

    p = sub.add_parser("baseline", help="write the predictions of a reference predictor")
    p.add_argument("--kind", required=True, choices=("random", "majority"),
                   help="random: uniform over each task's answer space; majority: each task's most frequent "
                        "train answer")
    p.add_argument("--dataset", required=True, type=Path, help="a folder written by generate")
    p.add_argument("--out", required=True, type=Path, help="predictions JSONL to write")
    p.add_argument("--split", default="test", choices=("train", "test", "all"),
                   help="the questions to predict (default: test)")
    p.add_argument("--seed", type=int, default=0, help="random baseline: the seed of its guesses")
    p.set_defaults(func=run_dataset_command)

    p = sub.add_parser("export", help="export a dataset for training/evaluation tools")
    p.add_argument("--dataset", required=True, type=Path, help="a folder written by generate")
    p.add_argument("--format", required=True, choices=EXPORT_FORMATS,
                   help="hf: datasets.load_dataset folder; sharegpt: LLaMA-Factory / ms-swift; "
                        "lmms-eval: an lmms-eval task folder")
    p.add_argument("--out", required=True, type=Path, help="export folder")
    p.add_argument("--few-shot", type=int, default=0, metavar="K",
                   help="prepend K worked examples of the same task from other complexes (train split; every split "
                        "when the dataset has none)")
    p.add_argument("--rationale", action="store_true",
                   help="sharegpt: the assistant turn is the record's step-by-step rationale, which ends with "
                        "the answer (records without one keep the bare answer)")
    _subset_args(p, default_split=None)
    p.set_defaults(func=run_dataset_command)

    p = sub.add_parser("report", help="write a static HTML report of a dataset (OUT/report.html)")
    p.add_argument("out", type=Path, help="a folder written by generate")
    p.add_argument("--per-task", type=int, default=6, help="samples shown per task")
    p.add_argument("--scores", type=Path, nargs="*", default=[], help="score JSON files (from score --json) to show")
    p.set_defaults(func=run_dataset_command)


def _subset_args(p, default_split) -> None:
    help_split = "train | test | all" + ("" if default_split else
                                         " (default: hf all, sharegpt train, lmms-eval test)")
    p.add_argument("--split", default=default_split, choices=("train", "test", "all"), help=help_split)
    p.add_argument("--tiny", type=int, metavar="N", help="N questions per task, drawn deterministically from the seed")
    p.add_argument("--seed", type=int, help="seed of the --tiny and few-shot draws (default: the dataset's)")


def run_dataset_command(args: argparse.Namespace) -> int:
    if args.command == "score":
        from .score import format_tables, run_score

        result = run_score(args.dataset, args.predictions, args.split, args.tiny, args.seed, args.json, by=args.by)
        print(format_tables(result, f"{args.predictions.name} on {args.dataset} ({args.split})"))
        return 0
    if args.command == "baseline":
        from .baseline import run_baseline

        n, warnings = run_baseline(args.dataset, args.kind, args.out, args.split, args.seed)
        for w in warnings:
            print(f"note: {w}", file=sys.stderr)
        print(f"wrote {n} {args.kind} predictions -> {args.out}")
        return 0
    if args.command == "export":
        from .exports import run_export

        split = args.split or EXPORT_DEFAULT_SPLIT[args.format]
        summary = run_export(args.dataset, args.format, args.out, split, args.tiny, args.few_shot, args.seed,
                             rationale=args.rationale)
        for w in summary.get("warnings", []):
            print(f"note: {w}", file=sys.stderr)
        print(f"exported {summary['records']} questions ({', '.join(f'{k} {v}' for k, v in summary['splits'].items())}) "
              f"as {args.format} -> {args.out}")
        return 0
    if args.command == "report":
        from .report import write_report

        path = write_report(args.out, per_task=args.per_task, score_files=args.scores)
        print(f"wrote {path}")
        return 0
    return 2
