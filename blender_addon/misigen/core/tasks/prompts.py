"""Text pieces that fill the prompt templates: images, colours, frame rules, grammar."""
from __future__ import annotations

from ..commands import format_number

COLOUR_NAMES = {"#000000": "black", "#FFFFFF": "white", "#909090": "grey", "#FF0D0D": "red",
                "#3050F8": "blue", "#FFFF30": "yellow", "#FF8000": "orange", "#BF99F2": "light purple",
                "#F2B366": "light orange", "#90E050": "light green", "#1FF01F": "green",
                "#A62929": "dark red", "#940094": "violet", "#7D80B0": "slate blue"}

VIEW_TEXT = {
    "front": "from the front (start orientation)",
    "left": "from the left (models turned +90° about Y, so their left side faces you)",
    "right": "from the right (models turned −90° about Y)",
    "top": "from the top (models turned +90° about X, so their top faces you)",
    "bottom": "from the bottom (models turned −90° about X)",
    "back": "from the back (models turned 180° about Y)",
}


def colour_name(hex_colour: str) -> str:
    return COLOUR_NAMES.get(hex_colour.upper(), hex_colour)


def colours_text(style: dict, parts=("protein", "ligand")) -> str:
    c = style["colors"]
    el = c["elements"]
    bits = [f"The background is {colour_name(style['background'])}."]
    bits.append(f"Atoms are coloured by element: oxygen {colour_name(el.get('O', c['default']))}, "
                f"nitrogen {colour_name(el.get('N', c['default']))}, sulfur {colour_name(el.get('S', c['default']))}"
                f"{', hydrogens ' + colour_name(el['H']) if style['selection']['hydrogens'] else ''}.")
    if "ligand" in parts:
        bits.append(f"Ligand carbons are {colour_name(c['ligand_carbon'])}.")
    if "protein" in parts:
        pc = [colour_name(x) for x in c["pocket_carbon"]]
        if len(pc) > 1:
            bits.append(f"Protein residue carbons alternate {' and '.join(pc)} from residue to residue.")
        else:
            bits.append(f"Protein residue carbons are {pc[0]}.")
    if not style["selection"]["hydrogens"]:
        bits.append("Hydrogens and waters are not shown.")
    lab = style["labels"]
    if lab["enabled"]:
        what = []
        if lab["residues"] and "protein" in parts:
            what.append("residues are labelled with name and number (e.g. ARG 221)")
        if lab["ligand_atoms"] and "ligand" in parts:
            what.append("ligand atoms with their atom names")
        if what:
            bits.append("Labels: " + "; ".join(what) + ".")
    return " ".join(bits)


def frame_rules(style: dict) -> str:
    proj = style["camera"]["projection"]
    cam = (f"a fixed perspective camera ({format_number(style['camera']['fov_deg'])}° field of view)"
           if proj == "perspective" else "a fixed orthographic camera")
    return ("Coordinate frame: every image is taken by " + cam + " looking at the front view; "
            "X points right, Y points up and Z points out of the screen toward the viewer (right-handed). "
            "Transformations act on the molecules, not the camera, and are given in this screen frame: "
            "'move x d' / 'move y d' translates them by d Å right / up (negative: left / down); "
            "'move z d' translates them d Å toward the viewer (they appear larger); "
            "'roll x|y|z a' rotates them by a degrees about that screen axis through the centre of rotation "
            "(the centroid of the shown atoms, which moves with them), counter-clockwise when looking "
            "from the positive end of the axis (right-hand rule).")


COMMAND_GRAMMAR = ("Commands: 'move AXIS VALUE' (Å) or 'roll AXIS VALUE' (degrees), AXIS one of x, y, z, "
                   "VALUE a signed number; several commands are separated by ', ' and applied left to right.")


def image_list(entries: list[str]) -> str:
    return "\n".join(f"Image {k}: {text}" for k, text in enumerate(entries, 1))


def view_text(view: str) -> str:
    return VIEW_TEXT.get(view, view)


def values_text(values: list, unit: str) -> str:
    vals = sorted(values)
    step = min((b - a for a, b in zip(vals, vals[1:])), default=0)
    excl = "" if 0 in vals or vals[0] > 0 or vals[-1] < 0 else ", never 0"
    return (f"from {format_number(vals[0])} to {format_number(vals[-1])} {unit}"
            f"{' in steps of ' + format_number(step) if step else ''}{excl}")
