"""Text pieces that fill the prompt templates: images, colours, frame rules, grammar."""
from __future__ import annotations

from ..op_grammar import format_number

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
    if style["depth_cue"]["enabled"]:
        bits.append(f"Atoms fade toward the {colour_name(style['background'])} background with their distance "
                    "from the viewer (depth cueing): of two like atoms, the darker one is farther away.")
    return " ".join(bits)


def labels_text(plan, shown) -> str:
    """What the labels on the images say (and the chain convention), from the images' label plan."""
    if plan is None:
        return ""
    what = []
    prot = ~shown.ligand
    chains = sorted({str(c) for c in shown.chain[prot]}) if prot.any() else []
    if plan.residues and prot.any():
        what.append("each pocket residue with its name and number" +
                    (", followed by a dot and its chain (e.g. ARG 221.A is arginine 221 of chain A)"
                     if plan.chains else " (e.g. ARG 221)") +
                    ", placed at the residue's alpha carbon (CA)")
    if plan.residue_atoms:
        what.append("every atom of the residue with its atom name (e.g. N, CA, OD1)")
    if plan.ligand_atoms and shown.ligand.any():
        what.append("the ligand's atoms with their atom names")
    if plan.atoms:
        what.append("the protein's nitrogen and oxygen atoms in contact with the ligand with their atom names "
                    "alone (e.g. NZ, OD1: the atom of the residue it sits on)")
    if not what:
        return ""
    text = " Labels: " + "; ".join(what) + ". A label that would cover another is left out of that image."
    if plan.residues and prot.any() and not plan.chains and chains:
        text += (f" All residues shown belong to chain {chains[0]}." if chains[0]
                 else " The residues shown have no chain identifier (written '-').")
    return text


def frame_rules(style: dict) -> str:
    proj = style["camera"]["projection"]
    cam = (f"a perspective camera ({format_number(style['camera']['fov_deg'])}° field of view)"
           if proj == "perspective" else "an orthographic camera")
    return ("Coordinate frame: every image is taken by " + cam + " that never turns: it always looks along "
            "the screen's -Z axis. X points right, Y points up and Z points out of the screen toward the viewer "
            "(right-handed). The views (left, top, …) are the molecules turned in front of the camera. "
            "Transformations act on the molecules, not the camera, and are given in this screen frame: "
            "'move x d' / 'move y d' translates them by d Å right / up (negative: left / down); "
            "'move z d' translates them d Å toward the viewer (they appear larger); "
            "'roll x|y|z a' rotates them by a degrees about that screen axis through the centre of rotation "
            "(the centroid of the shown atoms, which moves with them), counter-clockwise when looking "
            "from the positive end of the axis (right-hand rule).")


FRAMING = {
    "views": "Each image is framed on its own: the camera is centred on what the image shows and set back "
             "until it fills the frame, so sizes differ slightly between images.",
    "cloze": "Each start view is framed on its own (the camera centred on it and set back until it fills the "
             "frame); image {after} keeps the camera of image {reference}, so positions and sizes in image "
             "{after} compare directly with image {reference}.",
    "choice_other_complex": "Each start view is framed on its own (the camera centred on it and set back until "
                            "it fills the frame); image {after} keeps the camera of image {reference}, and the "
                            "option images keep the camera of the target's corresponding start view, so "
                            "positions and sizes compare directly.",
    "choice_after_image": "Each start view is framed on its own (the camera centred on it and set back until "
                          "it fills the frame); image {after} and the option images keep the camera of image "
                          "{reference}, so positions and sizes compare directly.",
}


def framing_text(kind: str, **values) -> str:
    return FRAMING[kind].format(**{k: str(v) for k, v in values.items()})


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
