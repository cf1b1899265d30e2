"""Step-by-step rationales grounded in the images' sidecars, and their replay.

``make_rationale(record, sidecars, sections)`` writes one from the record's program and the
sidecars of its images (``evidence`` → the task's builder, worded by a task's template under
``task_specs/prompts/``); ``replay(record, sidecars)`` re-derives every quoted number from the
sidecars alone (``validate`` runs it). Pure core: no bpy.
"""
from .readings import NoRationale
from .evidence import Facts, View
from .replay import make_rationale, rationale_facts, replay
from .templates import Writer, load_template, parse_template

__all__ = ["make_rationale", "rationale_facts", "replay", "load_template", "parse_template", "Writer", "Facts",
           "View", "NoRationale"]
