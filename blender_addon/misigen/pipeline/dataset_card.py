"""The dataset card ``OUT/README.md``, written from the manifest at the end of every merge:
what was generated from which inputs (and their licence and provenance notes), with which
tool, Blender version, device, specs and seeds. Nothing in it depends on how the run was
split into shards or resumed, so it is as reproducible as the annotations.
"""
from __future__ import annotations

import collections
import hashlib
from pathlib import Path

from .output import inside, write_text_atomic

# Files beside the inputs that say where they came from and under which licence.
NOTICE_PREFIXES = ("license", "licence", "copying", "notice", "sources", "citation")
NOTICE_MAX_CHARS = 4000
INPUTS_LISTED = 50


def input_notices(structure_paths) -> list[dict]:
    """Licence/provenance files in the given input folders (or beside given files):
    [{"folder", "file", "sha256", "text"}], sorted, text cut at NOTICE_MAX_CHARS."""
    folders = set()
    for p in structure_paths:
        p = Path(p)
        folders.add(p if p.is_dir() else p.parent)
    found = {}
    for folder in sorted(folders):
        if not folder.is_dir():
            continue
        for f in sorted(folder.iterdir()):
            if f.is_file() and f.name.lower().startswith(NOTICE_PREFIXES) and f.stat().st_size < 1 << 20:
                data = f.read_bytes()
                text = data.decode("utf-8", errors="replace")
                found[(folder.name, f.name)] = {
                    "folder": folder.name, "file": f.name, "sha256": hashlib.sha256(data).hexdigest(),
                    "text": text if len(text) <= NOTICE_MAX_CHARS else text[:NOTICE_MAX_CHARS] + "\n[…]"}
    return [found[k] for k in sorted(found)]


def write_dataset_card(out: Path, manifest: dict) -> Path:
    path = inside(out, "README.md")
    write_text_atomic(path, dataset_card(manifest))
    return path


def dataset_card(manifest: dict, heading_level: int = 1) -> str:
    h = "#" * heading_level
    counts = manifest.get("counts", {})
    per = collections.defaultdict(dict)
    for key, n in counts.get("per_task_split", {}).items():
        task, split = key.rsplit("/", 1)
        per[task][split] = n
    tasks = [t for t in manifest.get("tasks", []) if t in per] + sorted(set(per) - set(manifest.get("tasks", [])))
    suite = Path(str(manifest.get("suite", "") or "suite")).stem
    lines = [f"{h} misigen dataset: {suite}", "",
             "Molecular spatial-reasoning questions for vision-language models, rendered from protein–ligand "
             "structures by misigen in the layout of MiSI-Bench "
             "(arXiv 2512.10867).", "",
             f"{counts.get('records', 0)} questions, {counts.get('images', 0)} images "
             f"({counts.get('images_per_qa', 0)} per question), {counts.get('failures', 0)} skipped inputs or "
             f"samples (see `failures.jsonl`).", ""]
    if tasks:
        lines += [f"{h}# Questions per task", "", "| task | train | test |", "|---|--:|--:|"]
        lines += [f"| {t} | {per[t].get('train', 0)} | {per[t].get('test', 0)} |" for t in tasks]
        lines.append("")
    inputs = manifest.get("inputs", {})
    lines += [f"{h}# Inputs", "", f"{len(inputs)} structure(s); the split is by structure "
              f"(mode `{manifest.get('split', '?')}`).", "", "| structure | files | sha256 (of the files' hashes) |",
              "|---|---|---|"]
    for sid in sorted(inputs)[:INPUTS_LISTED]:
        info = inputs[sid]
        lines.append(f"| {sid} | {', '.join(info.get('files', []))} | `{str(info.get('sha256', ''))[:16]}…` |")
    if len(inputs) > INPUTS_LISTED:
        lines.append(f"| … and {len(inputs) - INPUTS_LISTED} more (all in `manifest.json`) | | |")
    lines += ["", f"{h}# Licences and provenance of the inputs", "",
              "The images and annotations are derived from the input structures: their licences and terms of "
              "use apply to this dataset."]
    notices = manifest.get("input_notices", [])
    if notices:
        lines += ["These notes were found beside the inputs:", ""]
        for n in notices:
            lines += [f"**{n['folder']}/{n['file']}** (sha256 `{n['sha256'][:16]}…`)", "", "```", n["text"].rstrip(),
                      "```", ""]
    else:
        lines += ["No licence or provenance file was found beside the inputs: check the terms of your "
                  "input structures before sharing this dataset.", ""]
    specs = manifest.get("spec_sha256", {})
    lines += [f"{h}# How it was made", "",
              f"- tool: {manifest.get('tool', 'misigen')} {manifest.get('version', '?')}",
              f"- Blender: {manifest.get('blender') or 'not used (plan only)'}; device: "
              f"{', '.join(manifest.get('device', [])) or '-'}",
              f"- task suite: `{manifest.get('suite', '?')}`; tasks: {', '.join(manifest.get('tasks', []))}",
              f"- root seed: {manifest.get('seed', '?')} (same inputs + seed give byte-identical annotations)",
              f"- style sha256: `{manifest.get('style_sha256', '?')}`",
              f"- annotations.jsonl sha256: `{manifest.get('annotations_sha256', '?')}`"]
    if specs:
        lines.append("- task spec sha256: " + ", ".join(f"{t} `{s[:12]}…`" for t, s in sorted(specs.items())))
    audit = manifest.get("audit")
    if isinstance(audit, dict):
        flagged = audit.get("flagged") or []
        lines.append("- blind-baseline audit (`audit.json`): " + ("no guesser beats chance" if audit.get("ok") else
                     f"{len(flagged)} flag(s): " + "; ".join(str(f) for f in flagged[:5])) +
                     f", {len(audit.get('too_few') or [])} guesser(s) with too few questions to judge"
                     f", {audit.get('repeated_images', 0)} record(s) with repeated images")
    lines += ["", f"{h}# Files", "",
              "- `annotations.jsonl`: one question per line: `id`, `task`, `split`, `structure`, `question` (the "
              "full prompt), `images` (paths, prompt order), `options` (null, four texts, or four option image "
              "paths), `answer`, `program` (machine-readable ground truth), `seed`",
              "- `images/<key>.png` and `images/<key>.json`: each distinct render once, with a sidecar giving "
              "the camera and every shown atom's identity, camera coordinates, pixel and visibility",
              "- `manifest.json`: versions, device, seeds, hashes, counts, answer balance",
              "- `failures.jsonl`: what was skipped, where and why", "",
              f"{h}# Use", "",
              "    python run_blender.py score --dataset OUT --predictions P.jsonl      # MiSI-Bench Tables 1-2",
              "    python run_blender.py baseline --kind random --dataset OUT --out P.jsonl",
              "    python run_blender.py export --dataset OUT --format hf|sharegpt|lmms-eval --out DIR",
              "    python run_blender.py report OUT", "",
              f"{h}# Citation", "",
              "The tasks follow MiSI-Bench: *From Macro to Micro: Benchmarking Microscopic Spatial Intelligence "
              "on Molecules via Vision-Language Models*, arXiv 2512.10867 (2025).", ""]
    return "\n".join(lines)
