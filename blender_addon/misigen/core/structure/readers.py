"""Read structure files (PDB, mmCIF, SDF, MOL2) into flat atom tables.

Biopython parses proteins, RDKit parses ligands; this module only checks the input, keeps one
model (``ReadOptions.model``, the first by default) and one alternate location per residue
(``ReadOptions.altloc``, the reference's choice by default) and turns both into the columns of
``Structure``.
"""
from __future__ import annotations

import gzip
import io
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError

MAX_ABS_COORD = 9999.0  # PDB's fixed columns cannot hold more; beyond is garbage
PROTEIN_SUFFIXES = {".pdb", ".ent", ".cif", ".mmcif"}
LIGAND_SUFFIXES = {".sdf", ".mol", ".mol2"}
COMPRESSED_SUFFIX = ".gz"          # any structure file may be gzipped: 1abc.cif.gz


def file_suffix(path: Path) -> str:
    """The structure-format suffix, lower-case, looking through a trailing ``.gz``."""
    path = Path(path)
    if path.suffix.lower() == COMPRESSED_SUFFIX:
        return Path(path.stem).suffix.lower()
    return path.suffix.lower()


def file_stem(path: Path) -> str:
    """The file name without its format suffix (and without ``.gz``): ``1abc.cif.gz`` → ``1abc``."""
    path = Path(path)
    if path.suffix.lower() == COMPRESSED_SUFFIX:
        path = Path(path.stem)
    return path.stem


ALTLOC_RULES = ("occupancy", "first")


@dataclass(frozen=True)
class ReadOptions:
    """Which atoms of a PDB/mmCIF file are read.

    ``model``: the N-th model in the file (1 = the first; NMR ensembles have many).
    ``altloc``: per residue, ``occupancy`` = the alternate location with the highest mean
    occupancy, then the lowest mean B-factor, then the first letter (ChimeraX's choice);
    ``first`` = the first letter; a letter (``B``) = that location where the residue has it,
    else the occupancy choice."""
    model: int = 1
    altloc: str = "occupancy"

    def __post_init__(self):
        if not isinstance(self.model, int) or isinstance(self.model, bool) or self.model < 1:
            raise ValueError(f"model must be a whole number >= 1, not {self.model!r}")
        if self.altloc not in ALTLOC_RULES and not (len(self.altloc) == 1 and self.altloc.isalnum()):
            raise ValueError(f"altloc must be {' or '.join(ALTLOC_RULES)} or one location letter, not {self.altloc!r}")

    def as_dict(self) -> dict:
        return {"model": self.model, "altloc": self.altloc}

    def changed(self) -> dict:
        """The settings that differ from the defaults (run identities list only these)."""
        return {k: v for k, v in self.as_dict().items() if v != getattr(DEFAULT_READ, k)}


@dataclass
class AtomTable:
    """Columns of atoms read from one file, before bonds are assigned."""
    coords: np.ndarray
    element: list
    name: list
    resname: list
    resseq: list
    icode: list
    chain: list
    hetero: list            # True for HETATM records
    serial: list            # file serial numbers (for CONECT records)
    reading: dict = None    # what was read: models in the file, the model used, residues with altlocs

    def __len__(self):
        return len(self.element)


