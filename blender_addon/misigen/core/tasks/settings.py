"""A suite's settings (``suite.SUITE`` validated): one frozen ``SuiteSettings`` per loaded suite,
shared by the suite (``Suite.settings``) and each of its task specs (``TaskSpec.settings``)."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Mapping

from .common import MISI_BENCH_TEST_FRACTION


def frozen(value):
    """``value`` with its mappings read-only and its lists tuples, at any depth."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: frozen(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    return value


def plain(value):
    """A ``frozen`` value as dicts and lists again (for JSON and the spec hash)."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


@dataclass(frozen=True)
class SuiteSettings:
    """The suite-wide settings (``suite.SUITE`` validated, defaults filled in). The optional ones are
    None or 0 when the suite leaves them unset: they enter the spec hash only when set, so suites
    that do not set them keep their hash."""
    name: str = ""
    path: str = ""                          # the suite's YAML file
    test_fraction: float = MISI_BENCH_TEST_FRACTION
    zoom_clearance: float = 4.0
    audit: Mapping = field(default_factory=lambda: MappingProxyType({}))   # margins, known shortcuts, necessity
    min_resolution: int = 128
    modules: tuple = ()                     # the suite's own task modules (``modules:``)
    rejection_budget: float = 0.05
    hbond_definition: str | None = None     # the ground truth's H-bond definition (None: the default)
    style: Mapping | None = None            # style options set on top of the preset
    difficulty: Mapping | None = None       # difficulty knobs for every task that has them
    contact_atom_labels: float = 0.0        # Å: pocket views label protein N/O this close to the ligand
    polar_contact_labels_first: float = 0.0  # Å: the polar contacts' labels are placed first

    def hashed(self) -> dict:
        """The settings that shape what is planned, as the spec hash reads them: where the suite is,
        its module list and its refusal and exit rules are left out."""
        out = {"name": self.name, "test_fraction": self.test_fraction, "zoom_clearance": self.zoom_clearance,
               "audit": plain(self.audit)}
        optional = {"hbond_definition": self.hbond_definition, "style": plain(self.style),
                    "difficulty": plain(self.difficulty),
                    "contact_atom_labels": self.contact_atom_labels or None,
                    "polar_contact_labels_first": self.polar_contact_labels_first or None}
        out.update({k: v for k, v in optional.items() if v is not None})
        return out

    def __reduce__(self):        # read-only mappings do not pickle: they travel as plain values
        return settings_of, (plain({f.name: getattr(self, f.name) for f in fields(self)}),)


def settings_of(values: dict) -> SuiteSettings:
    """``SuiteSettings`` of plain values (read-only from here)."""
    return SuiteSettings(**{k: frozen(v) for k, v in values.items()})


__all__ = ["SuiteSettings", "settings_of", "plain"]
