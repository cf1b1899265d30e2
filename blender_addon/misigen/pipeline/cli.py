"""misigen's command line, the same under ``python`` and ``blender -b -P run_blender.py --``.

``build_parser`` asks every module of ``commands/`` for its subcommand; ``main`` parses the
arguments, installs the signal handling and runs the command the one way every command runs:
``exit_codes.run_command(module.run, args)``.
"""
from __future__ import annotations

import argparse
import sys

from .commands import COMMANDS
from .exit_codes import SUMMARY, run_command

DESCRIPTION = ("Command line of misigen (the same under ``python`` and ``blender -b -P run_blender.py --``).\n\n"
               + SUMMARY)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="run_blender.py", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS.values():
        module.add_parser(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    from . import signals
    signals.install()                 # Ctrl-C and SIGTERM stop every command, during a render too
    signals.set_hint(f"interrupted: {args.command} stopped; run the same command again")
    return run_command(COMMANDS[args.command].run, args)


if __name__ == "__main__":
    sys.exit(main())
