"""What every game writes is small and every feature is optional: a game with only
:class:`~dealsearch.game.Game`'s abstract members searches, logs and keeps the contract; what it
lacks the framework's defaults supply (a batch player on its kernel, histogram bins, ...),
unknown options are refused once, by the framework, and a member the plug-in API does not know
(a misspelt one, a public helper) is refused at ``register`` and by the contract."""

from __future__ import annotations

import sys
from typing import Any, ClassVar

import numpy as np
import pytest

from dealsearch import game as framework
from dealsearch import plugin
from dealsearch.cli import main
from dealsearch.examples.war import War, WarOptions
from dealsearch.game import (
    GAMES,
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
    speaks_the_plugin_api,
    traces_the_game,
)


class CoreWar(Game[WarOptions]):
    """War with only what every game writes: no feature at all."""

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


def test_a_game_writes_five_attributes_and_six_methods():
    assert Game.__abstractmethods__ == {"options", "layout", "parse", "format", "kernel",
                                        "verify"}
    assert {*Game.__annotations__} - {*vars(Game)} == {"name", "title", "measures",
                                                       "outcomes", "option_specs"}


def test_plugin_exports_every_feature_the_framework_checks():
    assert framework.FEATURES
    assert all(getattr(plugin, feature.__name__) is feature for feature in framework.FEATURES)
    assert plugin.DeviceSearch in framework.FEATURES


def test_a_core_only_game_has_no_feature():
    assert not [feature.__name__ for feature in framework.FEATURES if isinstance(CORE, feature)]


@pytest.mark.parametrize("check", [
    pytest.param(check, marks=pytest.mark.slow) if check is climb_resumes_exactly else check
    for check in CHECKS], ids=lambda check: check.__name__)
def test_a_core_only_game_keeps_the_contract(check):
    check(Subject(CORE, ({}, {"values": 3, "max_rounds": 50}), (({}, "02313100/22311203"),),
                  rows=60))


def test_a_check_that_does_not_apply_says_so(monkeypatch):
    with pytest.raises(pytest.skip.Exception, match="has no reference, so no trace"):
        traces_the_game(Subject(CORE, ({},), rows=20))
    monkeypatch.delitem(sys.modules, "pytest")  # as a script outside pytest runs it
    with pytest.raises(NotApplicable, match="has no reference"):
        compiled_equals_reference(Subject(CORE, ({},), rows=20))


class Misspelt(CoreWar):
    """A game whose optional member is misspelt: without the check, verify would silently
    use the default."""

    name = "misspelt"

    def looks_like_dael(self, text: str) -> bool:
        return True


class PublicHelper(CoreWar):
    name = "publichelper"

    def hands(self, row: Row) -> tuple[Row, Row]:
        return row[:len(row) // 2], row[len(row) // 2:]


class Untitled(Game[WarOptions]):
    """Core War without its title (a class attribute, which no abstract method enforces)."""

    name = "untitled"
    measures, outcomes, option_specs = War.measures, War.outcomes, War.option_specs
    _war = War()
    options, layout, parse = CoreWar.options, CoreWar.layout, CoreWar.parse
    format, kernel, verify = CoreWar.format, CoreWar.kernel, CoreWar.verify


class HalfAFeature(CoreWar):
    """A reference written without its trace and without listing the feature."""

    name = "halfafeature"

    def play_reference(self, row: Row, options: WarOptions) -> GameResult:
        return War().play_reference(row, options)


@pytest.mark.parametrize(("game", "said"), [
    (Misspelt(), "'looks_like_dael' is no member of Game or of a feature (did you mean "
                 "'looks_like_deal'? a helper of the game's own is private: "
                 "'_looks_like_dael')"),
    (PublicHelper(), "'hands' is no member of Game or of a feature"),
    (HalfAFeature(), "play_reference of Reference without trace: list Reference among the "
                     "game's bases"),
    (Untitled(), "it has no title (a class attribute every game writes)"),
])
def test_a_member_the_api_does_not_know_is_refused(game, said):
    with pytest.raises(TypeError, match="^" + type(game).__name__ + ": .*") as caught:
        register(game)
    assert said in str(caught.value) and "\n" not in str(caught.value)
    assert game.name not in framework.game_names()
    with pytest.raises(AssertionError, match=said.split(" (")[0].replace("'", ".")):
        speaks_the_plugin_api(Subject(game))


def test_a_declared_feature_names_a_missing_member():
    class NoTrace(CoreWar, plugin.Reference):
        def play_reference(self, row: Row, options: WarOptions) -> GameResult:
            return War().play_reference(row, options)

    with pytest.raises(TypeError, match="abstract method trace"):
        NoTrace()


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
    batch = CORE.play_batch(rows, options)   # on the kernel, row by row
    for i, row in enumerate(rows):
        played = War().play_reference(row, options)
        assert CORE.outcomes[batch.outcome[i]] == played.outcome
        assert batch.measures[i].tolist() == list(played.measures.values())
        assert CORE.batch_result(batch, i, row, options) == played
    assert framework.histogram(CORE, "rounds") == (1, 4096)
    assert framework.throughput_measure(CORE) == "rounds"
    assert CORE.random_dealer == "" and CORE.deal_options == () and CORE.commands() == ()
    assert framework.finished(CORE) == ("win",)


def test_a_cycle_catalogue_hashes_its_ids_unless_the_game_names_them():
    class Catalogued(CoreWar, plugin.CycleCatalogue):
        def cycle_key(self, row: Row, options: WarOptions) -> str:
            return "a key"

    options = make_options(CORE, {})
    assert len(Catalogued().cycle_id("a key", options)) == 12
    assert Catalogued().cycle_family("a key", options) is None
    beggar = get_game("beggar")
    from dealsearch.games.beggar import catalogue

    assert framework.cycle_id(beggar, "some key", make_options(beggar, {})) == \
        catalogue.key_id("some key", make_options(beggar, {}).game_rules)


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


def test_bench_prints_a_games_speed_table(capsys):
    class Timed(War):
        name = "timed-war"

        def speed_table(self, deals: int, seed: int) -> list[dict[str, Any]]:
            return [{"setting": "standard", "deals_per_s": 1234.5, "ratio": 2.5}]

    GAMES["timed-war"] = Timed()
    try:
        status = main(["bench", "--game", "timed-war", "--deals", "10"])
        out = capsys.readouterr().out
        assert status == 0
        assert out.split("\n")[0].split() == ["setting", "deals/s", "ratio"]
        assert out.split("\n")[1].split() == ["standard", "1,234", "2.5\N{MULTIPLICATION SIGN}"]
    finally:
        del GAMES["timed-war"]


@pytest.mark.parametrize(("mismatches", "status"), [(0, 0), (3, 1)])
def test_bench_of_a_game_fails_when_engine_and_reference_disagree(capsys, mismatches, status):
    class Checked(War):
        name = "checked-war"

        def speed_table(self, deals: int, seed: int) -> list[dict[str, Any]]:
            return [{"setting": "standard", "deals_per_s": 10.0, "mismatches": mismatches}]

    GAMES["checked-war"] = Checked()
    try:
        assert main(["bench", "--game", "checked-war", "--deals", "10"]) == status
        assert main(["bench", "--game", "checked-war", "--json"]) == status
    finally:
        del GAMES["checked-war"]
