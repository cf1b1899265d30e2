"""The Interaction record, its ordering and the plain-text table."""
from __future__ import annotations

from dataclasses import dataclass, field


def _round(v):
    if isinstance(v, float):
        return round(v, 3)
    if isinstance(v, dict):
        return {k: _round(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_round(x) for x in v]
    if hasattr(v, "item"):          # numpy scalar
        return _round(v.item())
    return v


@dataclass(frozen=True)
class Interaction:
    kind: str                 # "hbond", "salt_bridge", ...
    protein_index: int        # row in the structure (ring interactions: a representative atom)
    ligand_index: int
    chain: str
    resname: str
    resseq: int
    icode: str
    protein_atom: str
    ligand_atom: str
    donor: str                # "protein" | "ligand" | "shared" (acid-acid proton) | "" (non-directional)
    distance: float           # Å, heavy-atom (or centroid) distance
    angles: dict              # name -> degrees
    criterion: str            # which rule matched
    extra: dict = field(default_factory=dict)
    # Stable identity of the partners for answers: every atom of each side's group, by name
    # (one atom for atom-atom kinds; ring atoms for rings; the charged group for salt bridges).
    protein_atoms: tuple = ()
    ligand_atoms: tuple = ()
    # The rule that bounded ``distance`` and the limit it set, as the finder applied it (Å; an H-bond's
    # acceptor rule, relaxed; another kind's criterion). Records carry ``criterion``, which gives back
    # the same pair (``hbond_limits.criterion_limit``), so ``as_dict`` (the records' form) leaves them out.
    rule: str = ""
    limit: float | None = None

    def partner_atoms(self) -> tuple[tuple, tuple]:
        """(protein atom names, ligand atom names), falling back to the representative atoms."""
        return (tuple(self.protein_atoms) or (self.protein_atom,), tuple(self.ligand_atoms) or (self.ligand_atom,))

    def identity(self) -> tuple:
        """What an answer names: kind, protein residue, both sides' atoms (order-free)."""
        p, l_ = self.partner_atoms()
        return (self.kind, self.chain, self.resname, int(self.resseq), self.icode,
                tuple(sorted(p)), tuple(sorted(l_)))

    def as_dict(self) -> dict:
        return {
            "kind": self.kind, "protein_index": int(self.protein_index),
            "ligand_index": int(self.ligand_index), "chain": self.chain, "resname": self.resname,
            "resseq": int(self.resseq), "icode": self.icode, "protein_atom": self.protein_atom,
            "ligand_atom": self.ligand_atom, "donor": self.donor,
            "distance": _round(float(self.distance)), "angles": _round(dict(self.angles)),
            "criterion": self.criterion, "extra": _round(dict(self.extra)),
            "protein_atoms": list(self.partner_atoms()[0]), "ligand_atoms": list(self.partner_atoms()[1]),
        }

    def sort_key(self):
        return (self.chain, self.resseq, self.icode, self.protein_atom, self.ligand_atom, self.kind,
                self.donor, self.protein_index, self.ligand_index)


def sort_interactions(items) -> list:
    return sorted(items, key=Interaction.sort_key)


def format_table(interactions) -> str:
    """A plain-text table, one interaction a line, for checking by eye."""
    head = ["kind", "chain", "residue", "p_atom", "l_atom", "donor", "dist", "angles", "criterion"]
    rows = []
    for it in interactions:
        ang = " ".join(f"{k}={v:.1f}" for k, v in sorted(it.angles.items()))
        rows.append([it.kind, it.chain or "-", f"{it.resname}{it.resseq}{it.icode}", it.protein_atom,
                     it.ligand_atom, it.donor or "-", f"{it.distance:.2f}", ang or "-", it.criterion])
    widths = [max([len(h)] + [len(r[k]) for r in rows]) for k, h in enumerate(head)]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    lines = [fmt(head), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows]
    lines.append(f"{len(rows)} interaction(s)")
    return "\n".join(lines)
