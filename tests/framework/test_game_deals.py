"""Every deal in data/durak_deals.csv and data/spite_deals.csv verifies as recorded."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from dealsearch.cli import main

DATA = Path(__file__).resolve().parents[2] / "data"
MEASURES = {"durak": ("bouts", "cards"), "spite": ("turns", "cards")}


def _rows() -> list:
    cases = []
    for game in MEASURES:
        with (DATA / f"{game}_deals.csv").open(encoding="utf-8") as file:
            lines = (line for line in file if not line.startswith("#"))
            for number, row in enumerate(csv.DictReader(lines), 1):
                cases.append(pytest.param(game, row, id=f"{game}-{number}"))
    return cases


@pytest.mark.parametrize(("game", "row"), _rows())
def test_a_published_row_verifies(capsys, game, row):
    assert main(["verify", "--game", game, *row["flags"].split(), "--json", row["deal"]]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["deal"] == row["deal"] and result["outcome"] == row["outcome"]
    for measure in MEASURES[game]:
        assert result[measure] == int(row[measure])
        if row["outcome"] == "cycle":
            assert result["cycle"][f"period_{measure}"] == int(row[f"period_{measure}"])
