"""Sidecars of a planned sample computed in memory (the same ``annotate`` the renderer's sidecars
come from), for runs and tests that do not render."""
from __future__ import annotations

from ..scene.scene_plan import annotate, shown_structure


def sample_sidecars(sample, structures: dict, image_path=None) -> dict:
    """{image path: sidecar} of every render of ``sample`` (``structures``: id → Structure)."""
    image_path = image_path or (lambda spec: f"images/{spec.key()}.png")
    out = {}
    for spec in sample.render_specs():
        shown = shown_structure(structures[spec.structure_id], spec.style, spec.parts, spec.residues)
        out[image_path(spec)] = annotate(shown, spec, spec.matrices(shown)[0])
    return out
