"""misigen: molecular spatial-reasoning benchmarks rendered with Blender.

As a Blender add-on (a 4.2+ extension built by ``run_blender.py build-extension``, or the
legacy ``bl_info`` add-on from a checkout), ``register``/``unregister`` add the GUI (``ui``).
Scripts and notebooks use ``misigen.api``; the pure-Python ``core`` package needs no Blender.
"""
from .version import __version__  # noqa: F401  (misigen.__version__)

bl_info = {
    "name": "misigen",
    "author": "misigen developers",
    "version": (0, 1, 0),
    "blender": (4, 2, 0),
    "location": "View3D > Sidebar > misigen",
    "description": "Import protein–ligand complexes and render spatial-reasoning benchmark images",
    "category": "Import-Export",
}


def register():
    from .ui import register as _register
    _register()


def unregister():
    from .ui import unregister as _unregister
    _unregister()
