"""What the commands print when they finish: one place for the human-readable summaries
(the manifests hold the same numbers for programs)."""
from __future__ import annotations

import sys
from pathlib import Path


def print_render_summary(summary: dict) -> None:
    times = ", ".join(f"{im['view']} {im['seconds']:.2f}s" for im in summary["images"])
    print(f"{summary['structure']}: {summary['atoms_shown']} atoms, device {summary['device']}, "
          f"load {summary['load_seconds']:.2f}s, scene {summary['build_seconds']:.2f}s, {times}")


def print_generate_summary(manifest: dict, out: Path) -> None:
    run, c = manifest["this_run"], manifest["counts"]
    print(f"{run['structures']} structure(s) processed ({run['done']} done, {run['failed']} failed, "
          f"{run['skipped_as_done']} skipped as already done) by {run['executor']}; "
          f"{run['images_rendered']} images rendered ({run['images_per_second']} per s), "
          f"{run['qa_records']} QA records this run; device {', '.join(manifest['device']) or '-'}; "
          f"{run['wall_seconds']:.1f} s")
    not_used = manifest.get("inputs_not_used", [])
    print(f"dataset {out}: {c['records']} QA records, {c['images']} images ({c['images_per_qa']} per QA), "
          f"{c['structures']} structures, {c['failures']} failure line(s) in failures.jsonl"
          + (f" ({len(not_used)} file(s) given but not used)" if not_used else ""))
    for key, n in c["per_task_split"].items():
        print(f"  {key}: {n}")


def print_unused_inputs(manifest: dict, limit: int = 20) -> None:
    not_used = manifest.get("inputs_not_used", [])
    for u in not_used[:limit]:
        print(f"not used: {u['where']}: {u['why'].removeprefix('not used: ')}", file=sys.stderr)
    if len(not_used) > limit:
        print(f"not used: … and {len(not_used) - limit} more (see failures.jsonl)", file=sys.stderr)


def print_audit_line(audit: dict, out: Path) -> None:
    print(f"audit: {'OK' if audit['ok'] else 'FAIL'} ({len(audit['flagged'])} guesser(s) above chance, "
          f"{len(audit['known'])} known, {len(audit.get('too_few', []))} with too few questions to judge, "
          f"{len(audit.get('unneeded', []))} step(s) needed too seldom, "
          f"{audit['repeated_images']} record(s) with repeated images; "
          f"details: {Path(out) / 'audit.json'})")


def print_merge_summary(manifest: dict, folders: int, out: Path) -> None:
    c = manifest["counts"]
    print(f"merged {folders} folder(s): {c['records']} records, {c['images']} images, "
          f"{c['structures']} structures -> {out}")
    missing_ids = manifest.get("structures_missing", [])
    if missing_ids:
        print(f"incomplete: {len(missing_ids)} structure(s) of the run have no finished part yet, e.g. "
              f"{', '.join(missing_ids[:5])}", file=sys.stderr)


def ligand_title(s) -> str:
    """``GDP:Z:1151+7MG:Z:1152 (52 atoms, chemistry: ccd)``: the ligand as one, composite or not."""
    lig = s.ligand
    name = s.meta.get("ligand_id") or f"{s.resname[lig][0]} (from {Path(str(s.meta.get('ligand_source', ''))).name})"
    return f"{name} ({int(lig.sum())} atoms, chemistry: {s.meta.get('ligand_chemistry', 'file')})"
