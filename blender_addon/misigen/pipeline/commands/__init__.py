"""misigen's commands, in the order ``--help`` lists them: command name → its module here.

Each module has ``add_parser(subparsers)`` (its options and their help) and ``run(args) -> int``
(an exit code from ``pipeline/exit_codes.py``). ``cli.main`` dispatches every command the same
way; a module imports what its command needs inside ``run``, so building the parser stays quick.
"""
from . import (audit, baseline, build_extension, calibrate_levels, demo, export, generate, install_deps, interactions,
               merge, render, report, score, validate)

COMMANDS = {
    "render": render,
    "generate": generate,
    "demo": demo,
    "validate": validate,
    "audit": audit,
    "merge": merge,
    "interactions": interactions,
    "calibrate-levels": calibrate_levels,
    "build-extension": build_extension,
    "score": score,
    "baseline": baseline,
    "export": export,
    "report": report,
    "install-deps": install_deps,
}
