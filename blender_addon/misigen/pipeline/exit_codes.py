"""Exit codes of every misigen command, and the rules that pick one.

A command's ``run`` returns one of these; ``run_command`` turns the errors a command raises into
one line on stderr and the code for them, so no command repeats that policy. ``SUMMARY`` is the
paragraph ``--help`` shows.
"""
from __future__ import annotations

import sys

EXIT_OK = 0            # all good
EXIT_NOTHING = 1       # nothing generated or rendered, validate found defects, the audit command flags a guesser
EXIT_USAGE = 2         # bad arguments, spec, preset or input; a device that cannot be had; Blender missing
EXIT_PARTIAL = 3       # the dataset was written, but some inputs, structures or samples failed
EXIT_AUDIT = 4         # the dataset was written and validated, but its audit failed
EXIT_INTERRUPTED = 130  # Ctrl-C or SIGTERM: finished work is kept, the same command resumes

SUMMARY = """\
Exit codes: 0 all good; 1 nothing generated / rendered, or ``validate`` found defects;
2 bad arguments, bad spec or preset, a device that cannot be had, Blender missing;
3 the dataset was written but some inputs, structures or samples failed (failures.jsonl);
4 the dataset was written and validated but its audit failed (a blind guesser beats chance; audit.json);
130 interrupted (Ctrl-C): finished work is kept, the same command resumes.
"""

BPY_MISSING = ("misigen: this command renders and needs Blender's Python module bpy, which this Python "
               "lacks: install it with  pip install -e \".[standalone]\"  (PyPI bpy, Python 3.11) or run  "
               "blender -b -P run_blender.py -- <command> …")


def dataset_exit_code(manifest: dict) -> int:
    """3 if the dataset records failed inputs, structures or samples. Non-structure files, samples a
    complex cannot supply (category "unavailable": a spec count is a maximum), questions left out
    by ``--level`` (category "level") and rejected samples within the suite's ``rejection_budget``
    (per task, a fraction of the samples asked for) do not count. 4 if the audit failed, which outranks 3."""
    if manifest.get("audit") and not manifest["audit"]["ok"]:
        return EXIT_AUDIT
    counts = manifest["counts"]
    by_category = counts.get("failures_by_category", {})
    failures = counts["failures"] - sum(1 for u in manifest.get("inputs_not_used", [])
                                        if u.get("kind") == "not_a_structure") \
        - by_category.get("unavailable", 0) - by_category.get("level", 0)
    budget = float(manifest.get("rejection_budget", 0.0))
    asked = counts.get("samples_asked_by_task", {})
    failures -= sum(n for task, n in counts.get("rejected_by_task", {}).items() if n <= budget * asked.get(task, 0))
    return EXIT_PARTIAL if failures > 0 else EXIT_OK


def run_command(run, args) -> int:
    """``run(args)``'s exit code; an error it raises is one line on stderr and the code for its kind."""
    from ..core.errors import InputError
    from ..render.device import DeviceError      # no bpy needed for the exception class
    from .output import OutputError

    try:
        return run(args)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "bpy":
            print(BPY_MISSING, file=sys.stderr)
            return EXIT_USAGE
        raise
    except (InputError, ValueError, DeviceError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"interrupted: {args.command} stopped; run the same command again", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OutputError as exc:        # mid-run: what was finished is whole (atomic writes), the rest is not there
        print(f"error: {exc}; finished work is kept: fix the folder (space, permissions) and run the same "
              "command again", file=sys.stderr)
        return EXIT_NOTHING
