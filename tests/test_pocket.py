"""The pocket is protein: buffers, additives and other copies of the ligand are never
pocket residues or interaction partners; metals and cofactors only when the style keeps them;
of several copies of the ligand's component the one with most protein contacts is the ligand.

The test complex is the 1bju excerpt (wwPDB data, CC0; its SO4 901 H-bonds the urea of GP6 910)
with two groups added by ``copies_excerpt``: a second copy of GP6 (911), listed first and moved
7 Å away from the protein, and an ethylene glycol (EDO 920) beside the ligand.
"""
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from misigen.core.chemistry.ligand import choose_ligand
from misigen.core.chemistry.interactions import find_interactions
from misigen.core.structure.loader import discover, load_structure
from misigen.core.structure.readers import read_protein_file
from misigen.core.scene.scene_plan import shown_structure
from misigen.core.look.style import load_style
from misigen.core.tasks.common import Context

EXCERPTS = Path(__file__).resolve().parent / "data" / "excerpts"


def _hetatm(serial, name, resname, resseq, xyz, element):
    return (f"HETATM{serial:5d} {name:<4s} {resname:>3s} A{resseq:4d}    "
            f"{xyz[0]:8.3f}{xyz[1]:8.3f}{xyz[2]:8.3f}  1.00 20.00          {element:>2s}  ")


def copies_excerpt(tmp_path, shift_copy=7.0, shift_ligand=0.0) -> Path:
    lines = (EXCERPTS / "1bju_gp6.pdb").read_text().splitlines()
    atoms = [l for l in lines if l.startswith(("ATOM", "HETATM"))]
    xyz = lambda l: np.array([float(l[30:38]), float(l[38:46]), float(l[46:54])])  # noqa: E731
    prot = np.array([xyz(l) for l in atoms if l.startswith("ATOM")])
    gp6 = [l for l in atoms if l[17:20] == "GP6"]
    centre = np.array([xyz(l) for l in gp6]).mean(0)
    away = centre - prot.mean(0)
    away /= np.linalg.norm(away)

    def moved(l, by, resseq):
        p = xyz(l) + away * by
        return f"{l[:22]}{resseq:4d}{l[26:30]}{p[0]:8.3f}{p[1]:8.3f}{p[2]:8.3f}{l[54:]}"
    copy = [moved(l, shift_copy, 911) for l in gp6]
    ligand = [moved(l, shift_ligand, 910) for l in gp6]
    n1 = xyz(next(l for l in gp6 if l[12:16].strip() == "N1"))
    side = np.cross(away, [0.0, 0.0, 1.0])
    side /= np.linalg.norm(side)
    up = np.cross(side, away)
    # O1 3.2 Å from the amidine N1, the rest pointing away from the ligand
    edo = [_hetatm(2001 + k, name, "EDO", 920, n1 + side * a + up * b, el) for k, (name, a, b, el) in enumerate(
        [("O1", 3.2, 0.0, "O"), ("C1", 4.6, 0.0, "C"), ("C2", 5.3, 1.3, "C"), ("O2", 6.7, 1.3, "O")])]
    body = [l for l in atoms if l[17:20] != "GP6"]
    path = tmp_path / "1bju_copies.pdb"
    path.write_text("\n".join(body + copy + ligand + edo + ["END", ""]))
    return path


def residues(s, mask=None):
    mask = ~s.ligand if mask is None else mask
    return {(str(r), int(n)) for r, n in zip(s.resname[mask], s.resseq[mask])}


@pytest.mark.slow      # takes long
def test_copy_with_most_protein_contacts_is_the_ligand(tmp_path):
    s = load_structure(discover([copies_excerpt(tmp_path)])[0])
    assert s.meta["ligand_id"] == "GP6:A:910"           # not the first copy in the file (911)
    contacts = s.meta["ligand_copies"]
    assert set(contacts) == {"GP6:A:910", "GP6:A:911"} and contacts["GP6:A:910"] > contacts["GP6:A:911"]
    assert "most protein contacts" in s.meta["ligand_choice"]
    roles = dict(zip(zip(s.resname.tolist(), s.resseq.tolist()), s.role.tolist()))
    assert roles[("GP6", 911)] == "copy" and roles[("SO4", 901)] == "additive" and roles[("EDO", 920)] == "additive"
    assert s.meta["non_protein"] == {"additive": ["SO4:A:901", "EDO:A:920"], "copy": ["GP6:A:911"]}


