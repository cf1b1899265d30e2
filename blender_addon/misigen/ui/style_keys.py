"""Which GUI property mirrors which preset key (pure Python: the session and the property
group both read it, neither imports the other for it)."""
from __future__ import annotations

# preset key path → property name. Colours are '#RRGGBB' in presets and RGB colour pickers here.
STYLE_KEYS = {
    ("representation",): "representation",
    ("atom_scale",): "atom_scale",
    ("bond_radius",): "bond_radius",
    ("background",): "background",
    ("colors", "ligand_carbon"): "ligand_carbon",
    ("colors", "pocket_carbon", 0): "pocket_carbon_a",
    ("colors", "pocket_carbon", 1): "pocket_carbon_b",
    ("colors", "elements", "N"): "nitrogen",
    ("colors", "elements", "O"): "oxygen",
    ("colors", "elements", "S"): "sulfur",
    ("labels", "enabled"): "labels",
    ("labels", "size_px"): "label_size",
    ("labels", "color"): "label_color",
    ("camera", "projection"): "projection",
    ("camera", "fov_deg"): "fov_deg",
    ("camera", "margin"): "margin",
    ("selection", "pocket_cutoff"): "pocket_cutoff",
    ("selection", "hydrogens"): "hydrogens",
    ("lighting", "model"): "lighting_model",
    ("lighting", "key_strength"): "key_strength",
    ("lighting", "fill_strength"): "fill_strength",
    ("lighting", "ambient"): "ambient",
    ("depth_cue", "enabled"): "depth_cue",
    ("render", "samples"): "samples",
    ("render", "resolution"): "resolution",
    ("render", "denoise"): "denoise",
}
COLOUR_PROPS = {"background", "ligand_carbon", "pocket_carbon_a", "pocket_carbon_b", "nitrogen", "oxygen",
                "sulfur", "label_color"}


def colour_to_hex(rgb) -> str:
    return "#" + "".join(f"{max(0, min(255, round(float(c) * 255))):02X}" for c in rgb)
