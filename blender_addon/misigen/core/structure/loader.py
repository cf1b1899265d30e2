"""From paths to Structures: find inputs, pick the ligand, assign bonds, cut the pocket."""
from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..chemistry import bonds as bondlib
from ..errors import InputError
from ..chemistry.ligand import choose_ligand, ligand_mol, residue_id, residue_roles, unique_names
from ..chemistry.ligand_names import mol2_names_for
from .readers import (DEFAULT_READ, LIGAND_SUFFIXES, PROTEIN_SUFFIXES, ReadOptions, check_text_file,
                      file_stem, file_suffix, ligand_atom_names, read_conect, read_ligand_file, read_link_records,
                      read_protein_file)
from .model import WATER_NAMES, Structure

SAFE_ID = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class StructureSource:
    """Where one structure comes from: a protein file and, optionally, a ligand file."""
    id: str
    protein: Path
    ligand: Path | None = None
    split_key: str | None = None    # the id whose split this one takes (byte-identical inputs: duplicates.py)
    reading: ReadOptions = DEFAULT_READ     # which model and alternate locations of the protein file


def safe_id(name: str) -> str:
    """A structure id usable in file names: no separators, no leading dot."""
    cleaned = SAFE_ID.sub("_", name).lstrip("._") or "structure"
    return cleaned[:100]


# ------------------------------------------------------------------ discovery
@dataclass(frozen=True)
class Unused:
    path: Path
    why: str
    structure_like: bool        # a PDB/mmCIF/SDF/MOL2 file: losing it loses data
    unreadable: bool = False    # a file or folder that could not be read (permissions, I/O error)


@dataclass
class Discovery:
    """What ``--structures`` named: the structures found, and every file given but not used.

    ``unused`` holds an ``Unused`` for every file found but not used: structure files that
    could not be paired (``structure_like``) and other files (README, index …);
    ``alternatives`` holds (path, why) for files passed over in favour of another of the
    same structure (PDBbind's ``_pocket.pdb`` beside ``_protein.pdb``, ``.mol2`` beside ``.sdf``).
    """
    sources: list = field(default_factory=list)
    unused: list = field(default_factory=list)
    alternatives: list = field(default_factory=list)


def _is_protein(p: Path) -> bool:
    return file_suffix(p) in PROTEIN_SUFFIXES


def _is_ligand(p: Path) -> bool:
    return file_suffix(p) in LIGAND_SUFFIXES


def _ligand_rank(p: Path) -> tuple:
    return ({".sdf": 0, ".mol": 1, ".mol2": 2}[file_suffix(p)], p.name)


def _pdbbind_files(folder: Path) -> tuple[Path, list[Path]] | None:
    files = sorted(p for p in folder.iterdir() if p.is_file())
    proteins = [p for p in files if _is_protein(p) and file_stem(p).endswith(("_protein", "_pocket"))]
    ligands = [p for p in files if _is_ligand(p) and file_stem(p).endswith("_ligand")]
    if not proteins:
        return None
    # The whole protein is preferred over PDBbind's pre-cut pocket; SDF over MOL2.
    proteins.sort(key=lambda p: (not file_stem(p).endswith("_protein"), p.name))
    ligands.sort(key=_ligand_rank)
    return proteins[0], ligands


