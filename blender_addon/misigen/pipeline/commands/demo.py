"""``demo``: ``generate`` on the bundled example complexes (test split unless ``--split`` says)."""
from __future__ import annotations

from pathlib import Path

from .args import add_reading_args, add_style_args
from .generate import add_generate_args, run_generation


def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="generate a small demo dataset from the bundled examples")
    p.add_argument("--out", type=Path, default=Path("demo_out"), help="output folder (default: demo_out)")
    add_generate_args(p, demo=True)
    add_reading_args(p)
    add_style_args(p)


def run(args) -> int:
    from ...core.resources import demo_structures
    return run_generation(args, [str(p) for p in demo_structures()])