def check_text_file(path: Path) -> str:
    """The file's text, or InputError if it is missing, empty or binary."""
    if not path.is_file():
        raise InputError(path, "file not found")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot be read ({exc.strerror or exc})") from None
    if path.suffix.lower() == COMPRESSED_SUFFIX:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, ValueError, zlib.error) as exc:
            raise InputError(path, f"not a readable gzip file ({exc})") from None
    if not data.strip():
        raise InputError(path, "file is empty")
    if b"\x00" in data[:65536]:
        raise InputError(path, "binary file (NUL bytes), not a structure text file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            return data.decode("latin-1")
        except UnicodeDecodeError as exc:  # pragma: no cover - latin-1 decodes anything
            raise InputError(path, f"not a text file ({exc})") from None


def check_coordinates(path, coords: np.ndarray) -> None:
    if not np.all(np.isfinite(coords)):
        raise InputError(path, "non-finite atom coordinates")
    if len(coords) and np.abs(coords).max() > MAX_ABS_COORD:
        raise InputError(path, f"absurd atom coordinates (|x| up to {np.abs(coords).max():.3g} Å)")
    if len(coords) > 1 and np.ptp(coords, axis=0).max() < 1e-3:
        raise InputError(path, "all atoms share one position")


def _element_of(atom) -> str:
    el = (atom.element or "").strip()
    if not el or el == "X":
        # Fall back to the atom name (PDB convention: element right-justified in cols 13-14).
        name = atom.get_fullname()
        el = name[:2].strip() if name[:1].isalpha() and name[:2].strip().isalpha() and len(name.strip()) == 4 \
            else name.strip().lstrip("0123456789")[:1]
    return el[:1].upper() + el[1:].lower()


def read_protein_file(path: Path, options: ReadOptions | None = None) -> AtomTable:
    """PDB or mmCIF → AtomTable (one model, one alternate location per residue, hydrogens kept).

    By default the first model and the reference's (ChimeraX) alternate location: per residue,
    the one with the highest mean occupancy, then the lowest mean B-factor, then the first
    letter. ``options`` (``ReadOptions``) picks another model or rule."""
    options = options or DEFAULT_READ
    from Bio.PDB import MMCIFParser, PDBParser
    from Bio.PDB.PDBExceptions import PDBConstructionWarning

    text = check_text_file(path)
    suffix = file_suffix(path)
    if suffix in (".cif", ".mmcif"):
        parser = MMCIFParser(QUIET=True)
    else:
        if not any(line.startswith(("ATOM", "HETATM")) for line in text.splitlines()):
            raise InputError(path, "no ATOM or HETATM records")
        parser = PDBParser(QUIET=True, PERMISSIVE=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PDBConstructionWarning)
            # gzipped files are parsed from their decompressed text
            handle = io.StringIO(text) if path.suffix.lower() == COMPRESSED_SUFFIX else str(path)
            structure = parser.get_structure(file_stem(path), handle)
    except Exception as exc:  # Biopython raises many types on malformed input
        raise InputError(path, f"cannot parse ({type(exc).__name__}: {exc})") from None
    models = list(structure)
    if not models:
        raise InputError(path, "no models in file")
    if options.model > len(models):
        raise InputError(path, f"model {options.model} asked for (--model), the file has {len(models)} model(s)")
    cols = {k: [] for k in ("coords", "element", "name", "resname", "resseq", "icode", "chain",
                            "hetero", "serial")}
    with_altlocs = 0
    for chain in models[options.model - 1]:
        for residue in chain:
            hetflag, resseq, icode = residue.id
            seen: set = set()
            best = _choose_altloc(residue, options.altloc)
            with_altlocs += bool(best)
            for atom in residue.get_unpacked_list():
                altloc = atom.get_altloc().strip()
                if atom.get_name() in seen:
                    continue  # another conformer of an atom already taken
                if altloc not in ("", best) and _has_altloc(residue, atom.get_name(), best):
                    continue
                seen.add(atom.get_name())
                cols["coords"].append(atom.get_coord().astype(np.float64))
                cols["element"].append(_element_of(atom))
                cols["name"].append(atom.get_name())
                cols["resname"].append(residue.get_resname().strip())
                cols["resseq"].append(int(resseq))
                cols["icode"].append(icode.strip())
                cols["chain"].append(chain.id.strip())
                cols["hetero"].append(hetflag.startswith("H_") or hetflag == "W")
                cols["serial"].append(atom.get_serial_number())
    if not cols["element"]:
        raise InputError(path, "no atoms")
    coords = np.array(cols.pop("coords"), dtype=np.float64).reshape(-1, 3)
    check_coordinates(path, coords)
    reading = {"models": len(models), "model": options.model, "altloc": options.altloc,
               "residues_with_altlocs": with_altlocs}
    return AtomTable(coords=coords, reading=reading, **cols)


def _choose_altloc(residue, rule: str) -> str:
    """The residue's alternate location under ``rule`` (see ``ReadOptions``); "" when it has none."""
    if rule == "occupancy":
        return _best_altloc(residue)
    letters = sorted({a.get_altloc().strip() for a in residue.get_unpacked_list()} - {""})
    if not letters:
        return ""
    if rule == "first":
        return letters[0]
    return rule if rule in letters else _best_altloc(residue)


def _best_altloc(residue) -> str:
    """The residue's alternate location with the highest mean occupancy (ties: lowest mean
    B-factor, then alphabetical), as ChimeraX chooses it; "" when it has none. (ChimeraX also
    pools bonded residues that share the same set of locations; here each residue decides.)"""
    occ: dict = {}
    for atom in residue.get_unpacked_list():
        alt = atom.get_altloc().strip()
        if alt:
            o = occ.setdefault(alt, [0.0, 0.0, 0])
            o[0] += float(atom.get_occupancy() or 0.0)
            o[1] += float(atom.get_bfactor() or 0.0)
            o[2] += 1
    if not occ:
        return ""
    return min(occ, key=lambda a: (-round(occ[a][0] / occ[a][2], 6), round(occ[a][1] / occ[a][2], 6), a))


DEFAULT_READ = ReadOptions()


def _has_altloc(residue, atom_name: str, altloc: str) -> bool:
    for atom in residue.get_unpacked_list():
        if atom.get_name() == atom_name and atom.get_altloc().strip() in ("", altloc):
            return True
    return False


def read_conect(text: str) -> list[tuple[int, int]]:
    """Serial-number pairs from PDB CONECT records."""
    pairs = []
    for line in text.splitlines():
        if line.startswith("CONECT"):
            fields = [line[i:i + 5] for i in range(6, len(line.rstrip()), 5)]
            try:
                nums = [int(f) for f in fields if f.strip()]
            except ValueError:
                continue
            for partner in nums[1:5]:
                pairs.append((nums[0], partner))
    return pairs


def read_link_records(text: str) -> list[tuple[tuple, tuple]]:
    """Atom pairs of PDB LINK records: ((chain, resseq, icode, resname, atom name), (…))."""
    out = []
    for line in text.splitlines():
        if not line.startswith("LINK  ") or len(line) < 57:
            continue
        try:
            a = (line[21].strip(), int(line[22:26]), line[26].strip(), line[17:20].strip(), line[12:16].strip())
            b = (line[51].strip(), int(line[52:56]), line[56].strip(), line[47:50].strip(), line[42:46].strip())
        except (ValueError, IndexError):
            continue
        out.append((a, b))
    return out


def read_ligand_file(path: Path):
    """SDF / MOL / MOL2 → RDKit Mol with explicit H kept (first molecule of the file)."""
    from rdkit import Chem, RDLogger

    text = check_text_file(path)
    gzipped = path.suffix.lower() == COMPRESSED_SUFFIX
    RDLogger.DisableLog("rdApp.*")
    try:
        suffix = file_suffix(path)
        mol = None
        for sanitize in (True, False):
            if suffix == ".mol2":
                mol = Chem.MolFromMol2Block(text, removeHs=False, sanitize=sanitize) if gzipped else \
                    Chem.MolFromMol2File(str(path), removeHs=False, sanitize=sanitize)
            else:
                if gzipped:
                    supplier = Chem.SDMolSupplier()
                    supplier.SetData(text, removeHs=False, sanitize=sanitize)
                else:
                    supplier = Chem.SDMolSupplier(str(path), removeHs=False, sanitize=sanitize)
                mol = next((m for m in supplier if m is not None), None) if len(supplier) else None
            if mol is not None:
                if not sanitize:
                    mol.UpdatePropertyCache(strict=False)
                    Chem.SanitizeMol(mol, Chem.SanitizeFlags.SANITIZE_SYMMRINGS
                                     | Chem.SanitizeFlags.SANITIZE_SETAROMATICITY, catchErrors=True)
                break
    finally:
        RDLogger.EnableLog("rdApp.*")
    if mol is None:
        raise InputError(path, "cannot parse ligand (RDKit found no valid molecule)")
    if mol.GetNumAtoms() == 0:
        raise InputError(path, "ligand has no atoms")
    if mol.GetNumConformers() == 0 or not mol.GetConformer().Is3D() and \
            np.allclose(mol.GetConformer().GetPositions()[:, 2], 0):
        raise InputError(path, "ligand has no 3D coordinates")
    check_coordinates(path, mol.GetConformer().GetPositions())
    return mol


def ligand_atom_names(mol) -> list[str]:
    """Atom names: from MOL2/PDB records when present, else element + per-element counter."""
    names, counter = [], {}
    for atom in mol.GetAtoms():
        name = None
        if atom.HasProp("_TriposAtomName"):
            name = atom.GetProp("_TriposAtomName").strip()
        info = atom.GetPDBResidueInfo()
        if not name and info is not None:
            name = info.GetName().strip()
        if not name:
            sym = atom.GetSymbol()
            counter[sym] = counter.get(sym, 0) + 1
            name = f"{sym.upper()}{counter[sym]}"
        names.append(name)
    return names
