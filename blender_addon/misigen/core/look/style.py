"""Scene/style presets (``scenes/*.yaml``): loading, validation, per-atom colours and radii.

A preset may leave out any key; what it leaves out comes from the reference preset
``scenes/misi_bench.yaml``. Unknown keys and wrong types are errors naming file and key.
"""
from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import numpy as np
import yaml

from ..data_files import vdw_radius
from ..errors import InputError
from ..resources import preset_path, scenes_dir
from ..structure.model import Structure

SCENES_DIR = scenes_dir()          # bundled presets: package data, or the checkout's scenes/
REFERENCE_PRESET = "misi_bench"
REPRESENTATIONS = ("ball_and_stick", "sticks", "spheres")


def read_yaml(path: Path):
    """Safe-load a YAML file; any problem becomes an InputError naming the file."""
    try:
        with open(path, encoding="utf-8") as fh:
            return yaml.safe_load(fh)
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise InputError(path, f"invalid YAML: {exc}".replace("\n", " ")) from None


def _merge_checked(base, override, path, where=""):
    """Deep-merge ``override`` into a copy of ``base``; keys and types must exist in base."""
    if not isinstance(override, dict):
        raise InputError(path, f"{where or 'preset'}: expected a mapping, got {type(override).__name__}")
    out = copy.deepcopy(base)
    for key, value in override.items():
        here = f"{where}.{key}" if where else str(key)
        if key not in base:
            raise InputError(path, f"unknown key {here!r}")
        ref = base[key]
        if isinstance(ref, dict) and key != "elements":
            out[key] = _merge_checked(ref, value, path, here)
        elif isinstance(ref, dict):  # element colour table: any element symbol may be added
            if not isinstance(value, dict):
                raise InputError(path, f"{here}: expected a mapping of element → colour")
            out[key] = {**ref, **{str(k): _check_colour(v, path, f"{here}.{k}") for k, v in value.items()}}
        else:
            out[key] = _check_type(ref, value, path, here)
    return out


def _check_type(ref, value, path, where):
    if isinstance(ref, bool):
        ok = isinstance(value, bool)
    elif isinstance(ref, (int, float)):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif isinstance(ref, str):
        ok = isinstance(value, str)
    elif isinstance(ref, list):
        ok = isinstance(value, list) and len(value) == len(ref) if ref and not isinstance(ref[0], str) \
            else isinstance(value, list) and len(value) > 0
    else:
        ok = True
    if not ok:
        raise InputError(path, f"{where}: expected {type(ref).__name__} like {ref!r}, got {value!r}")
    if isinstance(ref, str) and ref.startswith("#"):
        _check_colour(value, path, where)
    return value


def _check_colour(value, path, where):
    if not (isinstance(value, str) and len(value) == 7 and value[0] == "#"):
        raise InputError(path, f"{where}: colour must be '#RRGGBB', got {value!r}")
    try:
        int(value[1:], 16)
    except ValueError:
        raise InputError(path, f"{where}: colour must be '#RRGGBB', got {value!r}") from None
    return value


def _preset_chain(path: Path, ref_path: Path) -> list[tuple[Path, dict]]:
    """The preset files that make ``path``, outermost first: each may name another it ``extends``
    (default: the reference preset, which extends nothing)."""
    chain, seen = [], set()
    while path.resolve() != ref_path.resolve():
        if path.resolve() in seen:
            raise InputError(path, "extends: these presets extend one another in a circle")
        seen.add(path.resolve())
        data = read_yaml(path) or {}
        if not isinstance(data, dict):
            raise InputError(path, f"preset: expected a mapping, got {type(data).__name__}")
        data = dict(data)
        parent = data.pop("extends", None)
        chain.append((path, data))
        if parent is None:
            break
        if not isinstance(parent, str):
            raise InputError(path, f"extends: expected a preset name or path, got {parent!r}")
        path = preset_path(parent)
    return chain[::-1]


def load_style(name_or_path: str | Path = REFERENCE_PRESET, overrides: dict | None = None) -> dict:
    """A complete, validated style dict: the reference preset, each preset the named one extends,
    the named preset, then ``overrides``."""
    ref_path = SCENES_DIR / f"{REFERENCE_PRESET}.yaml"
    style = read_yaml(ref_path)
    chain = _preset_chain(preset_path(name_or_path), ref_path)
    for path, data in chain:
        style = _merge_checked(style, data, path)
    if overrides:
        style = _merge_checked(style, overrides, "command line")

    def blame(key: str):
        """Who set ``key``: the command line, the innermost preset that sets it, else the reference."""
        sources = [(overrides or {}, COMMAND_LINE.get(key, "command line"))] + [(d, p) for p, d in chain[::-1]]
        for source, where in sources:
            node = source
            for part in key.split("."):
                node = node.get(part) if isinstance(node, dict) else None
            if node is not None:
                return where
        return ref_path

    _check_style(style, blame)
    return style


