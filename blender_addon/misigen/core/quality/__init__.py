"""How good and how hard a dataset's questions are, measured from its records.

* ``necessity``: is every step of a choice question needed;
* ``difficulty``: per-question difficulty features;
* ``levels``: difficulty levels calibrated per task.

The tasks use these measures; the blind-baseline audit, which runs each task's guessers through the
registry, is therefore in ``core/tasks/audit.py``.
"""
