"""data/found_long_deals.csv: every long deal our own searches found replays as recorded."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from dealsearch.cli import main

FOUND = Path(__file__).resolve().parents[1] / "data" / "found_long_deals.csv"
COLUMNS = ["deal", "rules", "players", "outcome", "cards", "tricks", "method"]


def rows() -> list[dict[str, str]]:
    with FOUND.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == COLUMNS
        return list(reader)


def test_the_file_has_the_longest_deal_of_each_setting():
    players = {int(row["players"]) for row in rows()}
    assert {2, 3, 4} <= players


@pytest.mark.parametrize("row", rows(), ids=lambda row: f"{row['players']}p-{row['cards']}")
def test_each_found_deal_verifies(capsys, row):
    assert main(["verify", "--json", "--rules", row["rules"], row["deal"]]) == 0
    played = json.loads(capsys.readouterr().out)
    assert len(row["deal"].split("/")) == int(row["players"])
    assert (played["outcome"], played["cards"], played["tricks"]) == (
        row["outcome"], int(row["cards"]), int(row["tricks"]))
    assert row["method"].startswith("dealsearch search climb ")
