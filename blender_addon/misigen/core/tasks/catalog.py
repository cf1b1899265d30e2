"""The tasks misigen knows: importing this module registers each of them (in this order)."""
from . import motion  # noqa: F401  T1 translation, T2 rotation, T3 zooming
from . import interact  # noqa: F401  T4 residue–ligand, T8 interaction location, T9 pocket–ligand
from . import choice  # noqa: F401  T5 translation + rotation, T6 rotation + rotation
from . import docking  # noqa: F401  T7 docking
