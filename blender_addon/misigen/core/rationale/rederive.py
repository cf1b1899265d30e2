"""Re-deriving one rationale fact from the sidecars alone (``replay`` runs it for every fact).

Each kind of ``evidence.READABLE`` has its reading: pixels, offsets, spans and centres from the
named atoms' sidecar pixels, a standard length from the sidecar's bonds and the reading table, the
scale bar from the sidecar's bar, limits from the criteria tables, givens from the record's program,
arithmetic from the numbers as quoted. A kind outside ``READABLE`` is an error.
"""
from __future__ import annotations

import math

from ..data_files import load_table
from .evidence import centre_of, evaluate, fmt, marker_value, q
from .limits import MAX_NO, SHARED_PROTON, SLOP, acceptor_limit
from .scales import reading_table, standard_length


def close(a: float, b: float, nd: int) -> bool:
    return abs(q(a, nd) - q(b, nd)) <= 10 ** -nd * 0.51 + 1e-9


def _said(real: float, f, what: str = "sidecar gives") -> str:
    return "" if close(real, f.value, f.nd) else f"{what} {real:.3f}, rationale {fmt(f.value, f.nd)}"


def _rows(v, f):
    rows = [v.row(k) for k in f.atoms]
    return None if None in rows else rows


def _cite(f, v, values, record):
    k = f.atoms[0]
    i = v.row(k)
    if i is None:
        return f"{k} is not in image {f.image}"
    if not v.atoms[i]["visible"]:
        return f"{k} is hidden in image {f.image}"
    return "" if v.citable(k) else f"{k} has no label drawn in image {f.image}"


def _pixel(f, v, values, record):
    rows = _rows(v, f)
    if rows is None:
        return "atom not in image"
    return _said(v.atoms[rows[0]]["pixel"]["uv".index(f.comp)], f)


def _offset(f, v, values, record):
    rows = _rows(v, f)
    if rows is None:
        return "atom not in image"
    i = "uv".index(f.comp)
    return _said(v.atoms[rows[1]]["pixel"][i] - v.atoms[rows[0]]["pixel"][i], f)


def _span(f, v, values, record):
    rows = _rows(v, f)
    if rows is None:
        return "atom not in image"
    return _said(math.dist(v.atoms[rows[0]]["pixel"], v.atoms[rows[1]]["pixel"]), f)


def _centre(f, v, values, record):
    if f.atoms and _rows(v, f) is None:
        return "atom not in image"
    return _said(centre_of(v, f.extra.get("which", "all"), f.comp, f.atoms), f)


def _camera(f, v, values, record):
    return _said({"width": v.width, "height": v.height, "fov": v.fov}[f.comp], f, "sidecar camera says")


def _standard(f, v, values, record):
    if _rows(v, f) is None:
        return "atom not in image"
    got = standard_length(v, *f.atoms)
    if got is None:
        return "the two atoms are not a bond with a standard length"
    return _said(got[0], f, "the reading table gives")


def _bar(f, v, values, record):
    bar = v.car.get("scale_bar")
    if not bar:
        return f"image {f.image} has no scale bar"
    real = float(bar["length"]) if f.comp == "length" else math.dist(*bar["points"])
    return _said(real, f, "the scale bar gives")


def _marker(f, v, values, record):
    mark = v.car.get("marker")
    if not mark:
        return f"image {f.image} has no site marker"
    return _said(marker_value(mark, f.comp), f, "the ring gives")


def _limit(f, v, values, record):
    crit = f.extra.get("criterion", "")
    if crit.startswith("kind:"):
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
    return _said(real, f, "criteria table gives")


def _given(f, v, values, record):
    real = (record.get("program") or {}).get(f.extra.get("key"))
    if not isinstance(real, (int, float)):
        return f"the question states no {f.extra.get('key')!r}"
    return _said(float(real), f, "the question states")


def _tolerance(f, v, values, record):
    if f.comp == "spread":
        if not f.atoms:
            return _said(0.0, f, "the scale bar's spread is")
        got = standard_length(v, *f.atoms) if _rows(v, f) is not None else None
        if got is None:
            return "the reference is not a bond with a standard length"
        return _said(got[1] / got[0], f, "the reading table gives")
    return _said(float(reading_table()["error"][f.comp]), f, "the reading table gives")


def _calc(f, v, values, record):
    try:
        real = evaluate(f.expr, values)
    except (KeyError, NameError, ValueError, ZeroDivisionError) as exc:
        return f"cannot evaluate {f.expr!r}: {exc}"
    return _said(real, f, f"{f.expr} gives")


def _round(f, v, values, record):
    step = float(f.extra["step"])
    real = round(values[f.expr] / step) * step
    return "" if abs(real - float(f.value)) < 1e-9 else f"{f.expr} rounds to {real}"


def _answer(f, v, values, record):
    return "" if f.value == record["answer"] else "not the record's answer"


CHECKS = {"cite": _cite, "pixel": _pixel, "offset": _offset, "span": _span, "centre": _centre, "camera": _camera,
          "standard": _standard, "bar": _bar, "marker": _marker, "ring": _marker, "limit": _limit, "given": _given,
          "tolerance": _tolerance, "calc": _calc, "round": _round, "answer": _answer}


def check_fact(f, views: dict, values: dict, record: dict) -> str:
    """Why ``f`` does not re-derive from the sidecars ('' when it does)."""
    check = CHECKS.get(f.kind)
    if check is None:
        return f"fact kind {f.kind!r} is not a reading of the images"
    v = views.get(f.image) if f.image else None
    if f.image and v is None:
        return f"no image {f.image}"
    return check(f, v, values, record)


__all__ = ["check_fact", "close", "CHECKS"]
