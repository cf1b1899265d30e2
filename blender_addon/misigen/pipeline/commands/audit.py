"""``audit``: blind baselines over a dataset (can its questions be answered without their reasoning?)."""
from __future__ import annotations

from pathlib import Path

from ..exit_codes import EXIT_NOTHING, EXIT_OK, EXIT_USAGE


def add_parser(sub) -> None:
    p = sub.add_parser("audit", help="blind baselines: can questions be answered without their reasoning?")
    p.add_argument("out", type=Path, help="a dataset folder written by generate")


def run(args) -> int:
    from ...core.tasks.audit import format_audit
    from ..audit import audit_dataset

    out = Path(args.out)
    if not (out / "annotations.jsonl").is_file():
        print(f"error: {out}: no annotations.jsonl (not a dataset folder)")
        return EXIT_USAGE
    report = audit_dataset(out)
    print(format_audit(report))
    print(f"wrote {out / 'audit.json'}")
    return EXIT_OK if report["ok"] else EXIT_NOTHING
