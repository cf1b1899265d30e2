"""How good and how hard a dataset's questions are, measured from its records.

* ``audit``: blind baselines: can a question be answered without its reasoning;
* ``necessity``: is every step of a choice question needed;
* ``difficulty``: per-question difficulty features;
* ``levels``: difficulty levels calibrated per task.
"""
