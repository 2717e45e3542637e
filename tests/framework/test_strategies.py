"""The strategy registry: the framework's strategies and a game's in one registry that the
rest of the framework asks, the plug-in page's example strategy run by the run service, and
games that import nothing of the framework but the plug-in API."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dealsearch.log import RecordLog
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec
from dealsearch.strategies import (
    STRATEGIES,
    counts_games,
    find_strategy,
    get_strategy,
    is_search,
    random_deals,
    strategy_names,
)

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "dealsearch"


def test_one_registry_holds_the_frameworks_strategies_and_a_games():
    assert strategy_names("search") == ["random", "climb", "exhaustive"]
    assert "factory" in strategy_names() and "factory" not in strategy_names("search")
    factory = get_strategy("factory")
    assert factory.command == "factory" and not factory.counts_games
    assert is_search("climb") and not is_search("factory") and not is_search("reverse")
    assert random_deals("random") and not random_deals("climb")
    assert counts_games("exhaustive") and not counts_games("lost")
    reverse = get_strategy("reverse")   # BMN's walk back to longer deals
    assert reverse.command == "reverse" and reverse.keeps_every_find
    assert not any(get_strategy(name).keeps_every_find for name in strategy_names("search"))
    assert find_strategy("lost") is None


def test_an_unknown_strategy_is_one_line_naming_the_choices():
    with pytest.raises(ValueError, match="unknown strategy 'sideways': choose from random, "
                                         "climb, exhaustive"):
        SearchSpec("sideways", game="beggar")


def test_a_search_takes_no_settings_of_another_strategy():
    with pytest.raises(ValueError, match="a random search takes no settings, not width"):
        SearchSpec("random", game="beggar", settings={"width": 4})


def test_a_strategys_options_live_with_it_and_come_back_from_the_log():
    spec = SearchSpec.from_json({"game": "beggar", "strategy": "climb", "stall": 700,
                                 "restart": "pool"})
    assert spec.settings == {"start": None, "escape": "anneal", "stall": 700,
                             "temperature": 40.0, "reverse_every": None, "restart": "pool",
                             "kick": 1}
    assert "stall" not in spec.to_json() and SearchSpec.from_json(spec.to_json()) == spec
    assert "settings" not in SearchSpec("random", game="beggar").to_json()   # no options
    exhaustive = SearchSpec.from_json({"game": "beggar", "strategy": "exhaustive", "ranks": (3, 9),
                                       "game_options": {"deck": "----JJQQK"}})
    assert exhaustive.settings == {"ranks": [3, 9], "verify_blocks": False}
    for name, owner in (("ranks", "exhaustive"), ("stall", "climb")):
        with pytest.raises(ValueError, match=f"^--{name} is for {owner} searches$"):
            SearchSpec.from_json({"game": "beggar", "strategy": "random", name: 5})


def plugin_page_strategy() -> dict:
    """The example strategy of docs/plugins.md, run as a program would run it."""
    page = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    section = page[page.index("## Adding a strategy"):]
    code = section[section.index("```python") + len("```python"):]
    namespace: dict = {}
    exec(code[:code.index("```")], namespace)   # registers the strategy
    return namespace


@pytest.fixture()
def shuffles():
    yield plugin_page_strategy()["Shuffles"]
    del STRATEGIES["shuffles"]


def finds(db: Path) -> list[tuple[str, str]]:
    with RecordLog(db, readonly=True) as log:
        return sorted((find["deal"], find["outcome"]) for find in log.finds())


def test_the_plugin_pages_strategy_runs_on_the_run_service_the_same_on_any_workers(
        tmp_path, shuffles):
    summaries = []
    for workers in (1, 2):
        db = tmp_path / f"{workers}.sqlite"
        spec = SearchSpec("shuffles", game="beggar", seed=3, workers=workers, deals=4_500,
                          game_options={"deck": "------JJQQKKAA"})
        with RecordLog(db) as log:
            summaries.append(Runner(spec, log, progress=False).run())
            log.refuse_damage()   # its outcomes add up to its deals: the log's check passes
            run = log.run(summaries[-1].run_id)
            assert run["strategy"] == "shuffles" and run["checkpoint"]["strategy"] == {
                "done": [0, 1, 2, 3, 4]}
    assert [s.status for s in summaries] == ["done", "done"]
    assert summaries[0].deals == summaries[1].deals == 4_500
    assert sum(summaries[0].outcomes.values()) == 4_500
    assert summaries[0].outcomes == summaries[1].outcomes
    assert summaries[0].best == summaries[1].best
    # every cycle (which new bests are logged on the way depends on the order tasks end in)
    cycles = [[find for find in finds(tmp_path / f"{w}.sqlite") if find[1] == "cycle"]
              for w in (1, 2)]
    assert cycles[0] == cycles[1] and cycles[0]


def framework_imports(path: Path) -> list[str]:
    """The framework modules a game's module imports (relative imports resolved)."""
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - node.level + 1]) if node.level else []
            names.append(".".join([*base, *(node.module or "").split(".")]).strip("."))
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return [name for name in names if name.startswith("dealsearch")
            and not name.startswith("dealsearch.games")]


@pytest.mark.parametrize("path", sorted((PACKAGE / "games").rglob("*.py")),
                         ids=lambda path: str(path.relative_to(PACKAGE)))
def test_a_game_imports_only_the_plugin_api(path):
    assert set(framework_imports(path)) <= {"dealsearch.plugin", "dealsearch.plugin.commands"}
