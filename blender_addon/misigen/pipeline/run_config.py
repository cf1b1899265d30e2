"""The settings of one ``generate`` run, as the user gave them: one frozen ``RunConfig``.

The command line (``commands/generate.py``) and ``api.generate`` both build one, and it is
checked here, once, when it is made; ``generate.prepare_run`` then resolves the suite and the
inputs and derives the ``RunContext`` the work units get (``unit.py``). What needs the suite
(task names, the suite's smallest resolution) is checked there, where the suite is read.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import InputError
from ..core.structure.readers import ReadOptions
from ..core.resources import suite_path
from ..core.look.style import load_style

SPLIT_MODES = ("auto", "train", "test")   # auto: deterministic by structure (490/3993 to test)
LEVELS = ("easy", "medium", "hard")
EXECUTORS = ("local", "ray")


def parse_levels(text) -> tuple:
    """``--level easy,hard`` (or a sequence of names) → ``("easy", "hard")``; unknown names are an error."""
    if not text:
        return ()
    items = text.split(",") if isinstance(text, str) else list(text)
    levels = tuple(str(x).strip() for x in items if str(x).strip())
    bad = [x for x in levels if x not in LEVELS]
    if bad:
        raise InputError("--level", f"unknown level(s) {', '.join(bad)}; levels are easy, medium, hard")
    return levels


def _at_least(option: str, value, least: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise InputError(option, f"must be at least {least}, got {value}")


@dataclass(frozen=True)
class RunConfig:
    """One run's settings, normalised and checked when made (``__post_init__``); never changed after."""
    structures: tuple                        # files or folders (a single path is taken as one)
    out: Path                                # the run folder (a run resumes into it)
    suite: Path = field(default_factory=suite_path)   # a suite name or YAML path; kept as its path
    style: dict | None = None                # a complete style; default: preset ``scene`` with ``overrides``
    scene: str | Path = field(default="misi_bench", compare=False, repr=False)   # only read to make ``style``
    overrides: dict | None = field(default=None, compare=False, repr=False)
    split: str = "auto"                      # SPLIT_MODES
    tasks: tuple | None = None               # task names; None: the whole suite
    limit: int | None = None                 # only the first N structures (sorted by id)
    seed: int = 0
    device: str = "auto"                     # --device, as render.device names it
    shard: tuple = (0, 1)                    # (i, N): this process does structures k with k % N == i
    render: bool = True                      # False: plan and write annotations only
    progress: bool = True
    audit: bool = True                       # the blind-baseline audit at the end
    levels: tuple = ()                       # keep only questions of these difficulty levels
    ligands: dict = field(default_factory=dict)   # structure id -> ligand selector (--ligands)
    ligand: str | None = None                # the selector of the others (--ligand)
    reading: ReadOptions | None = None       # model and alternate locations of PDB/mmCIF files
    executor: str = "local"                  # EXECUTORS
    workers: int = 1                         # local worker processes
    gpus: int = 0                            # GPUs found for --device (workers share them)
    per_worker: int | None = None            # structures a worker renders before it is replaced
    planners: int | str = "auto"             # planning processes per rendering process (0: a helper thread)
    ray_options: dict = field(default_factory=dict)

    def __post_init__(self):
        def put(name, value):                # normalising a frozen instance while it is made
            object.__setattr__(self, name, value)

        structures = self.structures
        put("structures", (structures,) if isinstance(structures, (str, Path)) else tuple(structures))
        put("out", Path(self.out))
        put("suite", suite_path(self.suite))
        put("style", self.style if self.style is not None else load_style(self.scene, self.overrides))
        put("tasks", tuple(self.tasks) if self.tasks else None)
        put("levels", parse_levels(self.levels))
        put("ligands", dict(self.ligands or {}))
        put("ray_options", dict(self.ray_options or {}))
        put("shard", tuple(self.shard))
        self._check()
        from ..render.device import parse_device    # a name check: no bpy needed
        try:
            put("device", parse_device(self.device))
        except ValueError as exc:
            raise InputError("--device", str(exc)) from None

    def _check(self) -> None:
        if self.split not in SPLIT_MODES:
            raise InputError("--split", f"must be auto, train or test, not {self.split!r}")
        if self.limit is not None:
            _at_least("--limit", self.limit, 1)
        _at_least("--seed", self.seed, 0)
        whole = len(self.shard) == 2 and all(isinstance(x, int) for x in self.shard)
        if not (whole and 0 <= self.shard[0] < self.shard[1]):
            raise InputError("--shard", f"{self.shard!r}: need (i, N) with 0 <= i < N")
        if self.executor not in EXECUTORS:
            raise InputError("--executor", f"must be local or ray, not {self.executor!r}")
        _at_least("--workers", self.workers, 1)
        _at_least("gpus", self.gpus, 0)
        if self.per_worker is not None:
            _at_least("--structures-per-worker", self.per_worker, 1)
        if self.planners != "auto":
            _at_least("--planners", self.planners, 0)
        if self.ligand:
            from ..core.chemistry.ligand import parse_selectors
            parse_selectors(self.ligand)
