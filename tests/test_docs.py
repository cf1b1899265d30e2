"""The README and docs/ stay navigable: every relative link and image resolves to a file, every
``#anchor`` to a heading of its target (GitHub's slugs), and the README stays short, opening with the
two commands CI runs."""
import re
import unicodedata
from pathlib import Path

import pytest

from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_BYTES = 12 * 1024
DEMO_COMMAND = ('python3 -m venv .venv && .venv/bin/pip install -e ".[standalone,test]" && '
                '.venv/bin/python run_blender.py demo --out demo_out')
TEST_COMMAND = 'python3 -m venv .venv && .venv/bin/pip install -e ".[standalone,test]" && .venv/bin/python -m pytest -q'

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_REF = re.compile(r"""<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']""", re.I)


def prose_lines(text: str):
    """Lines outside fenced code blocks, as (line number, line)."""
    inside = False
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside and not line.startswith("    "):
            yield n, line


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation and symbols removed,
    spaces to hyphens (letters, digits, ``_`` and ``-`` stay)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)          # [text](url) -> text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        k = seen.get(base, 0)
        seen[base] = k + 1
        out.add(base if k == 0 else f"{base}-{k}")
    return out


def references(path: Path):
    """Every link and image target of a page outside code: (line number, target)."""
    for n, line in prose_lines(path.read_text(encoding="utf-8")):
        line = INLINE_CODE.sub("", line)
        for m in LINK.finditer(line):
            yield n, m.group(1)
        for m in HTML_REF.finditer(line):
            yield n, m.group(1)


def broken(page: Path, root: Path = ROOT) -> list[str]:
    problems = []
    for n, target in references(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):             # https:, mailto: …
            continue
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        where = f"{page.relative_to(root)}:{n}: {target}"
        if not dest.exists():
            problems.append(f"{where}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{where}: no heading with that anchor in {dest.relative_to(root)}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_and_image_of_a_page_resolves(page):
    assert broken(page) == []


def test_the_link_check_catches_a_missing_file_and_a_wrong_anchor(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "A.md").write_text("# Using a dataset: score, baselines\n\n## Step `x` → y\n")
    page = tmp_path / "README.md"
    page.write_text("[a](docs/A.md#using-a-dataset-score-baselines) [b](docs/A.md#step-x--y)\n"
                    "![c](docs/gone.png) [d](docs/A.md#nowhere) `[e](not/a/link.md)`\n"
                    "```\n[f](inside/a/fence.md)\n```\n[g](https://example.org/x)\n")
    assert broken(page, tmp_path) == ["README.md:2: docs/gone.png: no such file",
                            "README.md:2: docs/A.md#nowhere: no heading with that anchor in docs/A.md"]


def test_slugs_follow_github():
    assert slug("Using a dataset: score, baselines, exports, report") == "using-a-dataset-score-baselines-exports-report"
    assert slug("Beyond MiSI-Bench (`misi_plus`)") == "beyond-misi-bench-misi_plus"
    assert slug("2a. Ligand chemistry of PDB/mmCIF HETATM ligands") == "2a-ligand-chemistry-of-pdbmmcif-hetatm-ligands"
    assert slug("Inputs: `--structures`") == "inputs---structures"


def test_the_readme_is_short_and_opens_with_the_two_commands():
    readme = (ROOT / "README.md").read_bytes()
    assert len(readme) <= README_MAX_BYTES, f"README.md is {len(readme)} bytes (at most {README_MAX_BYTES})"
    commands = [line.strip() for line in readme.decode().splitlines()[:12] if line.startswith("    ")]
    assert commands[:2] == [DEMO_COMMAND, TEST_COMMAND]
    ci = (ROOT / ".ci" / "run").read_text()
    assert TEST_COMMAND.split(" && ")[-1] in ci.splitlines()       # CI runs the README's test command
