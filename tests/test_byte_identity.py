"""Same inputs + seed ⇒ byte-identical annotations: every suite against recorded
hashes, so that moving code cannot change a record. A deliberate behaviour change re-blesses it: ``tests/data/byte_identity.py --bless``."""
import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow      # plans every suite on the examples and shared complexes (minutes)

HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location("byte_identity", HERE / "data" / "byte_identity.py")
bi = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bi)
FIXTURE = json.loads(bi.FIXTURE.read_text())


@pytest.mark.parametrize("case", sorted(bi.CASES))
def test_annotations_unchanged(case, tmp_path):
    from conftest import COMPLEXES
    got = bi.digest(case, tmp_path, COMPLEXES)
    if got is None:
        pytest.skip("shared complexes not found")
    assert got == FIXTURE[case], (f"{case}: annotations.jsonl changed; if deliberate, re-bless with "
                                  f"`python tests/data/byte_identity.py --bless {case}`")
