"""The contract every game keeps, shipped with the package so a game written anywhere can run it.

A game is a plug-in (:mod:`dealsearch.game`); whatever its engine, the search, the log and the
CLI rely on the same promises, checked here against the game's own pure-Python reference:

- the game writes only members the plug-in API knows (a misspelt member is an error, as at
  :func:`~dealsearch.game.register`);
- the compiled engine agrees with the reference (a game with a
  :class:`~dealsearch.game.Reference`), its trace is a line per turn, and the engine plays a
  deal the same way every time; ``verify --json`` has the game's ``result_keys``;
- ``parse`` and ``format`` are inverse, and a row keeps the deck's cards;
- a never-ending game's counts add up (first repeat = entry + one period), and a game with a
  cycle catalogue names its cycle (and only cycles);
- with agreed limits (options named ``max_<measure>``): a limit cuts the game, never ending in
  a win beyond it, and a cycle cut at its entry and at its repeat stops at the counts it
  reports there, in the engine and in the reference;
- a speed table (``dealsearch bench``) has its keys and no mismatch;
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
that broke it. A check that does not apply to the game (a feature it lacks, no agreed
limit, no deck small enough) never passes silently: under pytest it skips with the reason;
elsewhere it raises :class:`NotApplicable`, which :func:`check_game` records and returns.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np

from .game import (
    CycleCatalogue,
    Game,
    GameOptions,
    GameResult,
    Reference,
    Row,
    api_problems,
    canonical,
    make_options,
)
from .search.base import Task, crossover, random_row
from .search.climb import climb_slice
from .search.distinct import DistinctDeals, at_least
from .search.exhaustive import ExhaustiveSearch, shard_blocks
from .search.spec import SearchSpec

EXHAUSTIVE_CHECK = 20_000  # most deals of an option set searched exhaustively by the contract
CYCLES_CUT = 10  # most cycling deals of an option set cut by a limit at entry and repeat


@dataclass(frozen=True)
class Subject:
    """A game and what to play it with.

    ``option_sets``: option values (as :func:`~dealsearch.game.make_options` takes them) to
    check under, each with ``rows`` random deals. ``cycle_deals``: (option values, deal text)
    pairs known never to end, so the cycle checks surely run even where random deals rarely
    cycle.
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
                options = make_options(self.game, values)
                layout = self.game.layout(options)
                rng = np.random.default_rng([self.seed, index])
                rows = np.array([random_row(layout, rng) for _ in range(self.rows)],
                                dtype=np.uint8)
                self._cache[index] = (options, rows)
            yield self._cache[index]


class NotApplicable(Exception):
    """A check that does not apply to the game (its message says why)."""


def not_applicable(reason: str) -> NoReturn:
    """Stop a check that does not apply: ``pytest.skip(reason)`` where pytest runs it,
    :class:`NotApplicable` otherwise."""
    pytest = sys.modules.get("pytest")
    if pytest is not None:
        pytest.skip(reason)
    raise NotApplicable(reason)


def _skipped() -> tuple[type[BaseException], ...]:
    """The exceptions :func:`not_applicable` raises."""
    pytest = sys.modules.get("pytest")
    return (NotApplicable,) if pytest is None else (NotApplicable, pytest.skip.Exception)


def _plain(result: GameResult) -> tuple[Any, ...]:
    return (result.outcome, dict(result.measures), dict(result.entry), dict(result.period))


def _cycle_cases(subject: Subject) -> Iterator[tuple[GameOptions, Row, bool]]:
    """(options, rows, must cycle) for each option set's random rows and each known
    never-ending deal."""
    game = subject.game
    for options, rows in subject.cases():
        yield options, rows, False
    for values, text in subject.cycle_deals:
        options = make_options(game, values)
        yield options, np.array([game.parse(text, options)]), True


