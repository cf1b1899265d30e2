"""Progress on stderr: the stage of the structure being worked on, and bars for validate, audit,
export and score, so that a 100k-atom structure does not sit silently at 0/1 for minutes and
validate, audit, export and score show how far they are before they are done."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT


def _run(*args, progress="1"):
    return subprocess.run([sys.executable, str(ROOT / "run_blender.py"), *map(str, args)], capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, MISIGEN_PROGRESS=progress))


@pytest.mark.slow      # runs run_blender.py in a subprocess
def test_generate_shows_the_stage_and_dataset_commands_show_bars(tmp_path, examples):
    out = tmp_path / "out"
    got = _run("generate", "--structures", examples / "wagner_brd4", "--out", out, "--plan-only", "--tasks",
               "translation,rotation", "--split", "test", "--no-audit")
    assert got.returncode == 0, got.stderr
    assert "wagner_brd4: loading and planning" in got.stderr, got.stderr
    preds = tmp_path / "p.jsonl"
    assert _run("baseline", "--kind", "random", "--dataset", out, "--out", preds).returncode == 0
    for args, desc in ((("validate", out), "validate:"), (("score", "--dataset", out, "--predictions", preds), "score:"),
                       (("export", "--dataset", out, "--format", "hf", "--out", tmp_path / "hf"), "export: test:")):
        got = _run(*args)
        assert desc in got.stderr and "record" in got.stderr, (args, got.stderr)
        quiet = _run(*args, progress="0")
        assert desc not in quiet.stderr, quiet.stderr


def test_audit_counts_the_images_it_reads(tmp_path):
    import json

    from misigen.pipeline import audit

    out = tmp_path
    from PIL import Image
    (out / "images").mkdir()
    for k in range(3):
        Image.new("L", (8, 8), k * 40).save(out / "images" / f"i{k}.png")
    seen = []

    class Bar:
        def update(self, n):
            seen.append(n)

    loader = audit.ImageLoader(out, 4)
    loader.bar = Bar()
    for k in (0, 1, 1, 2):
        loader(f"images/i{k}.png")
    assert seen == [1, 1, 1]                  # each image once, however often it is asked for
    json.dumps(seen)
