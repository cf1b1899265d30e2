"""The ``report`` command: one static HTML page, ``OUT/report.html``, to look at a dataset.

Per task: question counts by split, the answer distributions as bar charts (inline SVG; the
features each task type names, ``TaskType.features``), and
a grid of samples (their images, question, options and answer). Then the failures, and the
score tables (``OUT/scores/*.json`` and ``--scores`` files, written by ``score --json``) and
an audit summary (``OUT/audit*.json``) when present. Images are referenced relatively
(``images/<key>.png``), never copied; a small script marks any image that fails to load
and states the count at the top (``data-images-ok`` / ``data-images-broken`` on <body>).
"""
from __future__ import annotations

import html
import json
from collections import Counter
from pathlib import Path

from ..core.tasks import answer_distribution
from .output import inside, write_text_atomic
from .records import load_manifest, load_records, option_texts, task_order, tiny

FAILURES_SHOWN = 200

CSS = """
body{font-family:system-ui,sans-serif;margin:0 2em 3em;background:#fafafa;color:#222}
h1{margin-top:.6em} h2{border-bottom:2px solid #ccc;padding-top:.4em}
nav{display:flex;flex-wrap:wrap;gap:.3em 1em;max-width:100%} nav a{overflow-wrap:anywhere}
#image-status{padding:.4em .8em;border-radius:4px;display:inline-block;background:#eee}
#image-status.bad{background:#fbb} #image-status.good{background:#cfc}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(560px,100%),1fr));gap:1em}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.6em}
.imgs{display:flex;flex-wrap:wrap;gap:4px} .imgs figure{margin:0;text-align:center;font-size:11px}
.imgs img{width:128px;height:128px;object-fit:contain;background:#000;display:block}
img.broken{outline:3px solid red}
.answer{font-family:monospace;background:#eef;padding:.2em .4em} .meta{color:#666;font-size:12px}
pre.q{white-space:pre-wrap;font-size:12px;max-height:22em;overflow:auto;background:#f4f4f4;padding:.5em}
table{border-collapse:collapse;margin:.5em 0} td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}
td:first-child,th:first-child{text-align:left} .charts{display:flex;flex-wrap:wrap;gap:1.5em}
"""

# Marks every image that did not load and reports the count (also read by the browser test).
SCRIPT = """
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images), bad = [];
  imgs.forEach(function (im) { if (!(im.complete && im.naturalWidth > 0)) { bad.push(im.getAttribute('src'));
                                                                          im.classList.add('broken'); } });
  document.body.setAttribute('data-images-ok', String(imgs.length - bad.length));
  document.body.setAttribute('data-images-broken', String(bad.length));
  var s = document.getElementById('image-status');
  s.className = bad.length ? 'bad' : 'good';
  s.textContent = bad.length ? bad.length + ' of ' + imgs.length + ' images failed to load: ' + bad.slice(0, 10).join(', ')
                             : 'all ' + imgs.length + ' images loaded';
});
"""


def write_report(out: Path, per_task: int = 6, score_files=()) -> Path:
    out = Path(out)
    records = load_records(out)
    manifest = load_manifest(out)
    path = inside(out, "report.html")
    write_text_atomic(path, render_report(out, records, manifest, per_task, list(score_files)))
    return path


def render_report(out: Path, records, manifest: dict, per_task: int, score_files: list) -> str:
    e = html.escape
    tasks = task_order(records, manifest)
    dist = answer_distribution(records)
    seed = int(manifest.get("seed", 0))
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>misigen report: {e(out.name)}"
             f"</title><style>{CSS}</style><script>{SCRIPT}</script></head><body>",
             f"<h1>misigen dataset report: {e(out.name)}</h1>",
             "<p id='image-status'>checking images…</p>", _summary(records, manifest),
             "<nav>" + "".join(f"<a href='#{e(t)}'>{e(t)}</a>" for t in tasks) +
             "<a href='#failures'>failures</a><a href='#scores'>scores</a></nav>"]
    for task in tasks:
        mine = [r for r in records if r["task"] == task]
        splits = Counter(r["split"] for r in mine)
        parts.append(f"<h2 id='{e(task)}'>{e(task)}</h2><p>{len(mine)} questions: "
                     + ", ".join(f"{n} {e(s)}" for s, n in sorted(splits.items())) + "</p>")
        levels = Counter(((r.get("program") or {}).get("difficulty") or {}).get("level") or "unknown" for r in mine)
        level_chart = _bar_chart("level", {k: levels[k] for k in ("easy", "medium", "hard", "unknown") if levels[k]})
        parts.append("<div class='charts'>" + "".join(_bar_chart(name, counts)
                                                      for name, counts in dist.get(task, {}).items())
                     + level_chart + _audit_levels(out, task) + "</div>")
        parts.append("<div class='grid'>" + "".join(_card(r) for r in tiny(mine, per_task, seed)) + "</div>")
    parts.append(_failures(out))
    parts.append(_scores(out, score_files))
    parts.append(_audit(out))
    parts.append("</body></html>")
    return "\n".join(parts)


