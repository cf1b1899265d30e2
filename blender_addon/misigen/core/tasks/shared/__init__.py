"""Modules that two or more task folders share (a family of tasks): ``cloze`` (T1–T3: one command),
``option_grid`` (T5, T6: option images of two-step programs) and ``hbond`` (T4, T8, T9: interaction
questions). None of them names a task: each task's folder passes its name, its operation and its own
rules to them when it builds its registry entry.
"""
