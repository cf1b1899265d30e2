"""Materials and world lighting built by code (so they diff and review like code)."""
from __future__ import annotations

import bpy

COLOUR_ATTRIBUTE = "atom_color"   # not "color"/"radius": avoid built-in attribute names


def srgb_to_linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def atom_material(name: str = "misigen_atom") -> bpy.types.Material:
    """Principled BSDF whose base colour is the per-point ``atom_color`` attribute."""
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
    links.new(bsdf.outputs["BSDF"], out.inputs["Surface"])
    return mat


def setup_world(scene, background_srgb, ambient: float) -> None:
    """Camera rays see the background colour; everything else is lit by a grey ambient."""
    world = bpy.data.worlds.get("misigen_world") or bpy.data.worlds.new("misigen_world")
    scene.world = world
    world.use_nodes = True
    nodes, links = world.node_tree.nodes, world.node_tree.links
    nodes.clear()
    out = nodes.new("ShaderNodeOutputWorld")
    path = nodes.new("ShaderNodeLightPath")
    mix = nodes.new("ShaderNodeMixShader")
    amb = nodes.new("ShaderNodeBackground")
    bg = nodes.new("ShaderNodeBackground")
    amb.inputs["Color"].default_value = (1, 1, 1, 1)
    amb.inputs["Strength"].default_value = ambient
    bg.inputs["Color"].default_value = (*[srgb_to_linear(c) for c in background_srgb], 1)
    bg.inputs["Strength"].default_value = 1.0
    links.new(path.outputs["Is Camera Ray"], mix.inputs["Fac"])
    links.new(amb.outputs["Background"], mix.inputs[1])
    links.new(bg.outputs["Background"], mix.inputs[2])
    links.new(mix.outputs["Shader"], out.inputs["Surface"])
