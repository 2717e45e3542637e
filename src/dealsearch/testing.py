"""The contract every game keeps, shipped with the package so a game written anywhere can run it.

A game is a plug-in (:mod:`dealsearch.game`); whatever its engine, the search, the log and the
CLI rely on the same promises, checked here against the game's own pure-Python reference:

- the compiled engine agrees with the reference, and plays a deal the same way every time;
- ``parse`` and ``format`` are inverse, and a row keeps the deck's cards;
- a never-ending game's counts add up (first repeat = entry + one period), and a game with a
  cycle catalogue names its cycle;
- the C-level :class:`~dealsearch._kernel.Kernel` agrees with ``play_batch``;
- options round-trip through JSON (the log stores them), reject unknown names, and read as
  words for people;
- a climb continued from its checkpoint plays on as one never stopped (``--resume``);
- a crossover child is a deal of the layout made of its parents' cards;
- an exhaustive search plays every distinct deal of the layout once: fixed segments keep their
  cards, an unordered segment is played once per content (on every option set whose deck is
  small enough, at most :data:`EXHAUSTIVE_CHECK` deals; none is for a game whose decks are
  all larger).

Run it from pytest, one test per check::

    import pytest
    from dealsearch.testing import CHECKS, Subject

    SUBJECT = Subject(MyGame(), option_sets=({}, {"seats": 3}), cycle_deals=((({}, "..."),)))

    @pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
    def test_contract(check):
        check(SUBJECT)

or all at once with :func:`check_game`. Each check raises ``AssertionError`` naming the deal
that broke it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .game import CycleCatalogue, Game, GameOptions, GameResult, Row
from .search.base import Task, crossover, random_row
from .search.climb import climb_slice
from .search.distinct import DistinctDeals, at_least
from .search.exhaustive import ExhaustiveSearch, shard_blocks
from .search.spec import SearchSpec

EXHAUSTIVE_CHECK = 20_000  # most deals of an option set searched exhaustively by the contract


@dataclass(frozen=True)
class Subject:
    """A game and what to play it with.

    ``option_sets``: option values (as :meth:`Game.options` takes them) to check under, each
    with ``rows`` random deals. ``cycle_deals``: (option values, deal text) pairs known never
    to end, so the cycle checks surely run even where random deals rarely cycle.
    """

    game: Game
    option_sets: Sequence[dict[str, Any]] = ({},)
    cycle_deals: Sequence[tuple[dict[str, Any], str]] = ()
    rows: int = 200
    seed: int = 0
    _cache: dict[int, tuple[GameOptions, Row]] = field(default_factory=dict, repr=False,
                                                       compare=False)

    def cases(self) -> Iterator[tuple[GameOptions, Row]]:
        """(options, random rows) for each option set, the same rows every time."""
        for index, values in enumerate(self.option_sets):
            if index not in self._cache:
                options = self.game.options(**values)
                layout = self.game.layout(options)
                rng = np.random.default_rng([self.seed, index])
                rows = np.array([random_row(layout, rng) for _ in range(self.rows)],
                                dtype=np.uint8)
                self._cache[index] = (options, rows)
            yield self._cache[index]


def _plain(result: GameResult) -> tuple[Any, ...]:
    return (result.outcome, dict(result.measures), dict(result.entry), dict(result.period))


def compiled_equals_reference(subject: Subject) -> None:
    """The compiled engine and the pure-Python reference give the same result on every row."""
    game = subject.game
    for options, rows in subject.cases():
        batch = game.play_batch(rows, options)
        assert len(batch) == len(rows)
        for i, row in enumerate(rows):
            compiled = game.result(batch, i, row, options)
            reference = game.play_reference(row, options)
            assert compiled.to_json() == reference.to_json(), game.format(row, options)
            assert game.outcomes[batch.outcome[i]] == compiled.outcome
            assert tuple(batch.measures[i]) == tuple(compiled.measures.values())


def parse_and_format_are_inverse(subject: Subject) -> None:
    """``format`` writes the canonical text, ``parse`` reads it back; the deck is kept."""
    game = subject.game
    for options, rows in subject.cases():
        deck = sorted(game.layout(options).deck.tolist())
        for row in rows[:50]:
            text = game.format(row, options)
            parsed = game.parse(text, options)
            assert (parsed == game.canonical(row, options)).all(), text
            assert game.format(parsed, options) == text
            assert sorted(parsed.tolist()) == deck, text


def same_deal_same_result(subject: Subject) -> None:
    """A deal and its options decide the game: playing it again changes nothing."""
    game = subject.game
    for options, rows in subject.cases():
        first = game.play_batch(rows[:50], options)
        again = game.play_batch(rows[:50], options)
        for name in ("outcome", "measures", "entry", "period"):
            assert (getattr(first, name) == getattr(again, name)).all(), name
        for i, row in enumerate(rows[:20]):
            text, verified = game.verify(game.format(row, options), options)
            assert text == game.format(row, options)
            assert _plain(verified) == _plain(game.result(first, i, row, options)), text


def cycles_add_up(subject: Subject) -> None:
    """Every cycle's first repeat is its entry plus one period, in every measure; a game
    with a catalogue names it. The known never-ending deals must cycle."""
    game = subject.game
    cases = [(options, rows, False) for options, rows in subject.cases()]
    for values, text in subject.cycle_deals:
        options = game.options(**values)
        cases.append((options, np.array([game.parse(text, options)]), True))
    cycle = game.outcomes.index("cycle") if "cycle" in game.outcomes else -1
    for options, rows, must in cases:
        batch = game.play_batch(rows, options)
        if must:
            assert batch.outcome[0] == cycle, f"{game.format(rows[0], options)} does not cycle"
        for i in np.flatnonzero(batch.outcome == cycle):
            result = game.result(batch, int(i), rows[i], options)
            assert any(result.period.values())
            for measure in game.measures:
                assert result.entry[measure] + result.period[measure] == \
                    result.measures[measure], game.format(rows[i], options)
            if isinstance(game, CycleCatalogue):
                key = game.cycle_key(rows[i], options)
                assert key and game.cycle_id(key, options)


def kernel_agrees(subject: Subject) -> None:
    """The Kernel the compiled search loops call plays every row as ``play_batch`` does."""
    game = subject.game
    for options, rows in subject.cases():
        kernel = game.kernel(options)
        assert kernel.n_cards == len(rows[0]) and kernel.n_measures == len(game.measures)
        batch = game.play_batch(rows, options)
        for i, row in enumerate(rows):
            outcome, measures, entry, period = kernel.play(row)
            assert outcome == batch.outcome[i], game.format(row, options)
            assert measures == tuple(batch.measures[i])
            assert entry == tuple(batch.entry[i]) and period == tuple(batch.period[i])


def options_round_trip(subject: Subject) -> None:
    """Options are values with a stable key, stored as JSON and rebuilt from it; different
    option sets have different keys; an unknown option name is refused by name."""
    game = subject.game
    keys = set()
    for values in subject.option_sets:
        options = game.options(**values)
        assert game.options(**values) == options
        assert game.options(**values).key() == options.key()
        json.dumps(options.to_json())
        assert game.options(**options.to_json()) == options
        keys.add(options.key())
    assert len(keys) == len(subject.option_sets), "two option sets share a key"
    try:
        game.options(no_such_option=1)
    except ValueError as error:
        assert "no_such_option" in str(error), error
    else:
        raise AssertionError("an unknown option was accepted")


def climb_resumes_exactly(subject: Subject) -> None:
    """A climber continued from its checkpoint plays on exactly as one never stopped."""
    game = subject.game
    spec = SearchSpec("climb", game=game.name, game_options=dict(subject.option_sets[0]),
                      seed=5, workers=1, stall=300)
    whole = climb_slice(spec, Task(0, {"state": None, "games": 3_000}))
    state, deals, finds = None, 0, []
    for _ in range(3):
        part = climb_slice(spec, Task(0, {"state": state, "games": 1_000}))
        state, deals, finds = part.state, deals + part.deals, finds + part.finds
    assert whole.state is not None and whole.state["restarts"] >= 2
    assert state == whole.state and deals == whole.deals == 3_000
    assert [deal for deal, _ in finds] == [deal for deal, _ in whole.finds]


def _parts(layout: Any, row: Row) -> list[list[int]]:
    bounds = list(zip(layout.bounds(), layout.fixed, strict=True))
    free = sorted(int(row[i]) for (a, b), fixed in bounds if not fixed for i in range(a, b))
    return [free] + [sorted(row[a:b].tolist()) for (a, b), fixed in bounds if fixed]


def crossover_keeps_parts(subject: Subject) -> None:
    """A crossover child (the climb's restarts) is a deal of the layout made of its parents:
    each part's cards kept, no card from outside the parents."""
    game = subject.game
    for index, (options, rows) in enumerate(subject.cases()):
        layout = game.layout(options)
        rng = np.random.default_rng(index)
        for first, second in zip(rows[:40:2], rows[1:40:2], strict=True):
            child = crossover(layout, first, second, rng)
            assert _parts(layout, child) == _parts(layout, first)
            game.format(child, options)  # a deal the game accepts
            assert int(((child != first) & (child != second)).sum()) <= \
                int((first != second).sum())
            assert (crossover(layout, first, first.copy(), rng) == first).all()


def describes_its_options(subject: Subject) -> None:
    """Each setting reads as words for people (summaries, the report), not as a key; a game
    without options may say nothing."""
    game = subject.game
    for values in subject.option_sets:
        options = game.options(**values)
        text = game.describe_options(options)
        assert text or not options.to_json(), (values, text)
        assert "=" not in text and ";" not in text, (values, text)


def exhaustive_respects_the_layout(subject: Subject) -> None:
    """On each option set of at most :data:`EXHAUSTIVE_CHECK` distinct deals, the shards of an
    exhaustive search hold every distinct deal once: canonical (unordered segments sorted),
    each fixed segment with its own cards; every random deal, made canonical, is among them."""
    game = subject.game
    for values, (options, random_rows) in zip(subject.option_sets, subject.cases(),
                                               strict=True):
        layout = game.layout(options)
        if at_least(layout) > EXHAUSTIVE_CHECK or DistinctDeals(layout).total > EXHAUSTIVE_CHECK:
            continue
        spec = SearchSpec("exhaustive", game=game.name, game_options=dict(values), workers=1)
        search = ExhaustiveSearch(spec, {})
        seen: set[bytes] = set()
        deck = sorted(layout.deck.tolist())
        fixed = [(a, b) for (a, b), f in zip(layout.bounds(), layout.fixed, strict=True) if f]
        while (task := search.next_task()) is not None:
            for block in shard_blocks(spec, task):
                for row in block:
                    text = game.format(row, options)
                    assert (game.canonical(row, options) == row).all(), text
                    assert sorted(row.tolist()) == deck, text
                    for a, b in fixed:
                        assert sorted(row[a:b].tolist()) == sorted(layout.deck[a:b].tolist()), \
                            text
                    assert row.tobytes() not in seen, f"{text} is played twice"
                    seen.add(row.tobytes())
        assert len(seen) == search.total_deals
        for row in random_rows:
            assert game.canonical(row, options).tobytes() in seen, game.format(row, options)


CHECKS: tuple[Callable[[Subject], None], ...] = (
    compiled_equals_reference, parse_and_format_are_inverse, same_deal_same_result,
    cycles_add_up, kernel_agrees, options_round_trip, describes_its_options,
    climb_resumes_exactly, crossover_keeps_parts, exhaustive_respects_the_layout)


def check_game(game: Game, option_sets: Sequence[dict[str, Any]] = ({},),
               cycle_deals: Sequence[tuple[dict[str, Any], str]] = (), rows: int = 200) -> None:
    """Run every check of the contract on ``game``; ``AssertionError`` at the first broken one."""
    subject = Subject(game, option_sets, cycle_deals, rows)
    for check in CHECKS:
        check(subject)
