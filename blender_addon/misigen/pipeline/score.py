"""The ``score`` command: a predictions file against a dataset, as MiSI-Bench's two tables.

Predictions: one ``{"id": ..., "prediction": "..."}`` per line. Rows are tasks in suite
order, Yes/No tasks split into their Yes (``/pos``) and No (``/neg``) questions; scores are
percentages (mean over the row's questions); averages are unweighted means over rows, over all
rows and over the paper's "Avg." rows (the task types the registry counts in it:
``TaskType.paper_average``). An id of the dataset without a prediction scores 0 and is listed.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..core.errors import InputError
from . import progress
from .output import write_text_atomic
from ..core.tasks import score_answer
from ..core.tasks.scoring import in_paper_average, is_list_task, score_row
from .records import by_split, jsonl_lines, load_manifest, load_records, task_order, tiny


def load_predictions(path: Path) -> dict[str, str]:
    """id → prediction text; a malformed line or a repeated id is an InputError naming the line."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "predictions file missing")
    preds: dict[str, str] = {}
    for n, obj in jsonl_lines(path):
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str) or "prediction" not in obj:
            raise InputError(path, f'line {n}: expected {{"id": "...", "prediction": "..."}}')
        if obj["id"] in preds:
            raise InputError(path, f"line {n}: id {obj['id']!r} predicted twice")
        pred = obj["prediction"]
        preds[obj["id"]] = pred if isinstance(pred, str) else ("" if pred is None else str(pred))
    return preds


def row_order(records, manifest: dict | None = None) -> list[str]:
    present = {score_row(r) for r in records}
    rows = []
    for task in task_order(records, manifest):
        # the task itself, or its split rows with Yes ('pos') before No ('neg'), as the paper
        rows += sorted((r for r in present if r == task or r.startswith(task + "/")), key=lambda r: (r.endswith("/neg"), r))
    return rows


LEVELS = ("easy", "medium", "hard")


def level_of(rec: dict) -> str:
    """A record's difficulty level (``program.difficulty.level``); datasets made before it: 'unknown'."""
    return ((rec.get("program") or {}).get("difficulty") or {}).get("level") or "unknown"


def score_by(records, predictions: dict[str, str], manifest: dict | None = None, by: str = "level") -> dict:
    """Every score row broken down by level: {row: {level: {n, exact, composite, f1?, missing}}}, plus
    an ``all tasks`` row per level (unweighted mean over the rows that have the level)."""
    if by != "level":
        raise ValueError(f"score --by {by!r}: only 'level'")
    out: dict = {}
    for name in row_order(records, manifest):
        for level in (*LEVELS, "unknown"):
            sub = [r for r in records if score_row(r) == name and level_of(r) == level]
            if not sub:
                continue
            row = score_records(sub, predictions, manifest)["tasks"][name]
            out.setdefault(name, {})[level] = {k: v for k, v in row.items() if k != "unparsed"}
    overall: dict = {}
    for level in (*LEVELS, "unknown"):
        rows = [v[level] for v in out.values() if level in v]
        if rows:
            overall[level] = {"rows": len(rows), "n": sum(r["n"] for r in rows),
                              "exact": round(sum(r["exact"] for r in rows) / len(rows), 2),
                              "composite": round(sum(r["composite"] for r in rows) / len(rows), 2)}
    return {"rows": out, "all_rows": overall}


def score_records(records, predictions: dict[str, str], manifest: dict | None = None) -> dict:
    """The score tables as a dict (the ``--json`` layout)."""
    rows = {name: {"n": 0, "exact": 0.0, "composite": 0.0, "f1": 0.0, "unparsed": 0, "missing": 0,
                   "list": False, "paper": True} for name in row_order(records, manifest)}
    missing = []
    for rec in progress.bar(records, "score"):
        row = rows[score_row(rec)]
        row["n"] += 1
        row["list"] = is_list_task(rec)       # H-bond or residue lists: F1 too
        row["paper"] = in_paper_average(rec)
        if rec["id"] not in predictions:
            missing.append(rec["id"])
            row["missing"] += 1
            continue
        s = score_answer(rec["task"], predictions[rec["id"]], rec)
        row["exact"] += s["exact"]
        row["composite"] += s["composite"]
        row["f1"] += s.get("f1", 0.0)
        row["unparsed"] += int(s["unparsed"])
    exact = {name: _mean(r["exact"], r["n"]) for name, r in rows.items()}      # unrounded, for the averages
    composite = {name: _mean(r["composite"], r["n"]) for name, r in rows.items()}
    tasks = {}
    for name, r in rows.items():
        out = {"n": r["n"], "exact": _pct(exact[name]), "composite": _pct(composite[name])}
        if r["list"]:
            out["f1"] = _pct(_mean(r["f1"], r["n"]))
        out.update(unparsed=r["unparsed"], missing=r["missing"])
        tasks[name] = out
    paper = [k for k, r in rows.items() if r["paper"]]
    known = {r["id"] for r in records}
    average = {"all": _average(list(rows), rows, exact, composite), "paper": _average(paper, rows, exact, composite)}
    average["paper"]["excluded"] = list(dict.fromkeys(k.split("/")[0] for k, r in rows.items() if not r["paper"]))
    return {"tasks": tasks, "average": average, "missing": sorted(missing),
            "unknown_ids": sorted(set(predictions) - known)}