def test_ligand_selector_still_overrides_and_open_selectors_take_most_contacts(tmp_path):
    src = discover([copies_excerpt(tmp_path)])[0]
    assert load_structure(src, "GP6:A:911").meta["ligand_id"] == "GP6:A:911"
    assert load_structure(src, "GP6").meta["ligand_id"] == "GP6:A:910"
    s = load_structure(src, "GP6:A:911")
    assert dict(zip(s.resseq.tolist(), s.role.tolist()))[910] == "copy"


def test_equal_contacts_take_the_first_copy(tmp_path):
    # both copies far from the protein: 0 contacts each, so the first in the file wins
    path = copies_excerpt(tmp_path, shift_copy=40.0, shift_ligand=60.0)
    choice = choose_ligand(path, read_protein_file(path))
    assert choice.copies == {"GP6:A:911": 0, "GP6:A:910": 0}
    assert choice.id == "GP6:A:911"


def test_no_non_protein_group_in_the_pocket_or_as_a_partner(tmp_path):
    s = load_structure(discover([copies_excerpt(tmp_path)])[0])
    style = load_style("misi_bench")
    shown = shown_structure(s, style)
    assert residues(shown) and all(r == "polymer" for r in shown.role[~shown.ligand])
    assert not residues(shown) & {("SO4", 901), ("EDO", 920), ("GP6", 911)}
    ctx = Context(s, style)
    partners = {(it.resname, it.resseq) for it in ctx.hbonds()}
    for kind in ("salt_bridge", "hydrophobic", "metal", "pi_stacking"):
        partners |= {(it.resname, it.resseq) for it in ctx.interactions(kind)}
    assert partners and not partners & {("SO4", 901), ("EDO", 920), ("GP6", 911)}
    assert all(s.role[it.protein_index] == "polymer" for it in ctx.hbonds())
    # the same structure without roles (every non-ligand group a candidate):
    # the sulfate H-bonds the urea and the copy and EDO are pocket residues, so the checks above can fail
    old = replace(s, role=None)
    assert ("SO4", 901) in {(it.resname, it.resseq) for it in find_interactions(old)}
    assert {("SO4", 901), ("EDO", 920), ("GP6", 911)} <= residues(shown_structure(old, style))


@pytest.mark.slow      # takes long
def test_metals_and_cofactors_are_a_style_choice():
    s = load_structure(discover([EXCERPTS / "4gql_r47.pdb"])[0])       # R47 phosphonate on ZN 301
    assert dict(zip(s.resname.tolist(), s.role.tolist()))["ZN"] == "metal"
    plain = load_style("misi_bench")
    metals = load_style("misi_bench", {"selection": {"metals": True}})
    assert ("ZN", 301) not in residues(shown_structure(s, plain))
    assert ("ZN", 301) in residues(shown_structure(s, metals))
    assert not Context(s, plain).interactions("metal")
    assert {(it.resname, it.resseq) for it in Context(s, metals).interactions("metal")} == {("ZN", 301)}
    # 2efj: the ligand chosen is SAH 501; 37T 502 beside it is a cofactor by these rules
    s = load_structure(discover([EXCERPTS / "2efj_37t.pdb"])[0])
    assert s.meta["ligand_id"] == "SAH:A:501"
    cof = load_style("misi_bench", {"selection": {"cofactors": True}})
    assert ("37T", 502) not in residues(shown_structure(s, plain))
    assert ("37T", 502) in residues(shown_structure(s, cof))
    with pytest.raises(ValueError, match="unknown pocket extra"):
        s.pocket_candidates(("waters",))


def test_keep_flags_reach_the_style():
    from misigen.pipeline.cli import build_parser
    from misigen.pipeline.commands.args import style_from_args
    args = build_parser().parse_args(["render", "--structures", "x.pdb", "--out", "o", "--keep-metals"])
    sel = style_from_args(args)["selection"]
    assert sel["metals"] is True and sel["cofactors"] is False


def test_generate_logs_which_copy_it_took(tmp_path):
    from misigen.pipeline.unit import ligand_notes
    s = load_structure(discover([copies_excerpt(tmp_path)])[0])
    (note,) = ligand_notes("x", s)
    assert note.startswith("x: ligand GP6:A:910 (") and "of 2 copies (others: GP6:A:911" in note
    assert ligand_notes("y", load_structure(discover([EXCERPTS / "4gql_r47.pdb"])[0])) == []
