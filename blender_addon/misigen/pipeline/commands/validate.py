"""``validate``: check a dataset folder against its manifest and the dataset contract."""
from __future__ import annotations

from pathlib import Path

from ...core.errors import InputError
from ..exit_codes import EXIT_NOTHING, EXIT_OK


def add_parser(sub) -> None:
    p = sub.add_parser("validate", help="check a dataset folder against its manifest and the contract")
    p.add_argument("out", type=Path, help="dataset folder")


def run(args) -> int:
    from ..validate import validate_dataset

    if not Path(args.out).is_dir():
        raise InputError(args.out, "no such folder")
    notes: list = []
    problems = validate_dataset(args.out, notes)
    for p in problems:
        print(p)
    for n in notes:
        print(f"note: {n}")
    print(f"{args.out}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return EXIT_NOTHING if problems else EXIT_OK
