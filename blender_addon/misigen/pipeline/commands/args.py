"""Argument types and option groups that several commands share, and what their values become.

A bad value is an argparse error naming the option (exit 2), before any work.
"""
from __future__ import annotations

import argparse
import sys

from ...core.look.style import RESOLUTION_RANGE, load_style


# ------------------------------------------------------------------ argument types
def whole(minimum: int, maximum: int | None = None):
    """A whole number in [minimum, maximum]."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            bound = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value
    return parse


def fraction(minimum: float, strict: bool = False):
    """A number of at least (``strict``: more than) ``minimum``."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
        if value < minimum or (strict and value == minimum) or value != value:
            raise argparse.ArgumentTypeError(f"must be {'more than' if strict else 'at least'} {minimum}, got {text}")
        return value
    return parse


def altloc(text: str) -> str:
    from ...core.structure.readers import ReadOptions
    try:
        return ReadOptions(altloc=text).altloc
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def device(text: str) -> str:
    from ...render.device import parse_device   # no bpy needed to check a name
    try:
        return parse_device(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# ------------------------------------------------------------------ reading PDB/mmCIF files
def add_reading_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("reading PDB/mmCIF files")
    g.add_argument("--model", type=whole(1), default=1, metavar="N",
                   help="read the N-th model of each file (NMR ensembles have many; default: 1, the first)")
    g.add_argument("--altloc", type=altloc, default="occupancy", metavar="RULE",
                   help="alternate locations, per residue: occupancy (highest mean occupancy, then lowest "
                        "B-factor: ChimeraX's choice), first (the first letter), or a letter such as B "
                        "(that location where a residue has it, else occupancy) (default: occupancy)")


def reading_from_args(args):
    from ...core.structure.readers import ReadOptions
    return ReadOptions(model=args.model, altloc=args.altloc)


def with_reading(sources, args) -> list:
    from dataclasses import replace
    reading = reading_from_args(args)
    return [replace(s, reading=reading) for s in sources]


def unreadable(discovery) -> list:
    """The inputs that could not be read (permissions, I/O errors), each said in one line."""
    return [u for u in discovery.unused if u.unreadable]


# ------------------------------------------------------------------ style and rendering
def add_style_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("style and rendering")
    g.add_argument("--scene", default="misi_bench", help="style preset: a bundled or user preset name, or a "
                                                         "YAML path (default: misi_bench)")
    g.add_argument("--resolution", nargs=2, type=whole(*RESOLUTION_RANGE), metavar=("W", "H"),
                   help="image size in pixels (default: the preset's)")
    g.add_argument("--samples", type=whole(1, 65536), metavar="K",
                   help="Cycles samples per pixel (default: the preset's)")
    g.add_argument("--device", default="auto", type=device, metavar="DEVICE",
                   help="auto (first GPU backend found, else CPU) | cpu | gpu | OPTIX | CUDA | HIP | ONEAPI | "
                        "METAL; a device that cannot be had is an error before any work (default: auto)")
    g.add_argument("--projection", choices=("perspective", "orthographic"),
                   help="camera projection (default: the preset's, perspective)")
    g.add_argument("--no-labels", action="store_true", help="draw no labels")
    g.add_argument("--whole-protein", action="store_true", help="show the whole protein, not the pocket")
    add_keep_args(g)


def add_keep_args(g) -> None:
    g.add_argument("--keep-metals", action="store_true",
                   help="metal ions count as pocket residues and interaction partners (default: protein only)")
    g.add_argument("--keep-cofactors", action="store_true",
                   help="cofactors (HETATM groups neither the ligand, a copy of it, nor on the exclusion list "
                        "of core/data/het_groups.yaml) count as pocket residues and partners (default: protein only)")


def keep_from_args(args) -> tuple:
    return tuple(k for k in ("metals", "cofactors") if getattr(args, f"keep_{k}", False))


def style_from_args(args) -> dict:
    """The preset ``--scene`` with the style options given on the command line (checked by ``load_style``)."""
    over: dict = {}
    if args.resolution:
        over.setdefault("render", {})["resolution"] = list(args.resolution)
    if args.samples is not None:
        over.setdefault("render", {})["samples"] = args.samples
    if args.projection:
        over.setdefault("camera", {})["projection"] = args.projection
    if args.whole_protein:
        over.setdefault("selection", {})["pocket_cutoff"] = 0.0
    for k in keep_from_args(args):
        over.setdefault("selection", {})[k] = True
    return load_style(args.scene, over or None)


def probe_device(args) -> str:
    """One clear error before any work if the device cannot be had; says when auto falls back."""
    from ...render.device import probe_device as probe

    choice = probe(args.device)
    print(f"device: {choice.describe()}" + (f" ({choice.note})" if choice.note else ""), file=sys.stderr)
    return choice.describe()


# ------------------------------------------------------------------ choosing questions of a dataset
def add_subset_args(p, default_split) -> None:
    help_split = "train | test | all" + ("" if default_split else
                                         " (default: hf all, sharegpt train, lmms-eval test)")
    p.add_argument("--split", default=default_split, choices=("train", "test", "all"), help=help_split)
    p.add_argument("--tiny", type=int, metavar="N", help="N questions per task, drawn deterministically from the seed")
    p.add_argument("--seed", type=int, help="seed of the --tiny and few-shot draws (default: the dataset's)")