def _limits(game: Game) -> list[tuple[int, str]]:
    """(measure index, option name) of each agreed limit the game offers: an option named
    ``max_<measure>`` caps that measure, and the game reports ``limit`` when it stops there."""
    if "limit" not in game.outcomes:
        return []
    names = {spec.name for spec in game.option_specs}
    return [(k, f"max_{m}") for k, m in enumerate(game.measures) if f"max_{m}" in names]


def _cut(game: Game, options: GameOptions, name: str, value: int) -> GameOptions | None:
    """``options`` with the limit ``name`` at ``value``; None where that is no tighter than
    the limit already set (or not a limit the game takes: below 1)."""
    current = options.to_json().get(name)
    if value < 1 or (current is not None and value > current):
        return None
    return game.options(**{**options.to_json(), name: value})


def speaks_the_plugin_api(subject: Subject) -> None:
    """The game writes only members the plug-in API knows: no public name that neither
    :class:`~dealsearch.game.Game` nor a feature has (a misspelt member would turn a feature
    off unseen; a helper of the game's own is private), no feature half-written."""
    problems = api_problems(subject.game)
    assert not problems, "; ".join(problems)


def result_keys_name_the_result(subject: Subject) -> None:
    """A game's :attr:`~dealsearch.game.Game.result_keys` (the key order of ``verify
    --json``) name every key of its results, each once."""
    game = subject.game
    if not game.result_keys:
        not_applicable(f"{game.name} keeps the default key order of verify --json")
    assert len(set(game.result_keys)) == len(game.result_keys), game.result_keys
    for options, rows in subject.cases():
        for row in rows[:5]:
            _, result = game.verify(game.format(row, options), options)
            assert set(game.result_keys) == set(result.to_json()), \
                f"{game.format(row, options)}: result_keys {game.result_keys}, the result " \
                f"{tuple(result.to_json())}"


def compiled_equals_reference(subject: Subject) -> None:
    """The compiled engine and the pure-Python reference give the same result on every row
    (a game with a :class:`~dealsearch.game.Reference`)."""
    game = subject.game
    if not isinstance(game, Reference):
        not_applicable(f"{game.name} has no reference (no play_reference)")
    for options, rows in subject.cases():
        batch = game.play_batch(rows, options)
        assert len(batch) == len(rows)
        for i, row in enumerate(rows):
            compiled = game.batch_result(batch, i, row, options)
            reference = game.play_reference(row, options)
            assert compiled.to_json() == reference.to_json(), game.format(row, options)
            assert game.outcomes[batch.outcome[i]] == compiled.outcome
            assert tuple(batch.measures[i]) == tuple(compiled.measures.values())


def traces_the_game(subject: Subject) -> None:
    """A game with a :class:`~dealsearch.game.Reference` traces a deal as lines of text, one
    per turn (``verify --trace``): at least one, each a single line."""
    game = subject.game
    if not isinstance(game, Reference):
        not_applicable(f"{game.name} has no reference, so no trace")
    for options, rows in subject.cases():
        for row in rows[:3]:
            text = game.format(row, options)
            lines = list(game.trace(text, options))
            assert lines, f"{text}: an empty trace"
            assert all(isinstance(line, str) and "\n" not in line for line in lines), text


def parse_and_format_are_inverse(subject: Subject) -> None:
    """``format`` writes the canonical text, ``parse`` reads it back; the deck is kept."""
    game = subject.game
    for options, rows in subject.cases():
        deck = sorted(game.layout(options).deck.tolist())
        for row in rows[:50]:
            text = game.format(row, options)
            parsed = game.parse(text, options)
            assert (parsed == canonical(game, row, options)).all(), text
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
            assert _plain(verified) == _plain(game.batch_result(first, i, row, options)), \
                text


