"""``export``: a dataset for training and evaluation tools (hf, sharegpt, lmms-eval)."""
from __future__ import annotations

import sys
from pathlib import Path

from ..exit_codes import EXIT_OK
from .args import add_subset_args

EXPORT_FORMATS = ("hf", "sharegpt", "lmms-eval")
# What each format is for decides which split it takes unless --split says otherwise.
EXPORT_DEFAULT_SPLIT = {"hf": "all", "sharegpt": "train", "lmms-eval": "test"}


def add_parser(sub) -> None:
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
    add_subset_args(p, default_split=None)


def run(args) -> int:
    from ..exports import run_export

    split = args.split or EXPORT_DEFAULT_SPLIT[args.format]
    summary = run_export(args.dataset, args.format, args.out, split, args.tiny, args.few_shot, args.seed,
                         rationale=args.rationale)
    for w in summary.get("warnings", []):
        print(f"note: {w}", file=sys.stderr)
    print(f"exported {summary['records']} questions ({', '.join(f'{k} {v}' for k, v in summary['splits'].items())}) "
          f"as {args.format} -> {args.out}")
    return EXIT_OK
