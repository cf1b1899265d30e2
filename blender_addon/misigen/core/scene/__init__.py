"""What one image shows, computed without Blender: poses, camera, labels, shading, sidecars.

* ``geometry``: rigid transforms of the models in the screen frame;
* ``camera``: the pinhole / orthographic camera model;
* ``labels``: label texts and their placement on the image;
* ``shading``: the lighting model and depth cueing the atom material computes;
* ``scene_plan``: an image's render description and its annotation (sidecar);
* ``sidecar``: a written sidecar read back as arrays.
"""