def cycles_add_up(subject: Subject) -> None:
    """Every cycle's first repeat is its entry plus one period, in every measure; a game
    with a catalogue names it. The known never-ending deals must cycle."""
    game = subject.game
    cycle = game.outcomes.index("cycle") if "cycle" in game.outcomes else -1
    for options, rows, must in _cycle_cases(subject):
        batch = game.play_batch(rows, options)
        if must:
            assert batch.outcome[0] == cycle, f"{game.format(rows[0], options)} does not cycle"
        for i in np.flatnonzero(batch.outcome == cycle):
            result = game.batch_result(batch, int(i), rows[i], options)
            assert any(result.period.values())
            for measure in game.measures:
                assert result.entry[measure] + result.period[measure] == \
                    result.measures[measure], game.format(rows[i], options)
            if isinstance(game, CycleCatalogue):
                key = game.cycle_key(rows[i], options)
                assert key and game.cycle_id(key, options)


def cycles_repeat_after_their_period(subject: Subject) -> None:
    """A cycle is a state the game comes back to, at the counts it reports: cut by an agreed
    limit (``max_<measure>``) at the entry, the game and its reference stop there as
    ``limit`` with the entry's counts in every measure; cut one period later, both stop with
    the first repeat's counts (as ``limit`` or ``cycle``). For a game with limits."""
    game = subject.game
    if "cycle" not in game.outcomes or not (limits := _limits(game)):
        not_applicable(f"{game.name} has no cycle outcome or no agreed limit (max_<measure>)")
    cycle = game.outcomes.index("cycle")
    for options, rows, _ in _cycle_cases(subject):
        batch = game.play_batch(rows, options)
        for i in np.flatnonzero(batch.outcome == cycle)[:CYCLES_CUT]:
            row = rows[i]
            text = game.format(row, options)
            result = game.batch_result(batch, int(i), row, options)
            for k, name in limits:
                measure = game.measures[k]
                at_entry = _cut(game, options, name, result.entry[measure])
                if at_entry is not None and result.period[measure] > 0:
                    cut = game.batch_result(game.play_batch(row[None], at_entry), 0, row,
                                       at_entry)
                    where = f"{text} cut at {name}={result.entry[measure]}"
                    assert cut.outcome == "limit", f"{where}: {cut.outcome}, not limit"
                    assert dict(cut.measures) == dict(result.entry), \
                        f"{where}: {dict(cut.measures)}, not the entry {dict(result.entry)}"
                    if isinstance(game, Reference):
                        assert dict(game.play_reference(row, at_entry).measures) == \
                            dict(result.entry), f"{where}: the reference stops elsewhere"
                at_repeat = _cut(game, options, name, result.measures[measure])
                if at_repeat is not None:
                    cut = game.batch_result(game.play_batch(row[None], at_repeat), 0, row,
                                       at_repeat)
                    where = f"{text} cut at {name}={result.measures[measure]}"
                    played_too = [game.play_reference(row, at_repeat)] \
                        if isinstance(game, Reference) else []
                    for played in (cut, *played_too):
                        assert played.outcome in ("cycle", "limit"), \
                            f"{where}: {played.outcome}"
                        assert dict(played.measures) == dict(result.measures), \
                            f"{where}: {dict(played.measures)}, not the repeat's " \
                            f"{dict(result.measures)}"


