"""Campaign files ship with the package and are found by name (``--config overnight``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dealsearch.campaigns import campaign_names, config_path
from dealsearch.cli import main

ROOT = Path(__file__).resolve().parents[1]


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


def test_the_overnight_campaign_is_a_climb_with_the_measured_best_options() -> None:
    from dealsearch.cli_search import _load_config
    from dealsearch.search import SearchSpec

    spec = SearchSpec.from_json(_load_config("overnight"))
    assert (spec.strategy, spec.restart, spec.kick, spec.stall) == ("climb", "random", 1, 5000)