def _scan_folder(folder: Path, found: Discovery, exclude: set, seen: set) -> None:
    """One folder, then its sub-folders (sorted, hidden ones skipped)."""
    real = folder.resolve()
    if real in seen or real in exclude:
        return                                   # a symlink loop, or the output folder itself
    seen.add(real)
    try:
        entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    except OSError as exc:
        found.unused.append(_unreadable(folder, exc, "folder"))
        return
    files = [p for p in entries if _is(p, "file")]
    used: set = set()
    pdbbind = _pdbbind_files(folder)
    if pdbbind:
        protein, ligands = pdbbind
        found.sources.append(StructureSource(safe_id(folder.name), protein, ligands[0] if ligands else None))
        used.add(protein)
        if ligands:
            used.add(ligands[0])
        for p in files:
            if p in used:
                continue
            if _is_protein(p) and file_stem(p).endswith(("_protein", "_pocket")):
                found.alternatives.append((p, f"alternative to {protein.name} (the whole protein is preferred)"))
                used.add(p)
            elif _is_ligand(p) and file_stem(p).endswith("_ligand"):
                found.alternatives.append((p, f"alternative to {ligands[0].name} (SDF is preferred)"))
                used.add(p)
    else:
        proteins = {file_stem(p): p for p in files if _is_protein(p)}
        for stem, p in proteins.items():
            # A ligand beside it named <stem>_ligand.sdf|.mol|.mol2 is its ligand; else a HETATM ligand.
            ligands = sorted((q for q in files if _is_ligand(q) and file_stem(q) == f"{stem}_ligand"),
                             key=_ligand_rank)
            found.sources.append(StructureSource(safe_id(stem), p, ligands[0] if ligands else None))
            used.add(p)
            if ligands:
                used.add(ligands[0])
                for q in ligands[1:]:
                    found.alternatives.append((q, f"alternative to {ligands[0].name} (SDF is preferred)"))
                    used.add(q)
    for p in files:
        if p in used:
            continue
        if _is_ligand(p):
            why = "ligand file without a protein file to pair with (<id>_protein.pdb or <stem>.pdb beside it)"
        elif _is_protein(p):
            why = "protein file not used: this folder is a PDBbind layout (<id>_protein.pdb is used)"
        else:
            why = f"not a structure file (PDB/mmCIF/SDF/MOL2, optionally .gz): {p.name}"
        found.unused.append(Unused(p, why, _is_ligand(p) or _is_protein(p)))
    for sub in entries:
        if _is(sub, "dir"):
            _scan_folder(sub, found, exclude, seen)


def _is(path: Path, kind: str) -> bool:
    """``is_file``/``is_dir`` that says False where even stat is refused (the file is then unusable)."""
    try:
        return path.is_file() if kind == "file" else path.is_dir()
    except OSError:
        return False


def _unreadable(path: Path, exc: OSError, what: str = "file") -> Unused:
    return Unused(path, f"{what} cannot be read ({exc.strerror or exc})", True, unreadable=True)


def _readable(path: Path | None) -> OSError | None:
    """None if the file opens for reading, else the error."""
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            fh.read(1)
    except OSError as exc:
        return exc
    return None


def discover_inputs(paths, exclude=()) -> Discovery:
    """Structures named by files/folders; folders are searched recursively.

    A folder is a PDBbind layout (``<id>_protein.pdb|_pocket.pdb`` + ``<id>_ligand.sdf|.mol2``,
    id = folder name) or holds PDB/mmCIF files (id = file stem, ``.gz`` allowed), each with
    an optional ``<stem>_ligand.sdf`` beside it. Files named directly are used as given.
    Hidden files and folders (``.name``) and the folders in ``exclude`` are skipped.
    """
    found = Discovery()
    skip = {Path(p).resolve() for p in exclude}
    seen: set = set()
    for raw in paths:
        path = Path(raw)
        try:
            path.stat()
        except FileNotFoundError:
            raise InputError(path, "no such file or folder") from None
        except OSError as exc:                 # e.g. inside a folder this user may not enter
            found.unused.append(_unreadable(path, exc))
            continue
        if path.is_file():
            found.sources.append(StructureSource(safe_id(file_stem(path)), path))
        elif path.is_dir():
            _scan_folder(path, found, skip, seen)
        else:
            raise InputError(path, "no such file or folder")
    # A file that cannot be opened is recorded, and the batch goes on without it.
    readable = []
    for s in found.sources:
        exc = _readable(s.protein) or _readable(s.ligand)
        if exc is None:
            readable.append(s)
        else:
            bad = s.protein if _readable(s.protein) else s.ligand
            found.unused.append(_unreadable(Path(bad), exc))
    found.sources = readable
    # The same file reached twice (e.g. a folder and a file inside it) counts once.
    unique: dict = {}
    for s in found.sources:
        key = (s.protein.resolve(), s.ligand.resolve() if s.ligand else None)
        unique.setdefault(key, s)
    found.sources = list(unique.values())
    by_id: dict = {}
    for s in found.sources:
        by_id.setdefault(s.id, []).append(s)
    dupes = {i: v for i, v in by_id.items() if len(v) > 1}
    if dupes:
        i, v = sorted(dupes.items())[0]
        raise InputError(", ".join(str(s.protein) for s in v),
                         f"{len(dupes)} duplicate structure id(s), e.g. {i!r} from each of these files; "
                         "rename one or give fewer folders")
    return found