def limits_cut_the_game(subject: Subject) -> None:
    """An agreed limit (an option ``max_<measure>``) stops the game once that measure reaches
    it, never ending in a win beyond it: a game that ends (or repeats) before the limit is
    unchanged; a longer one reports ``limit``, no cycle, with the measure at least the limit
    and no count past the unlimited game's; one that ends just at the limit keeps its counts.
    The reference agrees. Cut at a few lengths the option set's random deals reach."""
    game = subject.game
    if not _limits(game):
        not_applicable(f"{game.name} has no agreed limit (max_<measure> and a limit outcome)")
    for options, rows in subject.cases():
        free = game.play_batch(rows, options)
        n = len(rows)
        for k, name in _limits(game):
            length = free.measures[:, k]
            for value in sorted({1, *np.sort(length)[[n // 10, n // 2, 9 * n // 10]].tolist()}):
                cut_options = _cut(game, options, name, value)
                if cut_options is None:
                    continue
                cut = game.play_batch(rows, cut_options)
                for i in np.flatnonzero(length < value):
                    for part in ("outcome", "measures", "entry", "period"):
                        assert (getattr(cut, part)[i] == getattr(free, part)[i]).all(), \
                            _cut_text(game, rows[i], options, name, value, f"{part} changed")
                for i in np.flatnonzero(length == value):
                    assert (cut.measures[i] == free.measures[i]).all() and \
                        cut.outcome[i] in (free.outcome[i], game.outcomes.index("limit")), \
                        _cut_text(game, rows[i], options, name, value,
                                  "a game ending just at the limit changed")
                longer = np.flatnonzero(length > value)
                for i in longer:
                    outcome = game.outcomes[cut.outcome[i]]
                    assert outcome == "limit" and cut.measures[i, k] >= value and \
                        (cut.measures[i] <= free.measures[i]).all() and \
                        not cut.period[i].any(), _cut_text(
                            game, rows[i], options, name, value,
                            f"{outcome} with {cut.measures[i].tolist()}, not the limit")
                for i in longer[:3]:
                    if not isinstance(game, Reference):
                        break
                    compiled = game.batch_result(cut, int(i), rows[i], cut_options)
                    assert game.play_reference(rows[i], cut_options).to_json() == \
                        compiled.to_json(), _cut_text(game, rows[i], options, name, value,
                                                      "the reference differs")


def _cut_text(game: Game, row: Row, options: GameOptions, name: str, value: int,
              what: str) -> str:
    return f"{game.format(row, options)} cut at {name}={value}: {what}"


def speed_table_agrees(subject: Subject) -> None:
    """A game with a speed table (``dealsearch bench``) gives one row per setting with the
    documented keys, a positive speed for engine and reference, and no mismatch between them.
    """
    game = subject.game
    table = game.speed_table(deals=20, seed=1) if isinstance(game, Reference) else []
    if not table:
        not_applicable(f"{game.name} has no speed table")
    keys = {"setting", "deals_per_s", *(f"{m}_per_s" for m in game.measures),
            "reference_deals_per_s", "ratio", "mismatches"}
    assert table and len({row["setting"] for row in table}) == len(table), table
    for row in table:
        assert set(row) == keys, row
        assert row["deals_per_s"] > 0 and row["reference_deals_per_s"] > 0, row
        assert row["mismatches"] == 0, f"{row['setting']}: the reference plays otherwise"


def cycle_key_refuses_an_ending_deal(subject: Subject) -> None:
    """A game with a cycle catalogue names only cycles: ``cycle_key`` of a deal that ends
    raises ``ValueError`` (the log never files a finished game under a cycle)."""
    game = subject.game
    if not isinstance(game, CycleCatalogue):
        not_applicable(f"{game.name} has no cycle catalogue")
    for options, rows in subject.cases():
        batch = game.play_batch(rows[:20], options)
        for i in np.flatnonzero(np.array(game.outcomes)[batch.outcome] != "cycle")[:5]:
            try:
                key = game.cycle_key(rows[i], options)
            except ValueError:
                continue
            raise AssertionError(f"{game.format(rows[i], options)} ends, yet has the cycle "
                                 f"key {key!r}")


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
        options = make_options(game, values)
        assert make_options(game, values) == options
        assert make_options(game, values).key() == options.key()
        json.dumps(options.to_json())
        assert game.options(**options.to_json()) == options
        keys.add(options.key())
    assert len(keys) == len(subject.option_sets), "two option sets share a key"
    try:
        make_options(game, {"no_such_option": 1})
    except ValueError as error:
        assert "no_such_option" in str(error), error
    else:
        raise AssertionError("an unknown option was accepted")


def climb_resumes_exactly(subject: Subject) -> None:
    """A climber continued from its checkpoint plays on exactly as one never stopped."""
    game = subject.game
    spec = SearchSpec("climb", game=game.name, game_options=dict(subject.option_sets[0]),
                      seed=5, workers=1, settings={"stall": 150})
    whole = climb_slice(spec, Task(0, {"state": None, "games": 1_500}))
    state, deals, finds = None, 0, []
    for _ in range(3):
        part = climb_slice(spec, Task(0, {"state": state, "games": 500}))
        state, deals, finds = part.state, deals + part.deals, finds + part.finds
    assert whole.state is not None and whole.state["restarts"] >= 2
    assert state == whole.state and deals == whole.deals == 1_500
    # The same finds; a climber's new best is told at the end of a stretch of play, and a
    # slice's end ends a stretch, so where it stands among the cycles may differ.
    assert sorted(deal for deal, _ in finds) == sorted(deal for deal, _ in whole.finds)


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
        options = make_options(game, values)
        text = game.describe_options(options)
        assert text or not options.to_json(), (values, text)
        assert "=" not in text and ";" not in text, (values, text)


def exhaustive_respects_the_layout(subject: Subject) -> None:
    """On each option set of at most :data:`EXHAUSTIVE_CHECK` distinct deals, the shards of an
    exhaustive search hold every distinct deal once: canonical (unordered segments sorted),
    each fixed segment with its own cards, each numbered by its rank; every random deal, made
    canonical, is among them."""
    game = subject.game
    checked = 0
    for values, (options, random_rows) in zip(subject.option_sets, subject.cases(),
                                               strict=True):
        layout = game.layout(options)
        if at_least(layout) > EXHAUSTIVE_CHECK or DistinctDeals(layout).total > EXHAUSTIVE_CHECK:
            continue
        spec = SearchSpec("exhaustive", game=game.name, game_options=dict(values), workers=1)
        search = ExhaustiveSearch(spec, {})
        numbering = DistinctDeals(layout)
        seen: set[bytes] = set()
        deck = sorted(layout.deck.tolist())
        fixed = [(a, b) for (a, b), f in zip(layout.bounds(), layout.fixed, strict=True) if f]
        while (task := search.next_task()) is not None:
            for first, block in shard_blocks(numbering, task):
                for rank, row in enumerate(block, first):
                    text = game.format(row, options)
                    assert numbering.number(row) == rank, f"{text} is not deal {rank}"
                    assert (canonical(game, row, options) == row).all(), text
                    assert sorted(row.tolist()) == deck, text
                    for a, b in fixed:
                        assert sorted(row[a:b].tolist()) == sorted(layout.deck[a:b].tolist()), \
                            text
                    assert row.tobytes() not in seen, f"{text} is played twice"
                    seen.add(row.tobytes())
        assert len(seen) == search.total_deals
        for row in random_rows:
            assert canonical(game, row, options).tobytes() in seen, game.format(row, options)
        checked += 1
    if not checked:
        not_applicable(f"no option set of {game.name} has at most {EXHAUSTIVE_CHECK} "
                       "distinct deals")


CHECKS: tuple[Callable[[Subject], None], ...] = (
    speaks_the_plugin_api, result_keys_name_the_result, compiled_equals_reference,
    traces_the_game, parse_and_format_are_inverse, same_deal_same_result, cycles_add_up,
    cycles_repeat_after_their_period, limits_cut_the_game,
    cycle_key_refuses_an_ending_deal, kernel_agrees, speed_table_agrees, options_round_trip,
    describes_its_options, climb_resumes_exactly, crossover_keeps_parts,
    exhaustive_respects_the_layout)


def check_game(game: Game, option_sets: Sequence[dict[str, Any]] = ({},),
               cycle_deals: Sequence[tuple[dict[str, Any], str]] = (),
               rows: int = 200) -> dict[str, str]:
    """Run every check of the contract on ``game``; ``AssertionError`` at the first broken one.
    Returns the checks that did not apply, by name, each with its reason."""
    subject = Subject(game, option_sets, cycle_deals, rows)
    skipped: dict[str, str] = {}
    for check in CHECKS:
        try:
            check(subject)
        except _skipped() as reason:
            skipped[check.__name__] = str(reason.msg if hasattr(reason, "msg") else reason)
    return skipped
