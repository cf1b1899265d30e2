"""Molecule objects: atoms as a point cloud (Geometry Nodes), bonds as one tube mesh.

Everything per atom is written in bulk with ``foreach_set``; no Python loop over atoms
touches Blender data.
"""
from __future__ import annotations

import bpy
import numpy as np

from .materials import COLOUR_ATTRIBUTE

RADIUS_ATTRIBUTE = "atom_radius"   # "radius" collides with the built-in point-cloud attribute
TUBE_SIDES = 10


def _rgba(colours: np.ndarray, linear: bool) -> np.ndarray:
    """RGBA floats the material reads: linear light, or the sRGB values as given (the direct
    lighting model shades sRGB values, as ChimeraX does)."""
    c = np.asarray(colours, float)
    if linear:
        c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return np.hstack([c, np.ones((len(c), 1))]).astype(np.float32)


def points_node_group(material) -> bpy.types.NodeTree:
    """GN: mesh vertices → point-cloud spheres of radius ``atom_radius``, with the material (one group
    per material: each scene has its own material, and a group names the one it sets)."""
    name = f"misigen_atoms_to_points:{material.name}"
    group = bpy.data.node_groups.get(name)
    if group is not None:
        return group
    group = bpy.data.node_groups.new(name, "GeometryNodeTree")
    group.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    group.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    nodes, links = group.nodes, group.links
    gin, gout = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    to_points = nodes.new("GeometryNodeMeshToPoints")
    radius = nodes.new("GeometryNodeInputNamedAttribute")
    radius.data_type = "FLOAT"
    radius.inputs["Name"].default_value = RADIUS_ATTRIBUTE
    set_mat = nodes.new("GeometryNodeSetMaterial")
    set_mat.inputs["Material"].default_value = material
    links.new(gin.outputs[0], to_points.inputs["Mesh"])
    links.new(radius.outputs["Attribute"], to_points.inputs["Radius"])
    links.new(to_points.outputs["Points"], set_mat.inputs["Geometry"])
    links.new(set_mat.outputs["Geometry"], gout.inputs[0])
    return group


def atoms_object(name: str, coords, colours, radii, material, collection, linear: bool = True) -> bpy.types.Object:
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(len(coords))
    mesh.vertices.foreach_set("co", np.asarray(coords, np.float32).ravel())
    col = mesh.attributes.new(COLOUR_ATTRIBUTE, "FLOAT_COLOR", "POINT")
    col.data.foreach_set("color", _rgba(colours, linear).ravel())
    rad = mesh.attributes.new(RADIUS_ATTRIBUTE, "FLOAT", "POINT")
    rad.data.foreach_set("value", np.asarray(radii, np.float32))
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    collection.objects.link(obj)
    mod = obj.modifiers.new("atoms", "NODES")
    mod.node_group = points_node_group(material)
    return obj


def tube_mesh_arrays(coords, colours, bonds, radius, sides=TUBE_SIDES):
    """Vertices, quad faces and per-vertex colours of split-colour bond tubes (numpy)."""
    coords = np.asarray(coords, float)
    a, b = coords[bonds[:, 0]], coords[bonds[:, 1]]
    mid = (a + b) / 2
    # Two half-tubes per bond, each in its own atom's colour.
    starts = np.vstack([a, mid])
    ends = np.vstack([mid, b])
    cols = np.vstack([colours[bonds[:, 0]], colours[bonds[:, 1]]])
    axis = ends - starts
    axis /= np.maximum(np.linalg.norm(axis, axis=1, keepdims=True), 1e-9)
    helper = np.where(np.abs(axis[:, :1]) < 0.9, [[1.0, 0, 0]], [[0, 1.0, 0]])
    u = np.cross(axis, helper)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = np.cross(axis, u)
    ang = np.linspace(0, 2 * np.pi, sides, endpoint=False)
    ring = np.cos(ang)[None, :, None] * u[:, None, :] + np.sin(ang)[None, :, None] * v[:, None, :]
    ring *= radius
    verts = np.concatenate([starts[:, None, :] + ring, ends[:, None, :] + ring], axis=1)  # (T, 2s, 3)
    n_tubes = len(starts)
    base = (np.arange(n_tubes) * 2 * sides)[:, None]
    k = np.arange(sides)[None, :]
    faces = np.stack([base + k, base + (k + 1) % sides, base + sides + (k + 1) % sides, base + sides + k],
                     axis=-1).reshape(-1, 4)
    vcols = np.repeat(cols, 2 * sides, axis=0)
    return verts.reshape(-1, 3), faces, vcols


def bonds_object(name, coords, colours, bonds, radius, material, collection, linear: bool = True):
    if len(bonds) == 0:
        return None
    verts, faces, vcols = tube_mesh_arrays(coords, np.asarray(colours, float), np.asarray(bonds), radius)
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(len(verts))
    mesh.vertices.foreach_set("co", verts.astype(np.float32).ravel())
    mesh.loops.add(faces.size)
    mesh.loops.foreach_set("vertex_index", faces.astype(np.int32).ravel())
    mesh.polygons.add(len(faces))
    mesh.polygons.foreach_set("loop_start", (np.arange(len(faces)) * 4).astype(np.int32))
    mesh.update(calc_edges=True)
    mesh.polygons.foreach_set("use_smooth", np.ones(len(faces), dtype=bool))
    col = mesh.attributes.new(COLOUR_ATTRIBUTE, "FLOAT_COLOR", "POINT")
    col.data.foreach_set("color", _rgba(vcols, linear).ravel())
    mesh.materials.append(material)
    obj = bpy.data.objects.new(name, mesh)
    collection.objects.link(obj)
    return obj
