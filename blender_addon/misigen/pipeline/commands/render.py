"""``render``: named views of structures, each image with its sidecar annotation."""
from __future__ import annotations

from pathlib import Path

from ...core.errors import InputError
from ..exit_codes import EXIT_NOTHING, EXIT_OK, EXIT_PARTIAL
from .args import add_reading_args, add_style_args, probe_device, reading_from_args, style_from_args, unreadable, \
    with_reading


def add_parser(sub) -> None:
    p = sub.add_parser("render", help="render views of structures, each with a sidecar annotation")
    p.add_argument("--structures", nargs="+", required=True, help="files or folders (PDBbind layout)")
    p.add_argument("--out", required=True, type=Path, help="output folder")
    p.add_argument("--views", default="front", help="comma-separated: front,left,right,top,bottom,back "
                                                    "(default: front)")
    p.add_argument("--transform", help="applied after the view, e.g. 'move x 3, roll y 15'")
    p.add_argument("--ligand", help="RES:CHAIN:NUM of the HETATM ligand (PDB input)")
    add_reading_args(p)
    add_style_args(p)


def render_views(text: str, transform: str | None) -> list[str]:
    """``--views`` as names, and ``--transform`` parsed: bad ones are bad arguments, before any loading."""
    from ...core.scene import geometry
    from ...core.op_grammar import parse_ops

    views = [v.strip() for v in text.split(",") if v.strip()]
    if not views:
        raise InputError("--views", f"give at least one of {', '.join(geometry.canonical_views())}")
    for view in views:
        try:
            geometry.view_ops(view)
        except ValueError as exc:
            raise InputError("--views", str(exc)) from None
    if transform is not None:
        if not transform.strip():
            raise InputError("--transform", "is empty; leave it out or give e.g. 'move x 3, roll y 15'")
        try:
            parse_ops(transform)
        except ValueError as exc:
            raise InputError("--transform", str(exc)) from None
    return views


def run(args) -> int:
    from ...core.structure.loader import discover_inputs
    from ..folder_lock import make_output_folder

    views = render_views(args.views, args.transform)
    style = style_from_args(args)
    discovery = discover_inputs(args.structures)
    sources = with_reading(discovery.sources, args)
    make_output_folder(Path(args.out), create=False)   # a bad --out is one line before any work
    probe_device(args)
    from ..views import render_views_folder

    out = Path(args.out)
    make_output_folder(out)
    done, failures = render_views_folder(sources, unreadable(discovery), style, out, views, args.transform,
                                         args.ligand, args.device, labels=not args.no_labels,
                                         reading=reading_from_args(args))
    print(f"wrote {sum(len(s['images']) for s in done)} images to {out}/images "
          f"({failures} structure(s) failed)")
    if not done:
        return EXIT_NOTHING
    return EXIT_PARTIAL if failures else EXIT_OK
