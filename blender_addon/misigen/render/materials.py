"""Materials and world lighting built by code (so they diff and review like code).

Two lighting models (``lighting.model`` of a preset):
- ``direct``: the material computes ChimeraX's default lighting itself (``core/scene/shading.py`` is the
  same formula in numpy) and emits the result; the scene has no lights and a plain background, so
  Cycles traces camera rays only: noise-free at one sample. It shades sRGB values, as ChimeraX's
  OpenGL shader does, and the scene's view transform is Raw, so the pixel is the formula's value.
- ``path``: a Principled BSDF lit by Cycles lights (a sun, a grey world light) plus an optional
  shadowless headlight emitted by the material; linear colours, Standard view transform.
Both fade toward the background with depth (depth cueing): the ramp's two distances are values of
the material's own ``misigen_depth_cue`` node, which the renderer sets per image
(``set_depth_cue``). A changed node value tags the material, so Cycles recompiles that one shader
even with persistent data; a changed scene property or a moved helper object it may not pick up.
"""
from __future__ import annotations

import bpy

from ..core.scene.shading import light_terms

COLOUR_ATTRIBUTE = "atom_color"   # not "color"/"radius": avoid built-in attribute names
FILL_PROPERTY = "misigen_fill"    # scene property: the path model's headlight strength
CUE_NODE = "misigen_depth_cue"    # the material's Map Range node that holds the ramp
NO_CUE = (1.0e8, 2.0e8)           # a ramp no atom reaches: depth cueing off
SCALAR_VECTOR_OPS = {"DOT_PRODUCT", "DISTANCE", "LENGTH"}   # vector math whose result is a number


def srgb_to_linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


class _Graph:
    """A few helpers over one node tree, so a formula reads like one."""

    def __init__(self, tree):
        self.nodes, self.links = tree.nodes, tree.links

    def node(self, kind: str, **props):
        n = self.nodes.new(kind)
        for k, v in props.items():
            setattr(n, k, v)
        return n

    def feed(self, socket, value) -> None:
        """A constant, or the output of another node, into ``socket``."""
        if isinstance(value, bpy.types.NodeSocket):
            self.links.new(value, socket)
        else:
            socket.default_value = value

    def op(self, operation: str, *inputs, vector: bool = False):
        n = self.node("ShaderNodeVectorMath" if vector else "ShaderNodeMath", operation=operation)
        for k, value in enumerate(inputs):
            self.feed(n.inputs[k], value)
        scalar = not vector or operation in SCALAR_VECTOR_OPS
        return n.outputs["Value" if scalar else "Vector"]

    def scene_value(self, name: str):
        n = self.node("ShaderNodeAttribute", attribute_type="VIEW_LAYER", attribute_name=name)
        return n.outputs["Fac"]                # view layer, then scene custom properties


def set_depth_cue(material, ramp) -> None:
    """The ramp (start, end: distances in front of the camera) of the next image; None: no dimming."""
    start, end = ramp if ramp is not None else NO_CUE
    node = material.node_tree.nodes[CUE_NODE]
    if (node.inputs["From Min"].default_value, node.inputs["From Max"].default_value) != (end, start):
        node.inputs["From Min"].default_value, node.inputs["From Max"].default_value = end, start


def _depth_cue_factor(g: _Graph):
    """1 in front of the ramp's start, 0 beyond its end, linear between (core.scene.shading.depth_cue_factor)."""
    depth = g.node("ShaderNodeCameraData").outputs["View Z Depth"]
    ramp = g.node("ShaderNodeMapRange", clamp=True, name=CUE_NODE)
    g.feed(ramp.inputs["Value"], depth)
    ramp.inputs["From Min"].default_value, ramp.inputs["From Max"].default_value = NO_CUE[1], NO_CUE[0]
    ramp.inputs["To Min"].default_value, ramp.inputs["To Max"].default_value = 0.0, 1.0
    return ramp.outputs["Result"]


def _new_material(name: str):
    mat = bpy.data.materials.get(name) or bpy.data.materials.new(name)
    mat.use_nodes = True
    mat.node_tree.nodes.clear()
    if hasattr(mat, "cycles") and hasattr(mat.cycles, "emission_sampling"):
        mat.cycles.emission_sampling = "NONE"   # atoms are not lights: no light sampling cost
    return mat


