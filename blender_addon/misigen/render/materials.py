"""Materials and world lighting built by code (so they diff and review like code)."""
from __future__ import annotations

import bpy

COLOUR_ATTRIBUTE = "atom_color"   # not "color"/"radius": avoid built-in attribute names


def srgb_to_linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


FILL_PROPERTY = "misigen_fill"    # scene property read by every atom material (see atom_material)


def atom_material(name: str = "misigen_atom") -> bpy.types.Material:
    """Principled BSDF whose base colour is the per-point ``atom_color`` attribute.

    It also emits ``atom_color × fill × (N·V)``, a shadowless headlight: ``fill`` is the
    scene's ``misigen_fill`` property (0 unless a preset asks for it), so one material serves
    every scene. The emission is evaluated where a ray hits, never sampled as a light, so it
    adds no noise and no rays: it is how the draft preset lights the molecule without the
    (noisy) ambient world light.
    """
    mat = bpy.data.materials.get(name) or bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    nodes.clear()
    out = nodes.new("ShaderNodeOutputMaterial")
    bsdf = nodes.new("ShaderNodeBsdfPrincipled")
    attr = nodes.new("ShaderNodeAttribute")
    attr.attribute_type = "GEOMETRY"
    attr.attribute_name = COLOUR_ATTRIBUTE
    bsdf.inputs["Roughness"].default_value = 0.45
    spec = bsdf.inputs.get("Specular IOR Level") or bsdf.inputs.get("Specular")
    if spec is not None:
        spec.default_value = 0.3
    links.new(attr.outputs["Color"], bsdf.inputs["Base Color"])
    emit_colour = bsdf.inputs.get("Emission Color") or bsdf.inputs.get("Emission")
    emit_strength = bsdf.inputs.get("Emission Strength")
    if emit_colour is not None and emit_strength is not None:
        fill = nodes.new("ShaderNodeAttribute")
        fill.attribute_type = "VIEW_LAYER"       # view layer, then scene custom properties
        fill.attribute_name = FILL_PROPERTY
        geo = nodes.new("ShaderNodeNewGeometry")
        facing = nodes.new("ShaderNodeVectorMath")
        facing.operation = "DOT_PRODUCT"
        strength = nodes.new("ShaderNodeMath")
        strength.operation = "MULTIPLY"
        links.new(geo.outputs["Normal"], facing.inputs[0])
        links.new(geo.outputs["Incoming"], facing.inputs[1])
        links.new(facing.outputs["Value"], strength.inputs[0])
        links.new(fill.outputs["Fac"], strength.inputs[1])
        links.new(attr.outputs["Color"], emit_colour)
        links.new(strength.outputs["Value"], emit_strength)
    if hasattr(mat, "cycles") and hasattr(mat.cycles, "emission_sampling"):
        mat.cycles.emission_sampling = "NONE"   # atoms are not lights: no light sampling cost
    links.new(bsdf.outputs["BSDF"], out.inputs["Surface"])
    return mat


def setup_world(scene, background_srgb, ambient: float) -> None:
    """Camera rays see the background colour; everything else is lit by a grey ambient.

    With no ambient and a black background the world is plain black, so Cycles has no
    world light to sample at all (cheaper and noise-free).
    """
    name = f"misigen_world:{scene.name}"       # per scene: presets differ in their world
    world = bpy.data.worlds.get(name) or bpy.data.worlds.new(name)
    scene.world = world
    world.use_nodes = True
    nodes, links = world.node_tree.nodes, world.node_tree.links
    nodes.clear()
    out = nodes.new("ShaderNodeOutputWorld")
    bg = nodes.new("ShaderNodeBackground")
    bg.inputs["Color"].default_value = (*[srgb_to_linear(c) for c in background_srgb], 1)
    bg.inputs["Strength"].default_value = 1.0
    if ambient <= 0 and max(background_srgb) <= 0:
        links.new(bg.outputs["Background"], out.inputs["Surface"])
        return
    path = nodes.new("ShaderNodeLightPath")
    mix = nodes.new("ShaderNodeMixShader")
    amb = nodes.new("ShaderNodeBackground")
    amb.inputs["Color"].default_value = (1, 1, 1, 1)
    amb.inputs["Strength"].default_value = ambient
    links.new(path.outputs["Is Camera Ray"], mix.inputs["Fac"])
    links.new(amb.outputs["Background"], mix.inputs[1])
    links.new(bg.outputs["Background"], mix.inputs[2])
    links.new(mix.outputs["Shader"], out.inputs["Surface"])