def _check_style(style: dict, blame) -> None:
    """Enumerations, ranges and consistency of a merged style; ``blame(key)`` names who set a key."""
    for key, allowed in CHOICES.items():
        node = style
        for part in key.split("."):
            node = node[part]
        if node not in allowed:
            raise InputError(blame(key), f"{key} must be one of {', '.join(allowed)}, got {node!r}")
    for key, (low, high, low_open, high_open, whole) in RANGES.items():
        node = style
        for part in key.split("."):
            node = node[part]
        for value in (node if isinstance(node, list) else [node]):
            bad = (whole and not isinstance(value, int)) or value != value or \
                value < low or value > high or (low_open and value == low) or (high_open and value == high)
            if bad:
                bounds = f"{'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
                raise InputError(blame(key), f"{key} must be {'whole numbers' if whole else 'in'} "
                                             f"{'in ' if whole else ''}{bounds}, got {node!r}")
    if not style["scale_bar"]["length"] > 0:
        raise InputError(blame("scale_bar.length"), "scale_bar.length must be a positive number of Å")
    for key in ("lighting.key_direction", "lighting.fill_direction"):
        if not any(abs(float(c)) > 0 for c in style["lighting"][key.split(".")[1]]):
            raise InputError(blame(key), f"{key} must not be the zero vector")
    cue = style["depth_cue"]
    if not cue["start"] < cue["end"]:
        raise InputError(blame("depth_cue.end"), f"depth_cue.start ({cue['start']}) must be below depth_cue.end "
                                                 f"({cue['end']})")


# Numeric settings a render can use: key -> (low, high, low open, high open, whole numbers).
# Resolution: Cycles takes more, but labels and memory are only tested up to 8192 px a side.
RESOLUTION_RANGE = (16, 8192)
CHOICES = {"representation": REPRESENTATIONS, "camera.projection": ("perspective", "orthographic"),
           "scale_bar.corner": ("bottom_left", "bottom_right"), "lighting.model": ("direct", "path")}
RANGES = {
    "camera.fov_deg": (0.0, 180.0, True, True, False),
    "camera.margin": (0.0, 0.95, False, False, False),
    "render.resolution": (*RESOLUTION_RANGE, False, False, True),
    "render.samples": (1, 65536, False, False, True),
    "render.filter_width": (0.01, 100.0, False, False, False),
    "atom_scale": (0.0, 10.0, True, False, False),
    "bond_radius": (0.0, 5.0, True, False, False),
    "selection.pocket_cutoff": (0.0, 1000.0, False, False, False),
    "labels.size_px": (1, 1000, False, False, False),
    "labels.min_size_px": (1, 1000, False, False, False),
    "labels.outline_luminance": (0.0, 1.0, False, False, False),
    "lighting.key_strength": (0.0, 1000.0, False, False, False),
    "lighting.fill_strength": (0.0, 1000.0, False, False, False),
    "lighting.ambient": (0.0, 1000.0, False, False, False),
    "lighting.reflectivity.ambient": (0.0, 10.0, False, False, False),
    "lighting.reflectivity.diffuse": (0.0, 10.0, False, False, False),
    "lighting.reflectivity.specular": (0.0, 10.0, False, False, False),
    "lighting.specular_exponent": (0.0, 10000.0, False, False, False),
    "lighting.sun_angle_deg": (0.0, 180.0, False, False, False),
    "depth_cue.start": (0.0, 1.0, False, False, False),
    "depth_cue.end": (0.0, 10.0, True, False, False),
}
# The flag that sets a key from the command line (named when its value is out of range).
COMMAND_LINE = {"render.resolution": "--resolution", "render.samples": "--samples",
                "camera.projection": "--projection", "selection.pocket_cutoff": "--whole-protein"}


def suite_style(style: dict, options) -> dict:
    """The style a suite's tasks render with: ``style`` with the options the suite sets (its
    ``style`` section, ``options``; unset values keep the preset's). The same dict when nothing changes."""
    over = {sec: {k: v for k, v in (vals or {}).items() if v is not None}
            for sec, vals in (options or {}).items()}
    if all(style[sec].get(k) == v for sec, vals in over.items() for k, v in vals.items()):
        return style
    out = copy.deepcopy(style)
    for sec, vals in over.items():
        out[sec].update(vals)
    return out


def style_hash(style: dict) -> str:
    return hashlib.sha256(json.dumps(style, sort_keys=True).encode()).hexdigest()[:16]


def hex_to_rgb(colour: str) -> tuple[float, float, float]:
    """'#RRGGBB' → sRGB floats in 0..1."""
    return tuple(int(colour[i:i + 2], 16) / 255.0 for i in (1, 3, 5))


def atom_colours(s: Structure, style: dict) -> np.ndarray:
    """(N, 3) sRGB colours: element colours; ligand C grey; pocket C alternating by residue."""
    table = style["colors"]
    elements = table["elements"]
    default = hex_to_rgb(table["default"])
    out = np.array([hex_to_rgb(elements[e]) if e in elements else default for e in s.element])
    lig_c = s.ligand & (s.element == "C")
    out[lig_c] = hex_to_rgb(table["ligand_carbon"])
    palette = [hex_to_rgb(c) for c in table["pocket_carbon"]]
    res = s.residue_index()
    order = {r: k for k, r in enumerate(sorted(set(res[~s.ligand].tolist())))}
    for i in np.nonzero(~s.ligand & (s.element == "C"))[0]:
        out[i] = palette[order[res[i]] % len(palette)]
    return out


def atom_radii(s: Structure, style: dict) -> np.ndarray:
    """Sphere radius per atom (Å) for the preset's representation."""
    rep = style["representation"]
    elements, which = np.unique(s.element, return_inverse=True)
    vdw = np.array([vdw_radius(e) for e in elements.tolist()], float)[which.reshape(-1)]
    if rep == "spheres":
        return vdw
    if rep == "sticks":
        return np.full(s.n_atoms, float(style["bond_radius"]))
    return np.maximum(vdw * float(style["atom_scale"]), float(style["bond_radius"]) * 1.2)
