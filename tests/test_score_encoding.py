"""``score`` reads predictions in any UTF encoding with a byte-order mark, and says a file that is not
text is not text, naming it (not a bare codec error that names no file)."""
import os

import pytest

pytestmark = pytest.mark.slow      # runs run_blender.py in subprocesses


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, examples):
    from misigen.core.resources import suite_path
    from misigen.core.look.style import load_style
    from misigen.pipeline.generate import run_generate
    from misigen.pipeline.run_config import RunConfig

    out = tmp_path_factory.mktemp("score") / "out"
    run_generate(RunConfig([examples / "wagner_brd4"], out, suite=suite_path("misi_bench"),
                           style=load_style("misi_bench"), split="test", tasks=["translation", "rotation"],
                           render=False, progress=False, audit=False))
    return out


def test_utf16_and_bom_predictions_score_as_utf8(dataset, tmp_path, cli):
    preds = tmp_path / "preds.jsonl"
    assert cli("baseline", "--kind", "majority", "--dataset", dataset, "--out", preds, "--split", "all").returncode == 0
    text = preds.read_text(encoding="utf-8")
    reference = cli("score", "--dataset", dataset, "--predictions", preds, "--split", "all")
    assert reference.returncode == 0, reference.stderr
    for encoding in ("utf-16", "utf-8-sig", "utf-32"):
        other = tmp_path / f"preds-{encoding}.jsonl"
        other.write_bytes(text.encode(encoding))
        got = cli("score", "--dataset", dataset, "--predictions", other, "--split", "all")
        assert got.returncode == 0, got.stderr
        assert got.stdout.replace(other.name, preds.name) == reference.stdout


def test_a_file_that_is_not_text_is_one_line_naming_it(dataset, tmp_path, cli):
    binary = tmp_path / "model.bin"
    binary.write_bytes(os.urandom(64) + b"\x00" * 8)
    got = cli("score", "--dataset", dataset, "--predictions", binary)
    assert got.returncode == 2 and "Traceback" not in got.stderr
    assert got.stderr.strip() == f"error: {binary}: not a text file (NUL bytes and no UTF-16/32 byte-order mark)"
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes('{"id": "x", "prediction": "\u00e9"}\n'.encode("latin-1"))
    got = cli("score", "--dataset", dataset, "--predictions", latin)
    assert got.returncode == 2 and got.stderr.startswith(f"error: {latin}: not a text file in UTF-8"), got.stderr
