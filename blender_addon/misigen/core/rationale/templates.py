"""Rationale templates: text files of ``[section]`` blocks, each a sentence with ``{field}`` slots.

A task's spec names its file (``rationale: prompts/<task>_rationale.txt``); a custom task ships its
own. Builders pick sections and fill them; a section or field a template lacks is one clear error.
"""
from __future__ import annotations

import re
import string
from pathlib import Path

from ..errors import InputError

_HEAD = re.compile(r"^\[([a-z0-9_]+)\]\s*$")


def parse_template(text: str, path="<rationale template>") -> dict[str, str]:
    """{section: text}; lines before the first header and lines starting with '#' are comments."""
    out: dict[str, list] = {}
    current = None
    for line in text.splitlines():
        m = _HEAD.match(line.strip())
        if m:
            current = m.group(1)
            if current in out:
                raise InputError(path, f"section [{current}] appears twice")
            out[current] = []
        elif current is not None and not line.lstrip().startswith("#"):
            out[current].append(line.strip())
    sections = {k: " ".join(x for x in v if x) for k, v in out.items()}
    for k, v in sections.items():
        if not v:
            raise InputError(path, f"section [{k}] is empty")
        for _, fld, _, _ in string.Formatter().parse(v):
            if fld is not None and not re.fullmatch(r"[a-z0-9_]+", fld):
                raise InputError(path, f"section [{k}]: bad field {{{fld}}}")
    return sections


def load_template(path) -> dict[str, str]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(path, f"cannot read rationale template: {exc}") from None
    return parse_template(text, path)


class Writer:
    """Fills sections in order; ``text()`` is the rationale (one sentence group per line)."""

    def __init__(self, sections: dict[str, str], where="rationale template"):
        self.sections, self.where, self.lines = sections, where, []

    def say(self, section: str, **values) -> None:
        self.lines.append(self.phrase(section, **values))

    def phrase(self, section: str, **values) -> str:
        """A section's words filled in, to go inside another section's sentence."""
        if section not in self.sections:
            raise InputError(self.where, f"no section [{section}] (the task's rationale needs it)")
        try:
            return self.sections[section].format_map({k: str(v) for k, v in values.items()})
        except KeyError as exc:
            raise InputError(self.where, f"section [{section}] uses field {exc} that this task does not fill") from None

    def text(self) -> str:
        return "\n".join(self.lines)
