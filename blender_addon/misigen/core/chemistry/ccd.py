"""Chemical component templates from the wwPDB Chemical Component Dictionary (CCD).

The dictionary is the copy Biotite ships (``biotite/structure/info/components.bcif``,
BinaryCIF, ~63 MB on disk, every released component). Biotite's own accessor decodes
whole categories and keeps them, which costs a worker ~730 MB; here a *pass* reads
the file, decodes only the columns a template needs, slices out the components asked
for and drops everything else. Only those components stay cached (a few kB each),
plus a compact index of where each component's rows lie (~2 MB) so later passes skip
the id columns. Measured cost: ``python benchmarks/bench_ccd_memory.py``.

Callers ask for every component a structure might need at once (one pass per
structure at most, none when all are cached). No bpy here.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

import numpy as np

ORDERS = {"SING": 1, "DOUB": 2, "TRIP": 3, "QUAD": 4}
ATOM_COLUMNS = ("atom_id", "type_symbol", "charge", "pdbx_aromatic_flag", "pdbx_leaving_atom_flag")
BOND_COLUMNS = ("atom_id_1", "atom_id_2", "value_order", "pdbx_aromatic_flag")


@dataclass(frozen=True)
class Component:
    """One CCD entry: atoms (hydrogens included) and bonds with Kekulé orders."""
    name: str
    atoms: tuple            # atom names as in the CCD ("O1B", "HO3'")
    elements: tuple         # capitalised symbols ("C", "Cl")
    charges: tuple          # formal charges
    leaving: tuple          # True for atoms that leave when the component links (OXT, OP3 …)
    aromatic: tuple         # CCD aromatic flags
    bonds: tuple            # (i, j, order 1|2|3, aromatic) with i, j indices into atoms
    _by_name: dict = field(default_factory=dict, compare=False, repr=False)

    def index(self, name: str) -> int | None:
        if not self._by_name:
            self._by_name.update({n: k for k, n in enumerate(self.atoms)})
        return self._by_name.get(name)

    def neighbours(self) -> list[list[int]]:
        nb: list[list[int]] = [[] for _ in self.atoms]
        for i, j, _o, _a in self.bonds:
            nb[i].append(j)
            nb[j].append(i)
        return nb


def ccd_path():
    """The bundled CCD file, or None when Biotite (or its CCD) is not installed."""
    override = os.environ.get("MISIGEN_CCD_PATH")
    if override:
        return override if os.path.isfile(override) else None
    try:
        import importlib.util
        spec = importlib.util.find_spec("biotite")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "structure", "info", "components.bcif")
    return path if os.path.isfile(path) else None


def ccd_source() -> str:
    """Where templates come from, for the structure's meta and the manifest."""
    path = ccd_path()
    if path is None:
        return "none (Biotite not installed)"
    try:
        import biotite
        return f"wwPDB CCD as shipped with biotite {biotite.__version__}"
    except ImportError:  # pragma: no cover - MISIGEN_CCD_PATH without biotite cannot be read anyway
        return f"wwPDB CCD ({path})"