def discover(paths, exclude=()) -> list[StructureSource]:
    """The structures of ``discover_inputs`` (see there), in the order found."""
    return discover_inputs(paths, exclude).sources


def source_of(path: str | Path, ligand_file: str | Path | None = None) -> StructureSource:
    """The one structure at ``path`` (file or PDBbind-style folder), or ``path`` as the protein of
    ``ligand_file`` (SDF/MOL2); InputError when that is not exactly one structure."""
    if ligand_file:
        protein, lig = Path(path), Path(ligand_file)
        for p in (protein, lig):
            if not p.is_file():
                raise InputError(p, "no such file")
        return StructureSource(safe_id(lig.stem.removesuffix("_ligand")), protein, lig)
    found = discover([path])
    if len(found) != 1:
        raise InputError(path, f"expected one structure, found {len(found)}"
                         + (f": {', '.join(s.id for s in found[:5])}" if found else ""))
    return found[0]


@functools.lru_cache(maxsize=4)
def _load_cached(source: StructureSource, ligand: str | None, stamp: tuple) -> Structure:
    return load_structure(source, ligand)


def load(path: str | Path, ligand: str | None = None, ligand_file: str | Path | None = None,
         reading: ReadOptions | None = None) -> Structure:
    """One protein–ligand complex: a PDB/mmCIF file (ligand = its HETATM group, or ``ligand``
    as RES:CHAIN:NUM), a PDBbind-style folder, or a protein file plus ``ligand_file`` (SDF/MOL2);
    ``reading`` picks the model and alternate locations (``ReadOptions``; default: the first model,
    highest occupancy). Loading is memoised on the files' modification times (the GUI reloads often)."""
    source = source_of(path, ligand_file)
    if reading is not None:
        source = replace(source, reading=reading)
    stamp = tuple(p.stat().st_mtime_ns for p in (source.protein, source.ligand) if p)
    return _load_cached(source, ligand or None, stamp)


# ------------------------------------------------------------------ ligand choice
def ligand_chemistry_default() -> bool:
    """CCD templates for HETATM ligands unless MISIGEN_LIGAND_CHEMISTRY=geometry (the reference
    ChimeraX behaviour: geometry typing only)."""
    return os.environ.get("MISIGEN_LIGAND_CHEMISTRY", "ccd").strip().lower() != "geometry"


