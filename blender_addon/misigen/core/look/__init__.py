"""The look of the images: style presets (``scenes/*.yaml``) loaded, checked and saved.

* ``style``: loading and validating a style, per-atom colours and radii;
* ``presets``: saving a style as a preset that ``--scene NAME`` reads.
"""
