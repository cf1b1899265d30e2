"""``build-extension``: the Blender extension zip (its path is printed last)."""
from __future__ import annotations

from pathlib import Path

from ..exit_codes import EXIT_OK


def add_parser(sub) -> None:
    p = sub.add_parser("build-extension", help="build the Blender extension zip (prints its path last)")
    p.add_argument("--out", required=True, type=Path, help="folder for the zip")
    p.add_argument("--platforms", help="comma-separated Blender platforms, or 'all' (default: this one)")
    p.add_argument("--wheels", type=Path, help="take wheels from this folder instead of the package index")


def run(args) -> int:
    from ..extension import PLATFORMS, build_extension

    platforms = None
    if args.platforms:
        platforms = list(PLATFORMS) if args.platforms == "all" else \
            [p.strip() for p in args.platforms.split(",") if p.strip()]
    print(build_extension(args.out, platforms, args.wheels))
    return EXIT_OK
