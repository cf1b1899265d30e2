"""RunConfig: a generate run's settings, normalised and checked once, the same from the CLI and the API."""
import dataclasses

import pytest

from misigen.core.errors import InputError
from misigen.core.structure.readers import ReadOptions
from misigen.core.resources import suite_path
from misigen.core.look.style import load_style
from misigen.pipeline.cli import build_parser
from misigen.pipeline.commands.generate import config_from_args
from misigen.pipeline.run_config import RunConfig


@pytest.mark.parametrize("settings, option", [
    ({"split": "val"}, "--split"),
    ({"levels": "easy,extreme"}, "--level"),
    ({"shard": (3, 3)}, "--shard"),
    ({"shard": (0,)}, "--shard"),
    ({"workers": 0}, "--workers"),
    ({"limit": 0}, "--limit"),
    ({"seed": -1}, "--seed"),
    ({"executor": "slurm"}, "--executor"),
    ({"per_worker": 0}, "--structures-per-worker"),
    ({"device": "tpu"}, "--device"),
    ({"ligand": "GP6:A:x"}, "--ligand"),
    ({"overrides": {"render": {"resolution": [0, 0]}}}, "--resolution"),
])
def test_a_bad_setting_is_one_error_naming_its_option(tmp_path, settings, option):
    with pytest.raises(InputError) as err:
        RunConfig(["x.pdb"], tmp_path / "o", **settings)
    assert option in str(err.value)
    assert not (tmp_path / "o").exists()


def test_settings_are_normalised_and_frozen(tmp_path):
    config = RunConfig("x.pdb", str(tmp_path / "o"), suite="misi_plus", scene="draft", levels="hard, easy",
                       tasks=["rotation"], device="optix")
    assert config.structures == ("x.pdb",) and config.out == tmp_path / "o"
    assert config.suite == suite_path("misi_plus") and config.levels == ("hard", "easy")
    assert config.tasks == ("rotation",) and config.device == "OPTIX"
    assert config.style == load_style("draft") != load_style("misi_bench")   # the preset asked for
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.seed = 3


def test_the_command_line_and_the_api_make_the_same_config(tmp_path, examples):
    args = build_parser().parse_args(["generate", "--structures", str(examples), "--out", str(tmp_path / "o"),
                                      "--plan-only", "--split", "test", "--seed", "3", "--level", "easy,hard",
                                      "--tasks", "rotation, translation", "--shard", "1/2", "--scene", "draft",
                                      "--resolution", "300", "200", "--ligand", "GP6:A:910", "--no-audit"])
    from_cli = config_from_args(args, args.structures)
    from_api = RunConfig([str(examples)], tmp_path / "o", scene="draft",
                         overrides={"render": {"resolution": [300, 200]}}, split="test", seed=3,
                         levels=("easy", "hard"), tasks=("rotation", "translation"), shard=(1, 2), render=False,
                         audit=False, ligand="GP6:A:910", reading=ReadOptions())
    assert from_cli == from_api
    assert from_cli.style["render"]["resolution"] == [300, 200]