def _summary(records, manifest: dict) -> str:
    e = html.escape
    counts = manifest.get("counts", {})
    images = {p for r in records for p in r["images"]}
    return (f"<p>{len(records)} questions, {counts.get('images', len(images))} images; "
            f"misigen {e(str(manifest.get('version', '?')))}, Blender {e(str(manifest.get('blender') or '-'))}, "
            f"device {e(', '.join(manifest.get('device', [])) or '-')}, root seed {e(str(manifest.get('seed', '?')))}; "
            f"suite <code>{e(str(manifest.get('suite', '?')))}</code>.</p>")


def _card(rec: dict) -> str:
    e = html.escape
    figs = [f"<figure><a href='{e(p)}'><img src='{e(p)}' alt='image {k}'></a><figcaption>{k}</figcaption></figure>"
            for k, p in enumerate(rec["images"], 1)]
    opts = rec.get("options") or []
    if opts and all(isinstance(o, str) and o.startswith("images/") for o in opts):
        figs += [f"<figure><a href='{e(p)}'><img src='{e(p)}' alt='option {l}'></a><figcaption>option {l}</figcaption></figure>"
                 for l, p in zip("ABCD", opts)]
        options = ""
    else:
        options = "".join(f"<li>{l}. {e(t)}</li>" for l, t in zip("ABCD", option_texts(rec)))
        options = f"<ol type='A' style='list-style:none;padding-left:0'>{options}</ol>" if options else ""
    return (f"<div class='card'><div class='meta'>{e(rec['id'])} · {e(rec['split'])} · {e(str(rec.get('structure')))}"
            f"</div><div class='imgs'>{''.join(figs)}</div><details><summary>question</summary>"
            f"<pre class='q'>{e(rec.get('question', ''))}</pre></details>{options}"
            + (f"<details><summary>rationale</summary><pre class='q'>{e(rec['rationale'])}</pre></details>"
               if rec.get("rationale") else "")
            + f"<p>answer: <span class='answer'>{e(rec['answer'])}</span>"
            + (f" · level {e(str(rec['program']['difficulty']['level']))}"
               if ((rec.get("program") or {}).get("difficulty") or {}).get("level") else "") + "</p></div>")


def _audit_levels(out: Path, task: str) -> str:
    """The audit's guesser accuracy by level for one task (from audit.json), as a small table."""
    e = html.escape
    try:
        levels = json.loads((out / "audit.json").read_text())["tasks"][task].get("levels") or {}
    except (OSError, ValueError, KeyError):
        return ""
    if not levels:
        return ""
    names = sorted({g for lv in levels.values() for g in lv["guessers"]})
    head = "".join(f"<th>{e(level)} ({lv['n']})</th>" for level, lv in levels.items())
    body = "".join(f"<tr><td>{e(g)}</td>" + "".join(
        f"<td>{lv['guessers'][g]:.2f}</td>" if g in lv["guessers"] else "<td></td>" for lv in levels.values()) + "</tr>"
        for g in names)
    return f"<table><caption>blind guessers' accuracy by level</caption><tr><th>guesser</th>{head}</tr>{body}</table>"


def _bar_chart(name: str, counts: dict) -> str:
    """A small horizontal bar chart as inline SVG (no plotting library needed)."""
    e = html.escape
    items = sorted(counts.items(), key=lambda kv: _value_order(kv[0]))
    if not items:
        return ""
    top = max(v for _, v in items) or 1
    row, label_w, bar_w = 16, 70, 160
    h = row * len(items) + 22
    bars = [f"<text x='0' y='12' font-size='12' font-weight='bold'>{e(name)}</text>"]
    for i, (label, v) in enumerate(items):
        y = 20 + i * row
        w = bar_w * v / top
        bars.append(f"<text x='{label_w - 4}' y='{y + 11}' font-size='11' text-anchor='end'>{e(str(label))}</text>"
                    f"<rect x='{label_w}' y='{y + 2}' width='{w:.1f}' height='{row - 4}' fill='#6a8fd8'/>"
                    f"<text x='{label_w + w + 3:.1f}' y='{y + 11}' font-size='11'>{v}</text>")
    return f"<svg width='{label_w + bar_w + 40}' height='{h}' role='img' aria-label='{e(name)}'>{''.join(bars)}</svg>"


