"""The core :class:`~dealsearch.game.Game` is small and every capability is optional: a game
with only the core searches, logs and keeps the contract; what it lacks the framework supplies
(a batch player on its kernel, cycle ids, histogram bins, ...), and unknown options are refused
once, by the framework."""

from __future__ import annotations

import sys
from typing import Any, ClassVar

import numpy as np
import pytest

from dealsearch import game as framework
from dealsearch.cli import main
from dealsearch.examples.war import War, WarOptions
from dealsearch.game import (
    Game,
    GameError,
    GameResult,
    Layout,
    Row,
    get_game,
    make_options,
    register,
)
from dealsearch.testing import (
    CHECKS,
    NotApplicable,
    Subject,
    climb_resumes_exactly,
    compiled_equals_reference,
    traces_the_game,
)

CAPABILITIES = (framework.BatchPlayer, framework.BatchDetails, framework.Reference,
                framework.Trace,
                framework.CycleCatalogue, framework.CycleIds, framework.CycleFamilies,
                framework.DealOptions, framework.Histograms, framework.Throughput,
                framework.DealerVersion, framework.FastSearch,
                framework.PlaysBackwards, framework.SpeedTable, framework.Yardstick,
                framework.PublishedRecords, framework.PublishedDeals)


class CoreWar(Game[WarOptions]):
    """War with the core members only: no capability at all."""

    name: ClassVar[str] = "corewar"
    title: ClassVar[str] = "Core War"
    measures = War.measures
    outcomes = War.outcomes
    option_specs = War.option_specs
    _war = War()

    def options(self, **values: Any) -> WarOptions:
        return self._war.options(**values)

    def layout(self, options: WarOptions) -> Layout:
        return self._war.layout(options)

    def parse(self, text: str, options: WarOptions) -> Row:
        return self._war.parse(text, options)

    def format(self, row: Row, options: WarOptions) -> str:
        return self._war.format(row, options)

    def kernel(self, options: WarOptions) -> Any:
        return self._war.kernel(options)

    def verify(self, text: str, options: WarOptions) -> tuple[str, GameResult]:
        return self._war.verify(text, options)


CORE = register(CoreWar())


def core_members(cls: type) -> set[str]:
    """The public names ``cls`` itself defines or declares."""
    return {name for name in {*vars(cls), *vars(cls).get("__annotations__", {})}
            if not name.startswith("_")}


def test_the_core_game_has_at_most_14_members():
    assert len(core_members(Game)) <= 14, sorted(core_members(Game))


def test_a_core_only_game_has_no_capability():
    assert not [cap.__name__ for cap in CAPABILITIES if isinstance(CORE, cap)]


@pytest.mark.parametrize("check", [
    pytest.param(check, marks=pytest.mark.slow) if check is climb_resumes_exactly else check
    for check in CHECKS], ids=lambda check: check.__name__)
def test_a_core_only_game_keeps_the_contract(check):
    check(Subject(CORE, ({}, {"values": 3, "max_rounds": 50}), (({}, "02313100/22311203"),),
                  rows=60))


def test_a_check_that_does_not_apply_says_so(monkeypatch):
    # A game with a reference but no trace: the reference is compared, the trace check skips.
    class ReferenceOnly(CoreWar):
        def play_reference(self, row: Row, options: WarOptions) -> GameResult:
            return self._war.play_reference(row, options)

    subject = Subject(ReferenceOnly(), ({},), rows=20)
    assert isinstance(subject.game, framework.Reference)
    assert not isinstance(subject.game, framework.Trace)
    compiled_equals_reference(subject)
    with pytest.raises(pytest.skip.Exception, match="has no trace"):
        traces_the_game(subject)
    monkeypatch.delitem(sys.modules, "pytest")  # as a script outside pytest runs it
    with pytest.raises(NotApplicable, match="has no reference"):
        compiled_equals_reference(Subject(CORE, ({},), rows=20))


def test_a_core_only_game_searches_and_verifies(capsys, tmp_path):
    db = str(tmp_path / "log.sqlite")
    assert main(["search", "random", "--game", "corewar", "--values", "3", "--deals", "400",
                 "--workers", "1", "--seed", "3", "--db", db, "--quiet"]) == 0
    assert "400" in capsys.readouterr().out
    assert main(["verify", "--game", "corewar", "02313100/22311203"]) == 0
    assert "cycle" in capsys.readouterr().out
    assert main(["verify", "--game", "corewar", "--trace", "02313100/22311203"]) == 2
    assert capsys.readouterr().err.splitlines() == [   # as the errors page quotes it
        "dealsearch: error: --trace: corewar has no trace (the game offers no turn-by-turn "
        "account)"]


def test_the_framework_supplies_what_a_core_game_lacks():
    options = make_options(CORE, {"values": 2})
    rows = np.array([[0, 1, 0, 1, 1, 0, 1, 0], [1, 1, 0, 0, 0, 1, 1, 0]], dtype=np.uint8)
    batch = framework.play_batch(CORE, rows, options)   # on the kernel, row by row
    for i, row in enumerate(rows):
        played = War().play_reference(row, options)
        assert CORE.outcomes[batch.outcome[i]] == played.outcome
        assert batch.measures[i].tolist() == list(played.measures.values())
        assert framework.batch_result(CORE, batch, i, row, options) == played
    assert framework.histogram(CORE, "rounds") == (1, 4096)
    assert framework.throughput_measure(CORE) == "rounds"
    assert framework.random_dealer(CORE) == ""
    assert framework.deal_options(CORE) == ()
    assert framework.finished(CORE) == ("win",)
    assert len(framework.cycle_id(CORE, "a key", options)) == 12


def test_a_game_that_names_its_cycles_keeps_its_ids():
    beggar = get_game("beggar")
    options = make_options(beggar, {})
    from dealsearch.games.beggar import catalogue

    assert isinstance(beggar, framework.CycleIds)
    key = "some key"
    assert framework.cycle_id(beggar, key, options) == catalogue.key_id(key, options.game_rules)


@pytest.mark.parametrize("name", ["beggar", "durak", "spite", "war", "corewar"])
def test_unknown_options_are_refused_once_naming_the_games_options(name):
    game = get_game(name) if name != "war" else War()
    with pytest.raises(GameError) as caught:
        make_options(game, {"no_such_option": 1})
    offered = ", ".join(spec.name for spec in game.option_specs)
    assert str(caught.value) == (f"{game.name} has no option 'no_such_option': its options "
                                 f"are {offered}")


def test_options_take_dashes_and_leave_none_to_the_default():
    durak = get_game("durak")
    assert make_options(durak, {"first-limit": 5, "players": None}) == \
        durak.options(first_limit=5)
