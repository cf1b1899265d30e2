"""H-bond limits live in hbond_criteria.yaml alone; every interaction carries its (rule, limit), and a
record's criterion text gives back the same pair; each kind is one entry of the kind table."""
import pytest
import yaml

from misigen.core.data_files import DATA_DIR
from misigen.core.chemistry.interactions import INTERACTION_KINDS, KINDS, find_interactions
from misigen.core.chemistry.interactions.hbond_limits import criterion_limit
from misigen.core.chemistry.interactions.hbond_rules import criteria
from misigen.core.rationale import limits

YAML = yaml.safe_load((DATA_DIR / "interactions" / "hbond_criteria.yaml").read_text(encoding="utf-8"))


def _rs(rule: dict) -> list[float]:
    return [rule["r"]] if "r" in rule else [rule[s]["r"] for s in ("syn", "anti") if s in rule]


def test_rationale_limits_are_the_criteria_tables():
    rules = list(YAML["acceptors"]) + list(YAML["generic_acceptors"].values())
    assert limits.SLOP == YAML["relaxation"]["distance"]
    assert limits.SHARED_PROTON == YAML["shared_proton"]["max_distance"]
    assert limits.MAX_NO == max(r for rule in rules if rule.get("element") != "S" for r in _rs(rule))
    assert limits.MAX_NO < max(r for rule in rules for r in _rs(rule))       # the S rules are wider


@pytest.mark.parametrize("definition", ["chimerax", "misigen"])
def test_each_hbond_carries_the_rule_and_limit_its_criterion_names(brd4, hivp, definition):
    found = [it for s in (brd4, hivp) for it in find_interactions(s, kinds=("hbond",), definition=definition)]
    assert len(found) >= 5
    for it in found:
        got = criterion_limit(it.criterion)
        assert got is not None and (got.rule, got.applied()) == (it.rule, pytest.approx(it.limit)), it.criterion
        assert it.distance <= it.limit
        assert limits.acceptor_limit(it.criterion) == (got.distance, got.rule)
    assert len({it.rule for it in found}) > 2


def test_criteria_the_finder_does_not_write_have_no_limit():
    assert criterion_limit("") is None
    assert criterion_limit("acceptor #99 no such rule / donor l amide N-H (backbone N)") is None
    assert criterion_limit("acceptor #6 amide O anti") is None                   # no donor half
    shared = criterion_limit("shared proton: acid O...acid O 2.56 A <= 2.65 A")
    assert (shared.rule, shared.distance, shared.relaxed) == ("shared proton", 2.65, False)
    assert shared.applied() == shared.applied(1.0) == 2.65


def test_the_default_relaxation_is_read_from_the_table(hivp, monkeypatch):
    relaxed = find_interactions(hivp, kinds=("hbond",))
    strict = find_interactions(hivp, kinds=("hbond",), relax=False)
    assert len(strict) < len(relaxed)
    monkeypatch.setitem(criteria(), "relaxation", {"distance": 0.0, "angle": 0.0})
    assert find_interactions(hivp, kinds=("hbond",)) == strict
    assert KINDS["hbond"].criteria_text().endswith("relaxed by 0 Å and 0°).")


def test_the_kind_table_is_the_one_list_of_kinds(hivp, complexes):
    from misigen.core.structure.loader import discover, load_structure
    from misigen.core.tasks.shared.hbond import INTERACTION
    assert INTERACTION_KINDS == tuple(KINDS) == INTERACTION[0].fields["kind"][0].choices    # what a spec may ask
    ptp1b = load_structure(discover([complexes / "paired" / "ptp1b"])[0])
    every = find_interactions(ptp1b, kinds=INTERACTION_KINDS)
    for name, kind in KINDS.items():
        assert name == "hbond" or f"{kind.limit():g} Å" in kind.criteria_text()
        alone = find_interactions(ptp1b, kinds=(name,))
        assert alone == [it for it in every if it.kind == name]
        assert all(it.rule and it.limit is not None for it in alone)
        if name != "hbond":
            assert all(it.rule == name and it.limit == kind.limit() and it.distance <= it.limit for it in alone)
    assert {"hbond", "salt_bridge"} <= {it.kind for it in every}
    with pytest.raises(ValueError, match="unknown interaction kind"):
        find_interactions(hivp, kinds=("nope",))
