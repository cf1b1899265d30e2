"""Import order that Blender's Python needs (pure Python; no bpy)."""
from __future__ import annotations


def preload_rdkit() -> None:
    """Import RDKit before bpy: under PyPI bpy 4.2 both bundle Boost.Python, and RDKit's
    converters fail to register if bpy came first. Harmless elsewhere; nothing if RDKit is absent."""
    try:
        import rdkit.Chem  # noqa: F401
    except ImportError:
        pass
