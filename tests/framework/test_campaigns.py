"""Campaign files ship with the package and are found by name (``--config overnight``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from dealsearch.campaigns import campaign_names, config_path
from dealsearch.cli import main
from dealsearch.game import get_game

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_campaigns_are_package_data_and_the_checkout_folder_links_to_them() -> None:
    names = campaign_names()
    assert {"overnight", "cycles-small-decks", "random-3-players"} <= set(names)
    for name in names:
        path = config_path(name)
        assert path.is_file() and path.parent.name == "campaigns"
        assert (ROOT / "search" / f"{name}.toml").read_bytes() == path.read_bytes()


def test_a_path_stays_a_path() -> None:
    assert config_path("search/overnight.toml") == Path("search/overnight.toml")
    assert config_path("overnight.toml") == Path("overnight.toml")


def test_an_unknown_name_lists_the_campaigns() -> None:
    with pytest.raises(ValueError, match=r"no campaign named 'nightly': choose from .*overnight"):
        config_path("nightly")


def test_search_runs_a_shipped_campaign_by_name(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)          # no search/ folder here: only the package has it
    assert main(["search", "--config", "cycles-small-decks", "--deck", "---JQK",
                 "--workers", "1", "--json", "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["strategy"] == "exhaustive" and summary["deals"] == 120


def test_search_with_an_unknown_campaign_gives_one_line_and_exit_2(capsys, tmp_path,
                                                                   monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["search", "--config", "nightly"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "no campaign named 'nightly'" in err


@pytest.mark.parametrize("name", ["durak-3-players-cycles", "durak-perevodnoy-2-players",
                                  "durak-pairs", "spite-cycles"])
def test_a_campaign_of_another_game_runs_by_name_alone(capsys, tmp_path, name) -> None:
    """The campaign's ``game`` picks the option group: no --game needed on the command line."""
    db = tmp_path / "log.sqlite"
    assert main(["search", "--config", name, "--deals", "3000", "--workers", "1", "--json",
                 "--quiet", "--db", str(db)]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    game = "spite" if name.startswith("spite") else "durak"
    assert summary["deals"] == 3000
    assert sqlite3.connect(db).execute("SELECT game FROM runs").fetchall() == [(game,)]


def test_a_campaign_of_an_unknown_or_other_game_is_one_line(capsys, tmp_path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "nosuch"\nstrategy = "random"\n', encoding="utf-8")
    for argv, line in ((["--config", str(bad)], "unknown game 'nosuch'"),
                       (["--config", "spite-cycles", "--game", "durak"],
                        "spite-cycles is a campaign of spite, not of durak")):
        assert main(["search", *argv, "--deals", "10", "--db", str(tmp_path / "x.sqlite")]) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and line in err, err


def test_the_overnight_campaign_is_the_winner_of_the_fair_screen() -> None:
    """Random search, 2-player standard deals, every core, 8 hours (docs: the fair screen)."""
    from dealsearch.cli.search import _load_config
    from dealsearch.search.spec import SearchSpec

    spec = SearchSpec.from_json({"game": "beggar", **_load_config("overnight")})
    assert (spec.strategy, spec.time, spec.workers) == ("random", 8 * 3600, 0)
    assert spec.options == get_game("beggar").options()
