"""``install-deps``: listed here for ``--help``; ``run_blender.py`` runs it before misigen is imported
(misigen itself needs the dependencies it installs)."""
from __future__ import annotations

import sys

from ..exit_codes import EXIT_USAGE


def add_parser(sub) -> None:
    sub.add_parser("install-deps", help="pip-install misigen's dependencies into Blender's own Python "
                                        "(see: run_blender.py install-deps --help)")


def run(_args) -> int:
    print("install-deps runs before misigen itself: blender -b -P run_blender.py -- install-deps", file=sys.stderr)
    return EXIT_USAGE