def _mean(total: float, n: int) -> float:
    return total / n if n else 0.0


def _pct(fraction: float) -> float:
    return round(100.0 * fraction, 2)


def _average(names: list, rows: dict, exact: dict, composite: dict) -> dict:
    """Unweighted mean over rows (as the paper's averages), rounded only at the end."""
    if not names:
        return {"rows": 0, "n": 0, "exact": 0.0, "composite": 0.0, "unparsed": 0}
    k = len(names)
    return {"rows": k, "n": sum(rows[n]["n"] for n in names),
            "exact": _pct(sum(exact[n] for n in names) / k),
            "composite": _pct(sum(composite[n] for n in names) / k),
            "unparsed": sum(rows[n]["unparsed"] for n in names)}


def format_tables(result: dict, title: str = "") -> str:
    """Table 1 (composite, with F1 for H-bond rows) and Table 2 (exact match) as Markdown."""
    t, avg = result["tasks"], result["average"]
    excluded = avg["paper"].get("excluded", [])
    paper_label = "average, paper" + (f" (no {', '.join(excluded)})" if excluded else "")
    lines = [f"Table 1 — composite score (%){' — ' + title if title else ''}", "",
             "| row | n | composite | F1 | unparsed | missing |", "|---|--:|--:|--:|--:|--:|"]
    for name, r in t.items():
        f1 = f"{r['f1']:.2f}" if "f1" in r else ""
        lines.append(f"| {name} | {r['n']} | {r['composite']:.2f} | {f1} | {r['unparsed']} | {r['missing']} |")
    for label, a in (("average, all rows", avg["all"]), (paper_label, avg["paper"])):
        lines.append(f"| {label} | {a['n']} | {a['composite']:.2f} |  | {a['unparsed']} |  |")
    lines += ["", f"Table 2 — exact match (%){' — ' + title if title else ''}", "",
              "| row | n | exact |", "|---|--:|--:|"]
    for name, r in t.items():
        lines.append(f"| {name} | {r['n']} | {r['exact']:.2f} |")
    for label, a in (("average, all rows", avg["all"]), (paper_label, avg["paper"])):
        lines.append(f"| {label} | {a['n']} | {a['exact']:.2f} |")
    if result.get("by_level"):
        lines += ["", f"Table 3 — by difficulty level (%){' — ' + title if title else ''}", "",
                  "| row | level | n | composite | exact | missing |", "|---|---|--:|--:|--:|--:|"]
        for name, levels in result["by_level"]["rows"].items():
            for level, r in levels.items():
                lines.append(f"| {name} | {level} | {r['n']} | {r['composite']:.2f} | {r['exact']:.2f} | {r['missing']} |")
        for level, a in result["by_level"]["all_rows"].items():
            lines.append(f"| average, all rows | {level} | {a['n']} | {a['composite']:.2f} | {a['exact']:.2f} |  |")
    if result["missing"]:
        shown = ", ".join(result["missing"][:5]) + (" …" if len(result["missing"]) > 5 else "")
        lines += ["", f"{len(result['missing'])} question(s) without a prediction (scored 0): {shown}"]
    if result["unknown_ids"]:
        lines += ["", f"{len(result['unknown_ids'])} prediction id(s) not in the scored questions (ignored)"]
    return "\n".join(lines)


def run_score(dataset: Path, predictions_path: Path, split: str = "test", tiny_n: int | None = None,
              seed: int | None = None, json_path: Path | None = None, by: str | None = None) -> dict:
    manifest = load_manifest(dataset)
    seed = manifest.get("seed", 0) if seed is None else seed
    records = tiny(by_split(load_records(dataset), split), tiny_n, seed)
    predictions = load_predictions(predictions_path)
    result = score_records(records, predictions, manifest)
    if by:
        result["by_level"] = score_by(records, predictions, manifest, by)
    result.update(dataset=str(dataset), predictions=str(predictions_path), split=split,
                  tiny=tiny_n, seed=seed)
    if json_path is not None:       # rows keep table order (no key sorting)
        write_text_atomic(Path(json_path), json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    return result
