"""The contract every registered game keeps (a game registered in dealsearch.games runs these).

For each game and each of its ``test_option_sets``: the compiled engine agrees with the
pure-Python reference on hundreds of random rows, parse and format are inverse (canonical
text), the same row and options give the same result, every cycle's counts add up (first
repeat = entry + one period) and its catalogue key exists, rows keep the deck's cards, and the
C-level Kernel agrees with play_batch.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from dealsearch.game import Game, GameResult, get_game, iter_games
from dealsearch.search.base import crossover, random_row

ROWS = 200  # random rows per option set

CASES = [pytest.param(game.name, i, id=f"{game.name}-{i}")
         for game in iter_games() for i in range(len(game.test_option_sets))]


def _setup(name: str, index: int) -> tuple[Game, Any, np.ndarray]:
    game = get_game(name)
    options = game.options(**game.test_option_sets[index])
    layout = game.layout(options)
    rng = np.random.default_rng([index, len(name)])
    rows = np.array([random_row(layout, rng) for _ in range(ROWS)], dtype=np.uint8)
    return game, options, rows


def _plain(result: GameResult) -> tuple[Any, ...]:
    return (result.outcome, dict(result.measures), dict(result.entry), dict(result.period))


def test_every_builtin_game_that_is_built_is_registered():
    assert "beggar" in [game.name for game in iter_games()]


@pytest.mark.parametrize(("name", "index"), CASES)
def test_compiled_equals_reference_on_random_rows(name, index):
    game, options, rows = _setup(name, index)
    batch = game.play_batch(rows, options)
    assert len(batch) == ROWS
    for i, row in enumerate(rows):
        compiled = game.result(batch, i, row, options)
        reference = game.play_reference(row, options)
        assert compiled.to_json() == reference.to_json(), game.format(row, options)
        assert game.outcomes[batch.outcome[i]] == compiled.outcome
        assert tuple(batch.measures[i]) == tuple(compiled.measures.values())


@pytest.mark.parametrize(("name", "index"), CASES)
def test_parse_and_format_are_inverse_and_keep_the_deck(name, index):
    game, options, rows = _setup(name, index)
    deck = sorted(game.layout(options).deck.tolist())
    for row in rows[:50]:
        text = game.format(row, options)
        parsed = game.parse(text, options)
        assert (parsed == game.canonical(row, options)).all()
        assert game.format(parsed, options) == text
        assert sorted(parsed.tolist()) == deck


@pytest.mark.parametrize(("name", "index"), CASES)
def test_the_same_deal_and_options_give_the_same_result(name, index):
    game, options, rows = _setup(name, index)
    first = game.play_batch(rows[:50], options)
    again = game.play_batch(rows[:50], options)
    for field in ("outcome", "measures", "entry", "period"):
        assert (getattr(first, field) == getattr(again, field)).all()
    for i, row in enumerate(rows[:20]):
        text, verified = game.verify(game.format(row, options), options)
        assert text == game.format(row, options)
        assert _plain(verified) == _plain(game.result(first, i, row, options))


@pytest.mark.parametrize(("name", "index"), CASES)
def test_every_cycle_adds_up_and_has_a_catalogue_key(name, index):
    game, options, rows = _setup(name, index)
    batch = game.play_batch(rows, options)
    for i in np.flatnonzero(batch.outcome == game.outcomes.index("cycle")):
        result = game.result(batch, int(i), rows[i], options)
        assert any(result.period.values())
        for measure in game.measures:
            assert result.entry[measure] + result.period[measure] == result.measures[measure]
        try:
            key = game.cycle_key(rows[i], options)
        except NotImplementedError:
            continue
        assert key and game.cycle_id(key, options)


@pytest.mark.parametrize(("name", "index"), CASES)
def test_the_kernel_agrees_with_play_batch(name, index):
    game, options, rows = _setup(name, index)
    kernel = game.kernel(options)
    assert kernel.n_cards == len(rows[0]) and kernel.n_measures == len(game.measures)
    batch = game.play_batch(rows, options)
    for i, row in enumerate(rows):
        outcome, measures, entry, period = kernel.play(row)
        assert outcome == batch.outcome[i]
        assert measures == tuple(batch.measures[i])
        assert entry == tuple(batch.entry[i]) and period == tuple(batch.period[i])


@pytest.mark.parametrize("name", [game.name for game in iter_games()])
def test_options_have_a_stable_key_and_json_and_reject_unknown_names(name):
    game = get_game(name)
    keys = set()
    for values in game.test_option_sets:
        options = game.options(**values)
        assert game.options(**values) == options
        assert game.options(**values).key() == options.key()
        json.dumps(options.to_json())   # the log stores it
        assert game.options(**options.to_json()) == options   # and may rebuild them from it
        keys.add(options.key())
    assert len(keys) == len(game.test_option_sets)  # different options, different keys
    with pytest.raises(ValueError, match="no_such_option"):
        game.options(no_such_option=1)


@pytest.mark.parametrize("name", [game.name for game in iter_games()])
def test_a_climb_plays_the_same_games_however_its_work_is_sliced(name):
    """A climber continued from its checkpoint (current and best row, scores, PRNG) plays on
    exactly as one that never stopped: what --resume and fixed budget shares rely on."""
    from dealsearch.search.base import Task
    from dealsearch.search.climb import climb_slice
    from dealsearch.search.spec import SearchSpec

    game = get_game(name)
    spec = SearchSpec("climb", game=name, game_options=dict(game.test_option_sets[0]), seed=5,
                      workers=1, stall=300)
    whole = climb_slice(spec, Task(0, {"state": None, "games": 3_000}))
    state, deals, finds = None, 0, []
    for _ in range(3):
        part = climb_slice(spec, Task(0, {"state": state, "games": 1_000}))
        state, deals, finds = part.state, deals + part.deals, finds + part.finds
    assert whole.state is not None and whole.state["restarts"] >= 2
    assert state == whole.state and deals == whole.deals == 3_000
    assert [deal for deal, _ in finds] == [deal for deal, _ in whole.finds]


def _parts(layout: Any, row: np.ndarray) -> list[list[int]]:
    """The sorted cards of each part a deal keeps: outside the fixed segments, and each one."""
    bounds = list(zip(layout.bounds(), layout.fixed, strict=True))
    free = sorted(int(row[i]) for (a, b), fixed in bounds if not fixed for i in range(a, b))
    return [free] + [sorted(row[a:b].tolist()) for (a, b), fixed in bounds if fixed]


@pytest.mark.parametrize(("name", "index"), CASES)
def test_a_crossover_child_is_a_deal_of_the_layout_made_of_its_parents(name, index):
    game, options, rows = _setup(name, index)
    layout = game.layout(options)
    rng = np.random.default_rng(index)
    for first, second in zip(rows[:40:2], rows[1:40:2], strict=True):
        child = crossover(layout, first, second, rng)
        assert _parts(layout, child) == _parts(layout, first)
        game.format(child, options)  # a deal the game accepts
        foreign = int(((child != first) & (child != second)).sum())  # cards put back
        assert foreign <= int((first != second).sum())
        assert (crossover(layout, first, first.copy(), rng) == first).all()