def _value_order(label) -> tuple:
    """Bars in value order: numbers (answers' degrees, Å, counts) numerically, before any text;
    text labels (axes, letters, Yes/No) alphabetically."""
    try:
        return (0, float(label), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(label))


def _failures(out: Path) -> str:
    e = html.escape
    path = out / "failures.jsonl"
    rows = []
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                rows.append(json.loads(line))
            except ValueError:
                rows.append({"why": f"(unreadable line) {line[:200]}"})
    head = f"<h2 id='failures'>Failures</h2><p>{len(rows)} skipped inputs or samples.</p>"
    if not rows:
        return head
    body = "".join(f"<tr><td>{e(str(f.get('structure', '')))}</td><td>{e(str(f.get('task') or ''))}</td>"
                   f"<td>{e(str(f.get('sample') if f.get('sample') is not None else ''))}</td>"
                   f"<td style='text-align:left'>{e(str(f.get('why', '')))}</td></tr>" for f in rows[:FAILURES_SHOWN])
    more = f"<p>… and {len(rows) - FAILURES_SHOWN} more in failures.jsonl</p>" if len(rows) > FAILURES_SHOWN else ""
    return head + ("<table><tr><th>structure</th><th>task</th><th>sample</th><th style='text-align:left'>why</th></tr>"
                   f"{body}</table>{more}")


def _scores(out: Path, score_files: list) -> str:
    e = html.escape
    files = sorted((out / "scores").glob("*.json")) if (out / "scores").is_dir() else []
    files += [Path(f) for f in score_files]
    parts = ["<h2 id='scores'>Scores</h2>"]
    if not files:
        parts.append("<p>No score tables (write them with <code>score --json OUT/scores/NAME.json</code>).</p>")
    for f in files:
        try:
            s = json.loads(Path(f).read_text(encoding="utf-8"))
            rows, avg = s["tasks"], s["average"]
        except (OSError, ValueError, KeyError) as exc:
            parts.append(f"<p>{e(str(f))}: not a score file ({e(str(exc))})</p>")
            continue
        body = "".join(f"<tr><td>{e(k)}</td><td>{r['n']}</td><td>{r['composite']:.2f}</td><td>{r['exact']:.2f}</td>"
                       f"<td>{'' if 'f1' not in r else format(r['f1'], '.2f')}</td><td>{r['unparsed']}</td></tr>"
                       for k, r in rows.items())
        body += "".join(f"<tr><th>average, {e(k)}</th><td>{a['n']}</td><td>{a['composite']:.2f}</td>"
                        f"<td>{a['exact']:.2f}</td><td></td><td>{a['unparsed']}</td></tr>" for k, a in avg.items())
        parts.append(f"<h3>{e(Path(f).stem)}</h3><p class='meta'>{e(str(s.get('predictions', '')))}</p>"
                     "<table><tr><th>row</th><th>n</th><th>composite %</th><th>exact %</th><th>F1 %</th>"
                     f"<th>unparsed</th></tr>{body}</table>")
    return "".join(parts)


def _audit(out: Path) -> str:
    e = html.escape
    files = sorted(out.glob("audit*.json"))
    if not files:
        return ""
    parts = ["<h2 id='audit'>Audit</h2>"]
    for f in files:
        try:
            report = json.loads(f.read_text(encoding="utf-8"))
        except ValueError as exc:
            parts.append(f"<h3>{e(f.name)}</h3><p>not JSON: {e(str(exc))}</p>")
            continue
        try:                    # the audit's own table; its raw JSON if that cannot be formatted
            from ..core.tasks.audit import format_audit
            text = format_audit(report)
        except Exception:  # noqa: BLE001 - an audit file of another version still shows
            text = json.dumps(report, indent=1, sort_keys=True)
        parts.append(f"<h3>{e(f.name)}</h3><pre class='q'>{e(text)}</pre>")
    return "".join(parts)
