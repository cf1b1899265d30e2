"""Blender side of misigen (imports bpy): scene building, styles, camera, labels, Cycles."""