def direct_material(name: str, lighting: dict, background_srgb) -> bpy.types.Material:
    """An emission-only material computing ChimeraX's key + fill + ambient lighting with the key's
    Phong highlight, faded toward ``background_srgb`` by depth (``core.scene.shading.shade_direct``)."""
    t = light_terms(lighting)
    mat = _new_material(name)
    g = _Graph(mat.node_tree)
    colour = g.node("ShaderNodeAttribute", attribute_type="GEOMETRY", attribute_name=COLOUR_ATTRIBUTE).outputs["Color"]
    geo = g.node("ShaderNodeNewGeometry")
    normal, to_eye = geo.outputs["Normal"], geo.outputs["Incoming"]
    n_key = g.op("DOT_PRODUCT", normal, tuple(t["key"]), vector=True)
    key = g.op("MAXIMUM", n_key, 0.0)
    fill = g.op("MAXIMUM", g.op("DOT_PRODUCT", normal, tuple(t["fill"]), vector=True), 0.0)
    diffuse = g.op("MULTIPLY_ADD", fill, t["fill_diffuse"], g.op("MULTIPLY_ADD", key, t["key_diffuse"], t["ambient"]))
    mirrored = g.op("REFLECT", tuple(-t["key"]), normal, vector=True)     # the key light mirrored about the normal
    facing = g.op("MAXIMUM", g.op("DOT_PRODUCT", mirrored, to_eye, vector=True), 0.0)
    specular = g.op("MULTIPLY", g.op("POWER", facing, t["exponent"]), t["key_specular"])
    lit = g.op("MULTIPLY_ADD", colour, diffuse, specular, vector=True)
    background = tuple(float(c) for c in background_srgb)
    faded = g.op("MULTIPLY_ADD", g.op("SUBTRACT", lit, background, vector=True), _depth_cue_factor(g),
                 background, vector=True)
    emit = g.node("ShaderNodeEmission")
    g.feed(emit.inputs["Color"], faded)
    emit.inputs["Strength"].default_value = 1.0
    g.links.new(emit.outputs["Emission"], g.node("ShaderNodeOutputMaterial").inputs["Surface"])
    return mat


def path_material(name: str, background_srgb) -> bpy.types.Material:
    """Principled BSDF whose base colour is the per-point ``atom_color`` attribute.

    It also emits ``atom_color × fill × (N·V)``, a shadowless headlight: ``fill`` is the
    scene's ``misigen_fill`` property. The emission is evaluated where a ray hits, never sampled
    as a light, so it adds no noise and no rays. Depth cueing mixes the result with an emission
    of the background colour."""
    mat = _new_material(name)
    g = _Graph(mat.node_tree)
    colour = g.node("ShaderNodeAttribute", attribute_type="GEOMETRY", attribute_name=COLOUR_ATTRIBUTE).outputs["Color"]
    bsdf = g.node("ShaderNodeBsdfPrincipled")
    bsdf.inputs["Roughness"].default_value = 0.45
    spec = bsdf.inputs.get("Specular IOR Level") or bsdf.inputs.get("Specular")
    if spec is not None:
        spec.default_value = 0.3
    g.feed(bsdf.inputs["Base Color"], colour)
    emit_colour = bsdf.inputs.get("Emission Color") or bsdf.inputs.get("Emission")
    emit_strength = bsdf.inputs.get("Emission Strength")
    if emit_colour is not None and emit_strength is not None:
        geo = g.node("ShaderNodeNewGeometry")
        facing = g.op("DOT_PRODUCT", geo.outputs["Normal"], geo.outputs["Incoming"], vector=True)
        g.feed(emit_colour, colour)
        g.feed(emit_strength, g.op("MULTIPLY", facing, g.scene_value(FILL_PROPERTY)))
    back = g.node("ShaderNodeEmission")
    back.inputs["Color"].default_value = (*[srgb_to_linear(c) for c in background_srgb], 1.0)
    mix = g.node("ShaderNodeMixShader")
    g.feed(mix.inputs["Fac"], _depth_cue_factor(g))
    g.links.new(back.outputs["Emission"], mix.inputs[1])
    g.links.new(bsdf.outputs["BSDF"], mix.inputs[2])
    g.links.new(mix.outputs["Shader"], g.node("ShaderNodeOutputMaterial").inputs["Surface"])
    return mat


def setup_world(scene, background_srgb, ambient: float, path_lit: bool = True) -> None:
    """Camera rays see the background colour. ``path_lit`` (the path model): everything else is
    lit by a grey ambient world light of strength ``ambient`` and the colour is in linear light
    (Standard view transform); otherwise the world only shows the background, given as its sRGB
    value (Raw view transform, the direct model).

    A plain world (direct model, or no ambient and a black background) gives Cycles no world
    light to sample at all (cheaper and noise-free).
    """
    name = f"misigen_world:{scene.name}"       # per scene: presets differ in their world
    world = bpy.data.worlds.get(name) or bpy.data.worlds.new(name)
    scene.world = world
    world.use_nodes = True
    g = _Graph(world.node_tree)
    g.nodes.clear()
    out = g.node("ShaderNodeOutputWorld")
    bg = g.node("ShaderNodeBackground")
    rgb = [srgb_to_linear(c) for c in background_srgb] if path_lit else [float(c) for c in background_srgb]
    bg.inputs["Color"].default_value = (*rgb, 1)
    bg.inputs["Strength"].default_value = 1.0
    if not path_lit or (ambient <= 0 and max(background_srgb) <= 0):
        g.links.new(bg.outputs["Background"], out.inputs["Surface"])
        return
    path = g.node("ShaderNodeLightPath")
    mix = g.node("ShaderNodeMixShader")
    amb = g.node("ShaderNodeBackground")
    amb.inputs["Color"].default_value = (1, 1, 1, 1)
    amb.inputs["Strength"].default_value = ambient
    g.links.new(path.outputs["Is Camera Ray"], mix.inputs["Fac"])
    g.links.new(amb.outputs["Background"], mix.inputs[1])
    g.links.new(bg.outputs["Background"], mix.inputs[2])
    g.links.new(mix.outputs["Shader"], out.inputs["Surface"])
