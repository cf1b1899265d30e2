"""Images finished by planning processes (``planners.Finishing``): the same bytes as the rendering
process writes, their errors raised in the rendering process as its own would be, and an image
whose planning process died finished all the same."""
import errno
import os
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from misigen.pipeline.rendering import ImageFinish

LABELS = ({"text": "ASP 25", "box": [6, 8, 70, 26], "leader": [[20, 26], [60, 70]]},
          {"text": "LIG", "box": [80, 90, 120, 106]})


def _raw(folder: Path, name: str) -> Path:
    """A noisy raw render beside ``folder/name.png`` (what Cycles would write there)."""
    import numpy as np
    from PIL import Image
    folder.mkdir(parents=True, exist_ok=True)
    raw = folder / f".{name}.raw.bmp"
    pixels = np.random.default_rng(7).integers(0, 256, (128, 128, 3), dtype=np.uint8)
    Image.fromarray(pixels, "RGB").save(raw, format="BMP")
    return raw


def _finish(style, folder: Path, name: str = "view", kind=ImageFinish, **more):
    from misigen.render.labels import font_file
    from misigen.render.overlay import LabelledImage
    raw = _raw(folder, name)
    image = LabelledImage(str(raw), str(folder / f"{name}.png"), LABELS, style, 128, 128, None,
                          str(font_file(style["labels"]["font"])))
    return kind(image, b'{"labels": 2}\n', **more)


@dataclass(frozen=True)
class NoSpace:
    image: object
    sidecar: bytes

    def run(self):
        raise OSError(errno.ENOSPC, "No space left on device")


@dataclass(frozen=True)
class Bug:
    image: object
    sidecar: bytes

    def run(self):
        raise ValueError("a bug")


@dataclass(frozen=True)
class DiesOnce(ImageFinish):
    marker: str = ""

    def run(self):
        if not os.path.exists(self.marker):          # the first process to finish it dies on it
            Path(self.marker).write_text("died")
            os._exit(9)
        super().run()


@pytest.fixture
def feed():
    from misigen.pipeline.planners import Feed
    with Feed(SimpleNamespace(suite=SimpleNamespace(tasks=("t",))), planners=1) as f:   # finishing needs no planning context
        yield f


def test_a_planning_process_finishes_an_image_to_the_same_bytes(tmp_path, style, feed):
    _finish(style, tmp_path / "here").run()
    finishing = feed.finishing()
    finishing.submit(_finish(style, tmp_path / "there"))
    finishing.wait()
    for name in ("view.png", "view.json"):
        assert (tmp_path / "there" / name).read_bytes() == (tmp_path / "here" / name).read_bytes()
    assert sorted(p.name for p in (tmp_path / "there").iterdir()) == ["view.json", "view.png"]   # raw removed


def test_an_error_finishing_an_image_is_raised_where_it_was_rendered(tmp_path, style, feed):
    from misigen.pipeline.output import OutputError
    from misigen.pipeline.rendering import finish_images
    finishing = feed.finishing()
    finishing.submit(_finish(style, tmp_path, kind=NoSpace))
    with pytest.raises(OutputError, match="No space left"):          # a full disk stops the run
        finish_images(finishing, tmp_path)
    finishing.submit(_finish(style, tmp_path, "other", kind=Bug))
    with pytest.raises(RuntimeError, match="finishing other.png in a planning process: ValueError: a bug"):
        finish_images(finishing, tmp_path)
    gone = _finish(style, tmp_path, "gone")
    Path(gone.image.raw).unlink()
    finishing.submit(gone)
    with pytest.raises(FileNotFoundError):
        finishing.wait()
    finishing.wait()                                                 # each error is raised once


@pytest.mark.parametrize("restarts", [2, 0])
def test_an_image_whose_planning_process_died_is_finished_all_the_same(tmp_path, style, feed, restarts):
    """By the planning process that replaces it, or (none left) by the rendering process itself."""
    feed._restarts = restarts
    finishing = feed.finishing()
    finishing.submit(_finish(style, tmp_path / "out", kind=DiesOnce, marker=str(tmp_path / "died")))
    finishing.wait()
    assert (tmp_path / "died").exists()
    _finish(style, tmp_path / "reference").run()
    for name in ("view.png", "view.json"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "reference" / name).read_bytes()
    assert len(feed._planners) == (1 if restarts else 0)
