"""Cycles device selection: the first GPU backend that has a device, else the CPU."""
from __future__ import annotations

import bpy

GPU_ORDER = ("OPTIX", "CUDA", "HIP", "ONEAPI", "METAL")


def select_device(scene, request: str = "auto") -> str:
    """Configure ``scene`` for ``request`` (auto | cpu | gpu | OPTIX | CUDA …); return what runs.

    Returns e.g. "CPU" or "OPTIX: NVIDIA A100". A GPU that was asked for explicitly but
    is not there is an error, not a silent CPU render.
    """
    request = (request or "auto").upper()
    if request == "CPU":
        scene.cycles.device = "CPU"
        return "CPU"
    order = GPU_ORDER if request in ("AUTO", "GPU") else (request,)
    try:
        prefs = bpy.context.preferences.addons["cycles"].preferences
    except KeyError:
        prefs = None
    if prefs is not None:
        for backend in order:
            try:
                prefs.compute_device_type = backend
            except TypeError:
                continue  # backend not compiled into this Blender
            prefs.get_devices()
            devices = [d for d in prefs.devices if d.type == backend]
            if devices:
                for d in prefs.devices:
                    d.use = d.type == backend
                scene.cycles.device = "GPU"
                return f"{backend}: " + ", ".join(d.name for d in devices)
    if request not in ("AUTO",):
        raise RuntimeError(f"no Cycles GPU device found for --device {request.lower()}")
    scene.cycles.device = "CPU"
    return "CPU"
