"""The pipeline's typed records and its command table."""
import argparse
import json

from misigen.core.failures import Failure
from misigen.pipeline.cli import build_parser
from misigen.pipeline.output import dumps
from misigen.pipeline.rendering import RenderCounts
from misigen.pipeline.unit import RunStats, UnitSummary, crash_summary


def test_failure_lines_always_have_the_same_four_keys():
    bare = Failure("1abc", "render failed: boom").as_dict()
    assert bare == {"structure": "1abc", "task": None, "sample": None, "why": "render failed: boom"}
    unused = Failure(None, "not used: x", where="/in/notes.txt", kind="not_a_structure").as_dict()
    assert list(json.loads(dumps(unused))) == ["kind", "sample", "structure", "task", "where", "why"]
    planned = {"structure": "s", "task": "rotation", "sample": "rotation-s-test-000", "why": "w",
               "category": "unavailable"}
    assert Failure.from_dict(planned).as_dict() == planned     # a core planning line passes unchanged


def test_unit_summaries_add_up():
    stats = RunStats(units=2)
    stats.add(UnitSummary("a", "done", records=3, rendered=RenderCounts(2, 1.5, 1.0, "CPU")))
    stats.add(UnitSummary("c", "done", records=1, rendered=RenderCounts(1, 0.5, 0.25, "")))
    stats.add(crash_summary("b", "worker died"))
    assert (stats.done, stats.failed, stats.records, stats.devices) == (2, 1, 4, {"CPU"})
    assert stats.rendered == RenderCounts(3, 2.0, 1.25, "CPU")      # a unit with no device keeps the one seen
    assert crash_summary("b", "worker died").failure.as_dict()["why"] == "worker died"


def test_every_command_dispatches_from_the_table(capsys):
    from misigen.pipeline.commands import COMMANDS
    from misigen.pipeline.exit_codes import EXIT_USAGE, run_command

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == list(COMMANDS)           # the parser is made from the table, in its order
    for name, module in COMMANDS.items():                # one module per command, named for it
        assert module.__name__ == f"misigen.pipeline.commands.{name.replace('-', '_')}"
        assert callable(module.add_parser) and callable(module.run)
    assert {"generate", "render", "interactions", "score", "export"} <= set(COMMANDS)
    args = build_parser().parse_args(["install-deps"])      # as cli.main runs it, without installing signals
    assert run_command(COMMANDS[args.command].run, args) == EXIT_USAGE
    assert "runs before misigen itself" in capsys.readouterr().err
