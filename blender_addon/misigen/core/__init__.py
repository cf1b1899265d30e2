"""Pure-Python core of misigen: structures, chemistry, geometry, answers.

Nothing under ``core`` may import ``bpy``: every answer the benchmark emits is
computed here so it can be tested without Blender.
"""