class _Dictionary:
    """Per-process cache of the components used so far (thread-safe)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._cache: dict[str, Component | None] = {}
        self._index = None       # (names, atom_start, atom_stop, bond_start, bond_stop)
        self.passes = 0          # how many times the file was read (for tests and benchmarks)

    def clear(self):
        with self._lock:
            self._cache.clear()
            self._index = None
            self.passes = 0

    def components(self, names) -> dict[str, Component | None]:
        """{name: Component or None (not in the dictionary / no dictionary)} for ``names``."""
        names = sorted({str(n).strip().upper() for n in names if str(n).strip()})
        with self._lock:
            missing = [n for n in names if n not in self._cache]
            if missing:
                path = ccd_path()
                try:
                    found = self._read(path, missing) if path else {}
                except ImportError:   # Biotite present but broken (e.g. a dependency missing)
                    found = {}
                for n in missing:
                    self._cache[n] = found.get(n)
            return {n: self._cache[n] for n in names}

    # ------------------------------------------------------------------ one pass over the file
    def _read(self, path, wanted) -> dict[str, Component]:
        from biotite.structure.io.pdbx import BinaryCIFFile

        self.passes += 1
        block = BinaryCIFFile.read(path).block
        atoms, bonds = block["chem_comp_atom"], block["chem_comp_bond"]
        del block
        if self._index is None:
            self._index = self._build_index(atoms, bonds)
        names, a0, a1, b0, b1 = self._index
        pos = np.searchsorted(names, wanted)
        hits = [(w, int(p)) for w, p in zip(wanted, pos) if p < len(names) and names[p] == w]
        if not hits:
            return {}
        atom_rows = np.concatenate([np.arange(a0[p], a1[p]) for _w, p in hits])
        bond_rows = np.concatenate([np.arange(b0[p], b1[p]) for _w, p in hits])
        acol = self._columns(atoms, ATOM_COLUMNS, atom_rows)
        bcol = self._columns(bonds, BOND_COLUMNS, bond_rows)
        out = {}
        ka = kb = 0
        for w, p in hits:
            na, nb = int(a1[p] - a0[p]), int(b1[p] - b0[p])
            out[w] = self._component(w, {k: v[ka:ka + na] for k, v in acol.items()},
                                     {k: v[kb:kb + nb] for k, v in bcol.items()})
            ka += na
            kb += nb
        return out

    @staticmethod
    def _columns(category, keys, rows) -> dict:
        """Decode one column at a time, keep only ``rows``, drop the decoded column at once
        (keeps the transient peak to the raw file plus one column)."""
        out = {}
        for k in keys:
            column = category[k]
            arr = column.as_array()
            out[k] = arr[rows].copy() if len(rows) else arr[:0].copy()
            del arr, column
            try:
                del category[k]
            except (KeyError, TypeError):  # pragma: no cover - older Biotite containers
                pass
        return out

    @staticmethod
    def _build_index(atoms, bonds):
        def ranges(category):
            ids = category["comp_id"].as_array()
            try:
                del category["comp_id"]
            except (KeyError, TypeError):  # pragma: no cover
                pass
            starts = np.concatenate(([0], np.nonzero(ids[1:] != ids[:-1])[0] + 1))
            stops = np.concatenate((starts[1:], [len(ids)]))
            return ids[starts].astype("U8"), starts.astype(np.int64), stops.astype(np.int64)

        an, a0, a1 = ranges(atoms)
        bn, b0, b1 = ranges(bonds)
        # Components without bonds (single ions) have atom rows only: align bonds to atoms.
        pos = np.searchsorted(bn, an)
        have = (pos < len(bn)) & (bn[np.minimum(pos, len(bn) - 1)] == an)
        bs = np.where(have, b0[np.minimum(pos, len(bn) - 1)], 0)
        be = np.where(have, b1[np.minimum(pos, len(bn) - 1)], 0)
        return an, a0, a1, bs, be

    @staticmethod
    def _component(name, a, b) -> Component:
        atoms = tuple(str(x) for x in a["atom_id"])
        index = {n: k for k, n in enumerate(atoms)}
        bonds = []
        for n1, n2, order, arom in zip(a_or_empty(b, "atom_id_1"), a_or_empty(b, "atom_id_2"),
                                       a_or_empty(b, "value_order"), a_or_empty(b, "pdbx_aromatic_flag")):
            if str(n1) in index and str(n2) in index:
                bonds.append((index[str(n1)], index[str(n2)], ORDERS.get(str(order).upper(), 1),
                              str(arom).upper() == "Y"))
        charges = []
        for c in a["charge"]:
            try:
                charges.append(int(c))
            except (TypeError, ValueError):
                charges.append(0)
        return Component(
            name=name, atoms=atoms,
            elements=tuple(str(e)[:1].upper() + str(e)[1:].lower() for e in a["type_symbol"]),
            charges=tuple(charges),
            leaving=tuple(str(x).upper() == "Y" for x in a["pdbx_leaving_atom_flag"]),
            aromatic=tuple(str(x).upper() == "Y" for x in a["pdbx_aromatic_flag"]),
            bonds=tuple(bonds))


def a_or_empty(cols: dict, key: str):
    return cols.get(key, ())


_DICTIONARY = _Dictionary()


def components(names) -> dict[str, Component | None]:
    """CCD templates for residue names (None for names not in the dictionary)."""
    return _DICTIONARY.components(names)


def component(name: str) -> Component | None:
    return components([name]).get(str(name).strip().upper())


def dictionary_passes() -> int:
    """How many times this process has read the CCD file (0 until a template was needed)."""
    return _DICTIONARY.passes


def clear_cache() -> None:
    _DICTIONARY.clear()