# ------------------------------------------------------------------ assembly
def load_structure(source: StructureSource, ligand: str | None = None) -> Structure:
    """Read one structure with its ligand and all bonds. Raises InputError on bad input."""
    table = read_protein_file(source.protein, source.reading)
    if source.ligand is not None:
        mol = read_ligand_file(source.ligand)
        keep = list(range(len(table)))
        lig_names = ligand_atom_names(mol)
        lig_coords = mol.GetConformer().GetPositions()
        title = mol.GetProp("_Name").strip() if mol.HasProp("_Name") else ""
        n = mol.GetNumAtoms()
        lig_res = [title if re.fullmatch(r"[A-Z0-9]{1,3}", title) else "LIG"] * n
        lig_chain, lig_num, lig_icode = ["L"] * n, [1] * n, [""] * n
        lig_elements = [a.GetSymbol() for a in mol.GetAtoms()]
        lig_charges = [a.GetFormalCharge() for a in mol.GetAtoms()]
        lig_meta = {"ligand_source": str(source.ligand), "ligand_bond_orders": "file"}
        lig_names = _mol2_names_if_any(source.ligand, mol, lig_names, lig_meta)
        roles = residue_roles(table, (), {lig_res[0]} - {"LIG"})
    else:
        text = check_text_file(source.protein)
        conect, links = read_conect(text), read_link_records(text)
        choice = choose_ligand(source.protein, table, ligand, conect, links)
        rows = choice.rows
        mol, templated, chem_meta = ligand_mol(source.protein, table, choice, conect, links,
                                                          use_ccd=ligand_chemistry_default())
        row_set = set(rows)
        keep = [i for i in range(len(table)) if i not in row_set]
        lig_names, renamed = unique_names(table, rows, choice.residues)
        lig_coords = table.coords[rows]
        lig_res = [table.resname[i] for i in rows]
        lig_chain = [table.chain[i] for i in rows]
        lig_num = [table.resseq[i] for i in rows]
        lig_icode = [table.icode[i] for i in rows]
        lig_elements = [table.element[i] for i in rows]
        lig_charges = [a.GetFormalCharge() for a in mol.GetAtoms()]
        lig_meta = {"ligand_source": f"{source.protein} HETATM {choice.id}",
                    "ligand_id": choice.id,
                    "ligand_bond_orders": "ccd (wwPDB template; geometry for unmatched atoms)" if templated
                    else "unknown (PDB); perceived from geometry when needed", **chem_meta}
        if renamed:
            lig_meta["ligand_atom_names"] = "prefixed with their residue (two residues share names)"
        if choice.copies:
            lig_meta["ligand_copies"] = choice.copies     # copy id → protein contacts (the most wins)
        roles = residue_roles(table, rows, {k[3] for k in choice.residues})
    n_lig = len(lig_names)
    if n_lig == 0:
        raise InputError(source.ligand or source.protein, "ligand has no atoms")
    keep_arr = np.asarray(keep, dtype=np.int64)
    coords = np.vstack([table.coords[keep_arr].reshape(-1, 3), np.asarray(lig_coords, dtype=np.float64)])
    pick = lambda col: [col[i] for i in keep]  # noqa: E731
    n_prot = len(keep)
    structure_cols = dict(
        element=np.array(pick(table.element) + lig_elements, dtype=object).astype(str),
        name=np.array(pick(table.name) + lig_names, dtype=object).astype(str),
        resname=np.array(pick(table.resname) + lig_res, dtype=object).astype(str),
        resseq=np.array(pick(table.resseq) + lig_num, dtype=np.int64),
        icode=np.array(pick(table.icode) + lig_icode, dtype=object).astype(str),
        chain=np.array(pick(table.chain) + lig_chain, dtype=object).astype(str),
        ligand=np.array([False] * n_prot + [True] * n_lig),
        hetero=np.array(pick(table.hetero) + [True] * n_lig, dtype=bool),
        formal_charge=np.array([0] * n_prot + lig_charges, dtype=np.int64),
        role=np.array(pick(roles) + ["ligand"] * n_lig, dtype=object).astype(str),
    )
    lig_meta["non_protein"] = _non_protein_groups(structure_cols)
    bond_list = _protein_bonds(coords, structure_cols, n_prot)
    for b in mol.GetBonds():
        order = 1.5 if b.GetIsAromatic() else float(b.GetBondTypeAsDouble() or 1.0)
        bond_list.append((n_prot + b.GetBeginAtomIdx(), n_prot + b.GetEndAtomIdx(), order))
    bonds, orders = bondlib.as_arrays(bond_list)
    lig_meta["reading"] = table.reading
    structure = Structure(id=source.id, coords=coords, bonds=bonds, bond_order=orders,
                          sources=tuple(str(p) for p in (source.protein, source.ligand) if p),
                          ligand_mol=mol, meta=lig_meta, **structure_cols)
    _check_ligand_clash(source, structure)
    return structure


def _non_protein_groups(cols) -> dict:
    """{role: [RES:CHAIN:NUM, …]} of the non-ligand residues that are neither polymer nor water
    (left out of the pocket unless the style keeps metals/cofactors), in file order."""
    out: dict = {}
    seen: set = set()
    for role, key in zip(cols["role"], zip(cols["chain"], cols["resseq"].tolist(), cols["icode"], cols["resname"])):
        if role in ("polymer", "water", "ligand") or key in seen:
            continue
        seen.add(key)
        out.setdefault(str(role), []).append(residue_id(key))
    return out


