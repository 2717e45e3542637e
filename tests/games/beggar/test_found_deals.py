"""data/found_deals.csv: every deal our own searches found worth keeping replays as recorded:
the longest deals of each setting (from `search climb`) and every new cycle family (from
`factory`)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from dealsearch.cli import main
from dealsearch.games.beggar.catalogue import cycle_id
from dealsearch.games.beggar.families import ZANOTTO, family_of, known_family
from dealsearch.games.beggar.notation import parse_deal
from dealsearch.games.beggar.options import get_rules
from dealsearch.games.beggar.reference import cycle_states, play_reference

from deals import CASELLA

FOUND = Path(__file__).resolve().parents[3] / "data" / "found_deals.csv"
COLUMNS = ["deal", "rules", "players", "outcome", "cards", "tricks", "method"]


def rows() -> list[dict[str, str]]:
    with FOUND.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == COLUMNS
        return list(reader)


def test_the_file_has_the_longest_deal_of_each_setting_and_the_cycles():
    assert {int(row["players"]) for row in rows() if row["outcome"] == "win"} == {2, 3, 4}
    assert {row["rules"] for row in rows() if row["outcome"] == "cycle"} == {
        "standard", "italian"}


@pytest.mark.parametrize("row", rows(), ids=lambda row: f"{row['players']}p-{row['cards']}")
def test_each_found_deal_verifies(capsys, row):
    assert main(["verify", "--json", "--rules", row["rules"], row["deal"]]) == 0
    played = json.loads(capsys.readouterr().out)
    assert len(row["deal"].split("/")) == int(row["players"])
    assert (played["outcome"], played["cards"], played["tricks"]) == (
        row["outcome"], int(row["cards"]), int(row["tricks"]))
    command = "dealsearch factory " if row["outcome"] == "cycle" else "dealsearch search climb "
    assert row["method"].startswith(command)


def test_each_cycle_row_is_a_family_of_its_own_not_casellas():
    families = [cycle_id(parse_deal(row["deal"], get_rules(row["rules"])), get_rules(row["rules"]))
                for row in rows() if row["outcome"] == "cycle"]
    assert cycle_id(parse_deal(CASELLA)) not in families
    assert len(set(families)) == len(families)


def test_the_balanced_variant_is_casellas_family_and_the_other_cycles_are_new_families():
    """A cycle that is Casella's with one block moved is Casella's family; the factory's own
    rows are families of their own, neither Casella's nor Zanotto's."""
    for row in rows():
        if row["outcome"] != "cycle":
            continue
        family = family_of(row["deal"], get_rules(row["rules"]))
        expected = "Casella" if "variant" in row["method"] else None
        assert known_family(family) == expected, row["deal"]


def test_the_italian_balanced_deal_never_ends_by_the_reference_engine_and_is_not_zanottos():
    """The 20/20 Italian row: a starting deal (hands dealt 20/20, hand 1 leading) whose game
    the reference engine too plays into a cycle sharing no state with Zanotto's."""
    italian = get_rules("italian")
    (row,) = [row for row in rows() if row["rules"] == "italian"
              and parse_deal(row["deal"], italian).hand_sizes == (20, 20)]
    deal = parse_deal(row["deal"], italian)
    assert play_reference(deal, italian).outcome == "cycle"
    ours = {hands for hands, _ in cycle_states(deal, italian)}
    zanotto = parse_deal(ZANOTTO, italian)
    theirs = {hands for hands, _ in cycle_states(zanotto, italian)}
    mirrored = {(b, a) for a, b in theirs}
    assert not ours & (theirs | mirrored)
