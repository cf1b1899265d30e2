"""The package version (its own module so that any layer can read it without the package's
``__init__``, which registers the GUI)."""
__version__ = "0.1.0"