def _mol2_names_if_any(ligand_path: Path, mol, names: list, meta: dict) -> list:
    """Atom names from a MOL2 beside an SDF/MOL ligand (PDBbind ships both; MiSI-Bench answers
    use the MOL2 names). Chemistry stays from the SDF; names are taken only when the heavy
    atoms' coordinates agree, else the generated names stay and meta says why."""
    if ligand_path.suffix.lower() == ".mol2":
        return names
    mol2 = ligand_path.with_suffix(".mol2")
    if not mol2.is_file():
        return names
    found, why = mol2_names_for(mol, mol2)
    meta["ligand_atom_names"] = f"MOL2 {mol2.name}" if found else f"generated ({why})"
    return found or names


def _protein_bonds(coords, cols, n_prot) -> list:
    """Template / distance bonds per residue, then peptide, disulfide and nucleic links."""
    residues: dict[tuple, list[int]] = {}
    for i in range(n_prot):
        key = (cols["chain"][i], int(cols["resseq"][i]), cols["icode"][i], cols["resname"][i])
        residues.setdefault(key, []).append(i)
    out = []
    polymer = []
    for key, rows in residues.items():
        out += bondlib.residue_bonds(coords, cols["element"], cols["name"], key[3], rows)
        if key[3] not in WATER_NAMES and (not cols["hetero"][rows[0]]
                                          or bondlib.residue_template(key[3]) is not None):
            polymer.append(rows)
    out += bondlib.link_bonds(coords, cols["name"], polymer, cols["chain"])
    return out


def _check_ligand_clash(source, s: Structure) -> None:
    """A ligand placed on top of protein atoms means the two files do not belong together."""
    lig = s.ligand & ~s.is_hydrogen
    prot = ~s.ligand & ~s.is_hydrogen & ~s.is_water
    if not prot.any():
        return
    d = np.linalg.norm(s.coords[lig][:, None] - s.coords[prot][None], axis=-1)
    nearest = d.min(axis=1)
    if nearest.min() > 8.0:
        raise InputError(source.ligand or source.protein,
                         f"ligand is {nearest.min():.1f} Å from every protein atom: files do not match")


# ------------------------------------------------------------------ pocket and shown atoms
def pocket_residue_mask(s: Structure, cutoff: float = 10.0, waters: bool = False, keep=()) -> np.ndarray:
    """Atoms of every pocket candidate residue (``Structure.pocket_candidates(keep)``: protein, plus
    metals/cofactors if kept; waters if ``waters``) with any heavy atom within ``cutoff`` Å of a
    ligand heavy atom."""
    heavy = ~s.is_hydrogen
    lig = s.coords[s.ligand & heavy]
    cand = heavy & (s.pocket_candidates(keep) | (s.is_water & waters))
    near = np.zeros(s.n_atoms, dtype=bool)
    idx = np.nonzero(cand)[0]
    for start in range(0, len(idx), 4096):
        chunk = idx[start:start + 4096]
        d2 = ((s.coords[chunk][:, None, :] - lig[None, :, :]) ** 2).sum(-1)
        near[chunk] = d2.min(axis=1) <= cutoff * cutoff
    res = s.residue_index()
    hit = np.unique(res[near])
    return np.isin(res, hit) & (s.pocket_candidates(keep) | (s.is_water & waters))


def shown_mask(s: Structure, cutoff: float | None = 10.0, hydrogens: bool = False,
               waters: bool = False, ligand: bool = True, protein: bool = True, keep=()) -> np.ndarray:
    """What a render shows: ligand + pocket residues (or the whole protein if cutoff is None).
    ``keep``: "metals", "cofactors" shown besides the protein (``Structure.pocket_candidates``)."""
    if cutoff is None:
        prot = s.pocket_candidates(keep) | (s.is_water & waters)
    else:
        prot = pocket_residue_mask(s, cutoff, waters, keep)
    mask = (s.ligand if ligand else np.zeros(s.n_atoms, bool)) | (prot if protein else False)
    if not hydrogens:
        mask &= ~s.is_hydrogen
    return mask
