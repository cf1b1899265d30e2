"""Cut the small PDB excerpts in tests/data/excerpts/ from whole PDB entries (run by hand).

    python tests/data/make_excerpts.py PDB_DIR

PDB_DIR holds the entries (wwPDB data, CC0; the ones used here are redistributed with the
PLIP test suite, plip/test/pdb/, and 4gql also in shared/data/complexes/pdb/). An excerpt
keeps the ligand residue(s) whole, every residue with an atom within CUTOFF Å of a ligand
atom together with its sequence neighbours (so backbone N-H and C=O keep their peptide
bonds), the LINK records among kept residues and nothing else.
"""
import sys
from pathlib import Path

import numpy as np

CUTOFF = 3.6
# excerpt name: (entry, ligand residues (resname, chain, resseq), why it exists[, ligand atoms
# whose surroundings are kept (default: all)])
EXCERPTS = {
    "1h2t_gdp_7mg": ("1h2t", [("GDP", "Z", 1151), ("7MG", "Z", 1152)],
                     "composite cap analogue; 7MG N1-H donates to Asp114 OD2"),
    "3tah_bgo": ("3tah", [("BGO", "A", 300)], "guanine-like N1-H of BGO donates to Asp116"),
    "1bju_gp6": ("1bju", [("GP6", "A", 910)], "amidinophenyl urea: urea N3-H/N4-H donors"),
    "1aku_fmn": ("1aku", [("FMN", "A", 150)], "FMN ring O2/O4 are carbonyls, N3-H donates"),
    "1vsn_nft": ("1vsn", [("NFT", "A", 283)], "thioimidate N of a nitrile warhead bound to Cys25"),
    "4gql_r47": ("4gql", [("R47", "A", 306)], "phosphonate O shares a proton with Glu219 (2.56 A)",
                 ("P1", "O2", "O3")),
    "3o1h_tmo": ("3o1h", [("TMO", "B", 1)], "trimethylamine N-oxide, the only HETATM molecule"),
    "4alw_hy7": ("4alw", [("HY7", "A", 1308)], "tertiary ammonium N-H: its H placed as the reference does"),
    "2efj_37t": ("2efj", [("37T", "A", 502)], "ligand in two conformers: the higher occupancy is used"),
    # the chimerax definition's rules (tests/test_reference_match.py); frag_mup1 is the shared
    # PDBbind-style complex written as one PDB file by benchmarks/bench_chimerax.combined_pdb
    "2q8q_hem": ("2q8q", [("HEM", "A", 300)], "Fe bonds are coordination; His229 tautomer from bond lengths"),
    "3shy_5fo": ("3shy", [("5FO", "A", 1)], "a ring C=O ring is not aromatic: 5FO NAS-H donates to Glu817"),
    "1hvi_a77": ("1hvi", [("A77", "A", 800)], "deposited inhibitor hydroxyl H point away from Asp25",
                 ("O47", "O48")),
    "5ddr_gln": ("5ddr", [("GLN", "A", 101)], "RNA guanine N1 carries an H (nucleotide template)"),
    "frag_mup1": ("frag_mup1", [("IBT", "L", 1)], "thiazoline C=N: short-bond Npl becomes an N2 acceptor"),
}


def key(line):
    return (line[17:20].strip(), line[21].strip(), int(line[22:26]), line[26].strip())


def cut(path: Path, ligands, why, focus=None) -> str:
    lines = path.read_text().splitlines()
    atoms = [l for l in lines if l.startswith(("ATOM  ", "HETATM"))]
    model_end = next((k for k, l in enumerate(lines) if l.startswith("ENDMDL")), None)
    if model_end is not None:
        atoms = [l for l in lines[:model_end] if l.startswith(("ATOM  ", "HETATM"))]
    lig_keys = {k for k in map(key, atoms) if (k[0], k[1], k[2]) in set(ligands)}
    xyz = lambda l: np.array([float(l[30:38]), float(l[38:46]), float(l[46:54])])  # noqa: E731
    lig_xyz = np.array([xyz(l) for l in atoms if key(l) in lig_keys
                        and (focus is None or l[12:16].strip() in focus)])
    order = list(dict.fromkeys(map(key, atoms)))
    near = set()
    for l in atoms:
        k = key(l)
        if k in lig_keys or k[0] == "HOH" and not any(r[0] == "TMO" for r in ligands):
            continue
        if np.linalg.norm(lig_xyz - xyz(l), axis=1).min() <= CUTOFF:
            near.add(k)
    keep = set(lig_keys)
    for k in near:
        keep.add(k)
        if not atoms[[key(l) for l in atoms].index(k)].startswith("HETATM"):
            idx = order.index(k)
            for n in (idx - 1, idx + 1):
                if 0 <= n < len(order) and order[n][1] == k[1] and order[n][0] != "HOH":
                    keep.add(order[n])
    out = [f"REMARK   1 EXCERPT OF PDB ENTRY {path.stem.upper()} (WWPDB DATA, CC0 1.0) FOR MISIGEN TESTS",
           f"REMARK   1 {why.upper()[:66]}",
           f"REMARK   1 LIGAND + RESIDUES WITHIN {CUTOFF} A (WITH SEQUENCE NEIGHBOURS)"]
    for l in lines:
        if l.startswith("LINK  ") and len(l) >= 57:
            a = (l[17:20].strip(), l[21].strip(), int(l[22:26]), l[26].strip())
            b = (l[47:50].strip(), l[51].strip(), int(l[52:56]), l[56].strip())
            if a in keep and b in keep:
                out.append(l)
    out += [l for l in atoms if key(l) in keep]
    out.append("END")
    return "\n".join(out) + "\n"


def main(pdb_dir):
    here = Path(__file__).resolve().parent / "excerpts"
    here.mkdir(exist_ok=True)
    for name, (entry, ligands, why, *focus) in EXCERPTS.items():
        if not (Path(pdb_dir) / f"{entry}.pdb").is_file():
            print(name, f"kept as it is ({entry}.pdb not in {pdb_dir})")
            continue
        text = cut(Path(pdb_dir) / f"{entry}.pdb", ligands, why, *focus)
        (here / f"{name}.pdb").write_text(text)
        print(name, sum(1 for l in text.splitlines() if l.startswith(("ATOM", "HETATM"))), "atoms")


if __name__ == "__main__":
    main(sys.argv[1])
