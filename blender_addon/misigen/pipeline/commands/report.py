"""``report``: a static HTML page of a dataset (``OUT/report.html``)."""
from __future__ import annotations

from pathlib import Path

from ..exit_codes import EXIT_OK


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="write a static HTML report of a dataset (OUT/report.html)")
    p.add_argument("out", type=Path, help="a folder written by generate")
    p.add_argument("--per-task", type=int, default=6, help="samples shown per task")
    p.add_argument("--scores", type=Path, nargs="*", default=[], help="score JSON files (from score --json) to show")


def run(args) -> int:
    from ..report import write_report

    path = write_report(args.out, per_task=args.per_task, score_files=args.scores)
    print(f"wrote {path}")
    return EXIT_OK
