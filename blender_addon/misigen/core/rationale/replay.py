"""Writing a record's rationale, and replaying one against the sidecars (what ``validate`` runs).

Replay needs no template: the builder is run again on the sidecars to list the facts, then each fact
is re-derived on its own (``rederive.py``: pixels read back from the named atoms' sidecar entries,
standard lengths from the bonds and the reading table, limits from the criteria table, arithmetic
re-evaluated from the quoted, rounded numbers), and the text must keep to what a reader can see
(``scan.py``: every fact a reading of the images, every decimal one of them, every Å either a
reference length or an estimate marked "about"). The text must end with the record's answer.
"""
from __future__ import annotations

from dataclasses import dataclass

from .estimates import reading_margin
from .evidence import Facts, View, q
from .readings import NoRationale
from .rederive import check_fact
from .scan import scan
from .templates import Writer


class _Recorder(Writer):
    """A writer without a template: replay only needs the facts."""

    def __init__(self):
        super().__init__({})

    def phrase(self, section: str, **values) -> str:
        return section


def _views(record: dict, sidecars: dict) -> dict[int, View]:
    paths = list(record["images"]) + [o for o in (record.get("options") or []) if str(o).startswith("images/")]
    out = {}
    for k, path in enumerate(paths, 1):
        car = sidecars.get(path)
        if car is None:
            raise NoRationale(f"no sidecar for {path}")
        out[k] = View(k, car)
    return out


def _run(record, sidecars, writer, build, facts=None):
    if build is None:
        raise NoRationale(f"task {record.get('task')!r} has no rationale builder")
    facts = Facts() if facts is None else facts
    build(record, _views(record, sidecars), facts, writer)
    return facts


@dataclass
class Written:
    """A rationale as written: its text (None when the images support none, ``why``), and the least
    margin, in reading errors, of the estimates it turns on (None: it quotes no estimate)."""
    text: str | None
    why: str
    reading_margin: float | None


def write_rationale(record: dict, sidecars: dict, sections: dict | None, build) -> Written:
    """The record's rationale (``sections``: the task's template; None: facts and margin only, no text)
    and its reading margin, which a derivation that fails still reports when it got as far as an estimate."""
    writer = Writer(sections, where=f"rationale template of {record.get('task')}") if sections is not None \
        else _Recorder()
    facts = Facts()
    try:
        _run(record, sidecars, writer, build, facts)
    except NoRationale as exc:
        return Written(None, str(exc), reading_margin(facts))
    return Written(writer.text() if sections is not None else None, "", reading_margin(facts))


def make_rationale(record: dict, sidecars: dict, sections: dict, build) -> tuple[str | None, str]:
    """(rationale text, '') or (None, why not). ``sidecars``: image path → sidecar dict; ``sections``: the
    task's template; ``build``: its task type's builder (``TaskType.rationale``)."""
    w = write_rationale(record, sidecars, sections, build)
    return w.text, w.why


def rationale_facts(record: dict, sidecars: dict, build) -> Facts:
    return _run(record, sidecars, _Recorder(), build)


def replay(record: dict, sidecars: dict, build) -> list[str]:
    """Problems with the record's rationale (empty: every number replays); ``build``: its task type's builder."""
    text = record.get("rationale")
    if not text:
        return ["no rationale"]
    try:
        facts = rationale_facts(record, sidecars, build)
    except NoRationale as exc:
        return [f"rationale cannot be rebuilt from the sidecars: {exc}"]
    views = _views(record, sidecars)
    problems = []
    values: dict = {}
    for f in facts.items:
        why = check_fact(f, views, values, record)
        if why:
            problems.append(f"rationale fact {f.kind} {f.name or f.atoms}: {why}")
        if f.name and isinstance(f.value, (int, float)):
            values[f.name] = q(f.value, f.nd)
    problems += scan(text, facts)
    if not text.rstrip().endswith(str(record["answer"]).strip()):
        problems.append("rationale does not end with the answer")
    answers = [f.value for f in facts.items if f.kind == "answer"]
    if answers != [record["answer"]]:
        problems.append(f"rationale concludes {answers}, the record's answer is {record['answer']!r}")
    return problems
