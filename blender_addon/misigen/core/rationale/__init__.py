"""Step-by-step rationales a reader could write from the images, and their replay.

``make_rationale(record, sidecars, sections)`` writes one from the record's program and the
sidecars of its images (``evidence`` → the task's builder, worded by a task's template under
``task_specs/prompts/``); every number is a pixel reading, a reference (a standard bond length, the
scale bar, a criterion) or an estimate from those (``scales``, ``estimates``), never a 3D value only
the sidecar knows (``scan``). ``replay(record, sidecars)`` re-derives every quoted number from the
sidecars alone (``validate`` runs it). Pure core: no bpy.
"""
from .readings import NoRationale
from .evidence import Facts, View
from .replay import Written, make_rationale, rationale_facts, replay, write_rationale
from .scan import scan
from .templates import Writer, load_template, parse_template

__all__ = ["make_rationale", "write_rationale", "Written", "rationale_facts", "replay", "scan", "load_template",
           "parse_template", "Writer", "Facts", "View", "NoRationale"]
