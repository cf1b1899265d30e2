"""T3's planner: the cloze planner with a front camera set back for the largest ``move z``, so the
nearest atom stays in front of the camera (the suite's ``zoom_clearance``)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...scene.camera import Camera
from ...scene.geometry import view_ops
from ..base import Unavailable
from ..common import fit_camera
from ..shared.cloze import ClozePlanner


def zoom_camera(points: np.ndarray, radii: np.ndarray, style: dict, max_zoom: float, clearance: float) -> Camera:
    """"View all", then set back (if needed) so that after the largest ``move z`` the nearest sphere is
    still ``clearance`` Å in front of the camera."""
    cam = fit_camera(points, radii, style)
    near = float((np.asarray(points)[:, 2] + radii).max())
    z = max(cam.position[2], near + max_zoom + clearance)
    far = float(z - (np.asarray(points)[:, 2] - radii).min())
    return replace(cam, position=(cam.position[0], cam.position[1], round(z, 4)),
                   clip=(0.1, round(far + 10.0, 1)))


class ZoomingPlanner(ClozePlanner):
    def setup(self):
        if self.style["camera"]["projection"] != "perspective":
            raise Unavailable("zooming needs a perspective camera (move z does not change an orthographic image)")
        super().setup()

    def frame_after(self) -> None:
        """One camera for the after-image and the start view it is compared with, set back for the zoom."""
        d = self.d
        xyz = self.ctx.posed({"all": view_ops(d["after_view"])})
        self.camera = zoom_camera(xyz, self.radii, self.style, max(self.values),
                                  self.task.settings.zoom_clearance)
        self.start = [self.spec(self.camera, {"all": view_ops(v)}, centre=self.centre, labels=self.labels)
                      if v == d["after_view"] else s for v, s in zip(d["views"], self.start)]
