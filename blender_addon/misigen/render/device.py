"""Cycles device selection: the first GPU backend that has a device, else the CPU.

``probe_device`` answers before any work whether a ``--device`` request can be had (one
clear error otherwise); ``select_device`` configures a scene for it. bpy is imported only
inside the functions, so the command line can check device names without Blender.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from .quiet import quiet_stdout

GPU_ORDER = ("OPTIX", "CUDA", "HIP", "ONEAPI", "METAL")
DEVICE_NAMES = ("auto", "cpu", "gpu") + GPU_ORDER


class DeviceError(RuntimeError):
    """A requested render device that this machine or this Blender cannot provide."""


def parse_device(text: str) -> str:
    """Normalise a ``--device`` value (case-insensitive); ValueError names the choices."""
    value = str(text or "auto").strip()
    for name in DEVICE_NAMES:
        if value.lower() == name.lower():
            return name
    raise ValueError(f"unknown device {text!r}; choose from {', '.join(DEVICE_NAMES)}")


@dataclass(frozen=True)
class DeviceChoice:
    backend: str                 # "CPU" or a GPU backend such as "OPTIX"
    devices: tuple = ()          # names of the GPU devices of that backend
    note: str = ""               # why this choice (e.g. auto fell back to the CPU)

    def describe(self) -> str:
        if self.backend == "CPU":
            return "CPU"
        return f"{self.backend}: " + ", ".join(self.devices)


def _cycles_prefs():
    import bpy
    try:
        return bpy.context.preferences.addons["cycles"].preferences
    except KeyError:
        return None


def _backend_devices(prefs, backend: str) -> list | None:
    """The devices of ``backend``, or None if this Blender was built without it."""
    try:
        prefs.compute_device_type = backend
    except TypeError:
        return None
    prefs.get_devices()
    return [d for d in prefs.devices if d.type == backend]


def _quiet():
    return quiet_stdout()   # device probing prints library warnings on GPU-less machines


def probe_device(request: str = "auto") -> DeviceChoice:
    """What ``request`` will render on here; DeviceError (one line) if it cannot be had."""
    request = parse_device(request)
    if request == "cpu":
        return DeviceChoice("CPU")
    order = GPU_ORDER if request in ("auto", "gpu") else (request,)
    with _quiet():
        prefs = _cycles_prefs()
        found = {b: (_backend_devices(prefs, b) if prefs is not None else None) for b in order}
    for backend in order:
        if found[backend]:
            return DeviceChoice(backend, tuple(d.name for d in found[backend]))
    if request == "auto":
        return DeviceChoice("CPU", note="auto: no Cycles GPU device found, rendering on the CPU")
    if request == "gpu":
        raise DeviceError(f"--device gpu: no Cycles GPU device found (tried {', '.join(GPU_ORDER)}); "
                          "use --device cpu or auto")
    if found[request] is None:
        raise DeviceError(f"--device {request}: this Blender has no {request} backend; use --device cpu or auto")
    raise DeviceError(f"--device {request}: no {request} device found on this machine; use --device cpu or auto")


def select_device(scene, request: str = "auto", gpu_index: int | None = None) -> str:
    """Configure ``scene`` for ``request`` (auto | cpu | gpu | OPTIX | CUDA …); return what runs.

    Returns e.g. "CPU" or "OPTIX: NVIDIA A100". A GPU that was asked for explicitly but
    is not there is a DeviceError, not a silent CPU render. ``gpu_index`` (default: the
    environment variable MISIGEN_GPU_INDEX, set by the local worker pool) restricts the
    render to one device of the backend, so each worker process has a GPU of its own.
    """
    if gpu_index is None and os.environ.get("MISIGEN_GPU_INDEX", "").isdigit():
        gpu_index = int(os.environ["MISIGEN_GPU_INDEX"])
    choice = probe_device(request)
    if choice.backend == "CPU":
        scene.cycles.device = "CPU"
        return "CPU"
    prefs = _cycles_prefs()
    with _quiet():
        devices = _backend_devices(prefs, choice.backend) or []
    chosen = devices if gpu_index is None or len(devices) < 2 else [devices[gpu_index % len(devices)]]
    for d in prefs.devices:
        d.use = any(d is c or (d.type == c.type and d.id == c.id) for c in chosen)
    scene.cycles.device = "GPU"
    return f"{choice.backend}: " + ", ".join(d.name for d in chosen)


def count_gpus(request: str = "auto") -> int:
    """GPU devices ``request`` would use here (0 for the CPU)."""
    choice = probe_device(request)
    return 0 if choice.backend == "CPU" else len(choice.devices)
