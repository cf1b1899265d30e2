"""Writing a record's rationale, and replaying one against the sidecars (what ``validate`` runs).

Replay needs no template: the builder is run again on the sidecars to list the facts, then
each fact is re-derived on its own — pixels and 3D components read back from the named atom's
sidecar entry, lengths and angles recomputed from ``camera_xyz``, arithmetic re-evaluated from
the quoted (rounded) numbers, limits from the criteria table — and every decimal number in the
rationale's text must be one of those facts. The text must end with the record's answer.
"""
from __future__ import annotations

import math
import re

import numpy as np

from .evidence import Facts, View, evaluate, fmt, q
from .limits import MAX_NO, SHARED_PROTON, SLOP, acceptor_limit
from .readings import NoRationale
from .templates import Writer

_DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d+(?![\w.])")


class _Recorder(Writer):
    """A writer without a template: replay only needs the facts."""

    def __init__(self):
        super().__init__({})

    def say(self, section: str, **values) -> None:
        self.lines.append(section)


def _views(record: dict, sidecars: dict) -> dict[int, View]:
    paths = list(record["images"]) + [o for o in (record.get("options") or []) if str(o).startswith("images/")]
    out = {}
    for k, path in enumerate(paths, 1):
        car = sidecars.get(path)
        if car is None:
            raise NoRationale(f"no sidecar for {path}")
        out[k] = View(k, car)
    return out


def _run(record, sidecars, writer, build):
    if build is None:
        raise NoRationale(f"task {record.get('task')!r} has no rationale builder")
    facts = Facts()
    build(record, _views(record, sidecars), facts, writer)
    return facts


def make_rationale(record: dict, sidecars: dict, sections: dict, build) -> tuple[str | None, str]:
    """(rationale text, '') or (None, why not). ``sidecars``: image path → sidecar dict; ``sections``: the
    task's template; ``build``: its task type's builder (``TaskType.rationale``)."""
    writer = Writer(sections, where=f"rationale template of {record.get('task')}")
    try:
        _run(record, sidecars, writer, build)
    except NoRationale as exc:
        return None, str(exc)
    return writer.text(), ""


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
        why = _check(f, views, values, record)
        if why:
            problems.append(f"rationale fact {f.kind} {f.name or f.atoms}: {why}")
        if f.name and isinstance(f.value, (int, float)):
            values[f.name] = q(f.value, f.nd)
    quoted = {fmt(f.value, f.nd) for f in facts.items if isinstance(f.value, (int, float))}
    for tok in _DECIMAL.findall(text):
        if tok not in quoted:
            problems.append(f"rationale quotes {tok}, which no sidecar reading or step derives")
    if not text.rstrip().endswith(str(record["answer"]).strip()):
        problems.append("rationale does not end with the answer")
    answers = [f.value for f in facts.items if f.kind == "answer"]
    if answers != [record["answer"]]:
        problems.append(f"rationale concludes {answers}, the record's answer is {record['answer']!r}")
    return problems


def _close(a: float, b: float, nd: int) -> bool:
    return abs(q(a, nd) - q(b, nd)) <= 10 ** -nd * 0.51 + 1e-9


def _check(f, views: dict, values: dict, record: dict) -> str:
    v = views.get(f.image) if f.image else None
    if f.kind == "cite":
        k = f.atoms[0]
        i = v.row(k)
        if i is None:
            return f"{k} is not in image {f.image}"
        if not v.atoms[i]["visible"]:
            return f"{k} is hidden in image {f.image}"
        if not v.citable(k):
            return f"{k} has no label drawn in image {f.image}"
        return ""
    if f.kind == "pixel":
        i = v.row(f.atoms[0])
        if i is None:
            return "atom not in image"
        real = v.atoms[i]["pixel"]["uv".index(f.comp)]
        return "" if _close(real, f.value, f.nd) else f"sidecar says {real}, rationale {fmt(f.value, f.nd)}"
    if f.kind == "comp":
        ax = "xyz".index(f.comp)
        if f.atoms:
            rows = [v.row(k) for k in f.atoms]
            if None in rows:
                return "atom not in image"
            real = v.atoms[rows[1]]["camera_xyz"][ax] - v.atoms[rows[0]]["camera_xyz"][ax]
        else:
            which = f.extra.get("centroid", "all")
            pts = [a["camera_xyz"][ax] for a in v.atoms
                   if which == "all" or a["ligand"] == (which == "ligand")]
            real = float(np.mean(pts))
        return "" if _close(real, f.value, f.nd) else f"sidecar gives {real:.3f}"
    if f.kind == "length":
        a, b = (np.asarray(v.atoms[v.row(k)]["camera_xyz"], float) for k in f.atoms)
        real = float(np.linalg.norm(a - b))
        return "" if _close(real, f.value, f.nd) else f"sidecar gives {real:.3f} Å"
    if f.kind == "angle3":
        a, b, c = (np.asarray(v.atoms[v.row(k)]["camera_xyz"], float) for k in f.atoms)
        u, w = a - b, c - b
        real = math.degrees(math.acos(max(-1.0, min(1.0, float(u @ w / (np.linalg.norm(u) * np.linalg.norm(w)))))))
        return "" if _close(real, f.value, f.nd) else f"sidecar gives {real:.1f}°"
    if f.kind == "camera":
        real = {"width": v.width, "height": v.height, "fov": v.fov}[f.comp]
        return "" if _close(real, f.value, f.nd) else f"sidecar camera says {real}"
    if f.kind == "calc":
        try:
            real = evaluate(f.expr, values)
        except (KeyError, NameError, ValueError, ZeroDivisionError) as exc:
            return f"cannot evaluate {f.expr!r}: {exc}"
        return "" if _close(real, f.value, f.nd) else f"{f.expr} gives {real:.4f}"
    if f.kind == "round":
        step = float(f.extra["step"])
        real = round(values[f.expr] / step) * step
        return "" if abs(real - float(f.value)) < 1e-9 else f"{f.expr} rounds to {real}"
    if f.kind == "groups":
        cut = f.atoms.index("|")
        rows = [v.row(k) for k in f.atoms if k != "|"]
        if None in rows:
            return "atom not in image"
        a = np.mean([v.atoms[v.row(k)]["camera_xyz"] for k in f.atoms[:cut]], axis=0)
        b = np.mean([v.atoms[v.row(k)]["camera_xyz"] for k in f.atoms[cut + 1:]], axis=0)
        real = float(np.linalg.norm(np.asarray(a) - np.asarray(b)))
        return "" if _close(real, f.value, f.nd) else f"sidecar gives {real:.3f} Å"
    if f.kind == "limit":
        crit = f.extra.get("criterion", "")
        if crit.startswith("kind:"):
            from ..data_files import load_table
            real = float(load_table("interactions/other_criteria.yaml")[crit[5:]]["max_distance"])
        elif crit == "widest N/O":
            real = MAX_NO + SLOP
        elif crit.startswith("shared proton"):
            real = SHARED_PROTON
        else:
            got = acceptor_limit(crit)
            if got is None:
                return f"criterion {crit!r} not in the criteria table"
            real = got[0] + SLOP
        return "" if _close(real, f.value, f.nd) else f"criteria table gives {real}"
    if f.kind == "site":
        w2c = np.asarray(v.car["camera"]["world_to_camera"], float)
        real = float((w2c @ np.append(np.asarray(record["program"]["ligand_centre"], float), 1.0))[0])
        return "" if _close(real, f.value, f.nd) else f"program and camera give {real:.3f}"
    if f.kind == "answer":
        return "" if f.value == record["answer"] else "not the record's answer"
    return f"unknown fact kind {f.kind}"
