"""Pure-Python core of misigen: structures, chemistry, geometry, answers.

Nothing under ``core`` may import ``bpy``: every answer the benchmark emits is
computed here so it can be tested without Blender.

* ``structure/``: files read into ``Structure`` (model, readers, loader, duplicates, preload);
* ``chemistry/``: bonds, CCD templates, the ligand (``ligand/``), equivalent atoms, ``interactions/``;
* ``scene/``: what an image shows: geometry, camera, labels, shading, the scene plan, sidecars;
* ``look/``: style presets (style, presets);
* ``quality/``: audit, necessity, difficulty, levels;
* ``tasks/``: the task registry, suites, planners, answers and scoring; ``rationale/``: rationales;
* ``data/``: the YAML tables (``data_files``); ``resources``: where bundled presets, task specs
  and examples live; ``errors``, ``failures``, ``op_grammar`` (``move x 3``), ``teaching``
  (rationale, difficulty and level of a planned sample).
"""
