"""BMN as a plug-in: the same answers through the game layer as through the BMN modules, and
the whole search running on the generic compiled loops when a game has no fast paths."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from dealsearch.cli import main
from dealsearch.game import GAMES, GameError, get_game
from dealsearch.games.beggar.catalogue import cycle_id
from dealsearch.games.beggar.engine import play
from dealsearch.games.beggar.game import BeggarGame
from dealsearch.games.beggar.notation import parse_deal
from dealsearch.log import RecordLog

from deals import CASELLA, RECORD

BEGGAR = get_game("beggar")


class GenericBeggar(BeggarGame):
    """BMN without its fast paths: searches run on the generic sampler and climber."""

    name = "generic-bmn"
    title = "BMN on the generic loops"

    def random_player(self, *args: Any, **kwargs: Any) -> None:
        return None

    def climber(self, *args: Any, **kwargs: Any) -> None:
        return None


@pytest.fixture
def generic_game():
    GAMES["generic-bmn"] = GenericBeggar()
    yield GAMES["generic-bmn"]
    del GAMES["generic-bmn"]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("extra", [[], ["--json"], ["--trace"], ["--max-tricks", "30"],
                                   ["--rules", "italian", "--deck", "any"]])
def test_verify_with_game_beggar_equals_verify(capsys, extra):
    deals = [RECORD, CASELLA] if "italian" not in extra else ["0001/1203"]
    plain = cli(capsys, "verify", *extra, *deals)
    assert cli(capsys, "verify", "--game", "beggar", *extra, *deals) == plain
    assert plain[0] == 0 and plain[1]


def test_the_game_layer_gives_the_bmn_results():
    options = BEGGAR.options()
    text, result = BEGGAR.verify(CASELLA, options)
    bmn = play(CASELLA)
    assert text == CASELLA and result.to_json() == bmn.to_json()
    row = BEGGAR.parse(CASELLA, options)
    assert BEGGAR.cycle_id(BEGGAR.cycle_key(row, options), options) == cycle_id(
        parse_deal(CASELLA))
    assert BEGGAR.describe(result).startswith("never ends: first repeat at 474 cards")


def test_bad_options_and_deals_are_one_line_game_errors():
    with pytest.raises(GameError, match="players must be 2 to 4"):
        BEGGAR.options(players=5)
    with pytest.raises(GameError, match="hand sizes 30/30"):
        BEGGAR.options(hand_sizes="30/30")
    with pytest.raises(GameError, match="the deal has hands of 27/25"):
        BEGGAR.parse(RECORD[:1] + RECORD[27] + RECORD[1:27] + RECORD[28:], BEGGAR.options())
    with pytest.raises(GameError, match="unknown game"):
        get_game("snap")


def test_a_search_runs_on_the_generic_loops_and_logs_replayable_finds(generic_game, capsys,
                                                                      tmp_path):
    db = str(tmp_path / "log.sqlite")
    for strategy in (["random", "--deals", "100000"], ["climb", "--deals", "20000"]):
        status, out, _ = cli(capsys, "search", *strategy, "--game", "generic-bmn", "--seed",
                             "1", "--workers", "1", "--db", db, "--json", "--quiet")
        summary = json.loads(out.splitlines()[-1])
        assert status == 0 and summary["deals"] == sum(summary["outcomes"].values())
    status, out, _ = cli(capsys, "records", "--game", "generic-bmn", "--db", db, "--verify")
    assert status == 0 and "0 mismatches" in out
    runs = RecordLog(db).runs()
    assert {run["game"] for run in runs} == {"generic-bmn"}


def test_exhaustive_through_the_generic_game_counts_what_beggar_counts(generic_game, capsys,
                                                                        tmp_path):
    summaries = []
    for game in ("beggar", "generic-bmn"):
        _status, out, _ = cli(capsys, "search", "exhaustive", "--game", game, "--deck",
                             "------JJQQK", "--workers", "1", "--db",
                             str(tmp_path / f"{game}.sqlite"), "--json", "--quiet")
        summaries.append(json.loads(out.splitlines()[-1]))
    for key in ("deals", "cards", "outcomes", "best"):
        assert summaries[0][key] == summaries[1][key]


def test_reverse_refuses_other_games_in_one_line(generic_game, capsys):
    status, _, err = cli(capsys, "reverse", "--game", "generic-bmn", CASELLA)
    assert status == 2 and err.count("\n") == 1 and "generic-bmn" in err


def test_the_option_group_is_the_chosen_games(generic_game, capsys):
    with pytest.raises(SystemExit):
        main(["search", "climb", "--help"])
    assert "--players" in capsys.readouterr().out
    status, _, err = cli(capsys, "search", "random", "--game", "beggar", "--no-such", "1")
    assert status == 2 and "--no-such" in err


def test_campaign_files_name_the_game(tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text('game = "beggar"\nstrategy = "random"\ndeals = 1000\nplayers = 3\n')
    status, _out, _ = cli(capsys, "search", "--config", str(config), "--workers", "1", "--db",
                         str(tmp_path / "log.sqlite"), "--json", "--quiet")
    assert status == 0
    run = RecordLog(tmp_path / "log.sqlite").runs()[0]
    assert run["game_options"]["players"] == 3 and run["options"]["game"] == "beggar"


def test_a_start_deal_is_checked_by_the_game(capsys, tmp_path):
    start = np.array(BEGGAR.parse(RECORD, BEGGAR.options()))
    status, _out, _ = cli(capsys, "search", "climb", "--start", RECORD, "--deals", "100",
                         "--workers", "1", "--db", str(tmp_path / "x.sqlite"), "--json",
                         "--quiet")
    assert status == 0 and len(start) == 52
    status, _, err = cli(capsys, "search", "climb", "--start", RECORD, "--players", "3",
                         "--deals", "100", "--db", str(tmp_path / "y.sqlite"))
    assert status == 2 and "--start" in err


def test_every_cycle_a_bmn_search_reports_repeats_after_its_period(capsys, tmp_path):
    """The states at entry and at entry + period tricks are the same state (reference)."""
    from dealsearch.games.beggar.reference import trick_states

    db = str(tmp_path / "log.sqlite")
    cli(capsys, "search", "exhaustive", "--deck", "------JJQQK", "--workers", "1", "--db", db,
        "--json", "--quiet")
    options = BEGGAR.options(deck="------JJQQK")
    cycles = [f for f in RecordLog(db).finds() if f["outcome"] == "cycle"]
    assert len(cycles) == 42
    for find in cycles:
        deal = parse_deal(find["deal"], options.game_rules, "exact")
        states = trick_states(deal, options.game_rules)
        entry, period = find["entry"]["tricks"], find["period"]["tricks"]
        assert states[entry] == states[entry + period]
        assert len(set(states[entry:entry + period])) == period
