"""The lanes engine (``games/beggar/_lanes``) agrees exactly with the bit-plane engine and the
pure-Python reference: on every published deal, on random deals of 2, 3 and 4 players (cycles
and the agreed limit included), and as a random player, on every kernel this machine runs
(the scalar fallback among them). ``benchmarks/lanes_exactness.py`` checks millions more.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from dealsearch.games.beggar import _engine, _lanes
from dealsearch.games.beggar.engine import OUTCOMES, BeggarResult, play_batch
from dealsearch.games.beggar.known import load_known
from dealsearch.games.beggar.notation import ITALIAN, STANDARD, Deal, Rules, parse_deal
from dealsearch.games.beggar.options import get_rules
from dealsearch.games.beggar.reference import play_reference

from deals import CASELLA

DATA = Path(__file__).resolve().parents[3] / "data"
KERNELS = _lanes.kernels()


@pytest.fixture(params=KERNELS)
def kernel(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every kernel this machine runs, in turn, on decks of any size; "auto" again afterwards."""
    _lanes.set_kernel(request.param, min_cards=2)
    try:
        yield request.param
    finally:
        _lanes.set_kernel("auto")


def both(rows: np.ndarray, sizes: tuple[int, ...], rules: Rules, max_cards: int | None = None,
         max_tricks: int | None = None) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """The engine's and the lanes' results on the same rows."""
    rows = np.ascontiguousarray(rows, dtype=np.uint8)
    return (_engine.play_rows(rows, sizes, rules.payments, max_cards, max_tricks),
            _lanes.play_rows(rows, sizes, rules.payments, max_cards, max_tricks))


def assert_same(expected: tuple[np.ndarray, ...], got: tuple[np.ndarray, ...]) -> None:
    names = ("outcome", "winner", "cards", "tricks", "out", "cycle")
    for name, a, b in zip(names, expected, got, strict=True):
        bad = np.nonzero(np.any(np.asarray(a != b).reshape(len(a), -1), axis=1))[0]
        assert not len(bad), f"{name} differs on {len(bad)} deals, first {bad[:5]}"


def as_result(arrays: tuple[np.ndarray, ...], i: int) -> BeggarResult:
    """Row ``i`` of play_rows' arrays as the reference's result (1-based seats)."""
    outcome, winner, cards, tricks, out, cycle = arrays
    name = OUTCOMES[outcome[i]]
    entry, period = ((int(cycle[i, 0]), int(cycle[i, 1])), (int(cycle[i, 2]), int(cycle[i, 3]))
                     ) if name == "cycle" else (None, None)
    return BeggarResult.of(name, int(winner[i]) + 1 or None, int(cards[i]), int(tricks[i]),
                           tuple(int(s) + 1 for s in out[i] if s >= 0), entry, period)


def published() -> list[tuple[str, str]]:
    """(deal, rules) of every published and found deal shipped with the project."""
    deals = [(known.text, known.rules_name) for known in load_known()]
    for name in ("known_deals.csv", "found_deals.csv"):
        with (DATA / name).open(newline="", encoding="utf-8") as f:
            deals += [(row["deal"], row["rules"]) for row in csv.DictReader(f)]
    return sorted(set(deals))


# ---------------------------------------------------------------- published deals

@pytest.mark.parametrize(("text", "rules_name"), published())
def test_published_deals_agree_with_the_engine_and_the_reference(
        kernel: str, text: str, rules_name: str) -> None:
    rules = get_rules(rules_name)
    deal = parse_deal(text, rules, deck="any")
    rows = np.array([deal.cards], dtype=np.uint8)
    expected, got = both(rows, deal.hand_sizes, rules)
    assert_same(expected, got)
    assert as_result(got, 0) == play_reference(deal, rules)


def test_casella_cycle_among_ordinary_deals(kernel: str) -> None:
    # a cycle in the middle of a batch: the lanes hand it back, the others stay theirs
    rows = _engine.random_rows(STANDARD.deck, 99, seed=5)
    casella = parse_deal(CASELLA, STANDARD).cards
    rows = np.insert(rows, 50, np.array(casella, dtype=np.uint8), axis=0)
    expected, got = both(rows, (26, 26), STANDARD)
    assert_same(expected, got)
    assert OUTCOMES[got[0][50]] == "cycle" and tuple(got[5][50]) == (34, 4, 440, 62)


# ---------------------------------------------------------------- random deals

def small_deck(n_cards: int, seed: int) -> tuple[int, ...]:
    """A random multiset of ``n_cards`` standard cards (small decks cycle often)."""
    rng = np.random.default_rng(seed)
    courts = int(rng.integers(1, min(n_cards, 16) + 1))
    counts = np.bincount(rng.integers(1, 5, size=courts), minlength=5)
    counts[0] = n_cards - courts
    return tuple(int(c) for c in counts)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_full_decks_agree(kernel: str, players: int) -> None:
    for rules, n in ((STANDARD, 6000), (ITALIAN, 2000)):
        rows = _engine.random_rows(rules.deck, n, seed=players)
        sizes = Rules.deal_sizes(rows.shape[1], players)
        assert_same(*both(rows, sizes, rules))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_small_decks_with_cycles_and_limits_agree(kernel: str, players: int) -> None:
    outcomes = np.zeros(3, dtype=np.int64)
    for seed in range(40):
        n_cards = 8 + seed % 45
        deck = small_deck(n_cards, seed)
        rows = _engine.random_rows(deck, 150, seed=seed)
        sizes = Rules.deal_sizes(n_cards, players)
        for max_cards, max_tricks in ((None, None), (200 + 37 * seed, None), (None, 25 + seed),
                                      (100, 10)):
            expected, got = both(rows, sizes, STANDARD, max_cards, max_tricks)
            assert_same(expected, got)
            outcomes += np.bincount(got[0], minlength=3)
    assert outcomes.min() > 100, f"too few of some outcome to test: {outcomes}"


def test_two_player_cycles_on_lanes_agree(kernel: str) -> None:
    # two jacks among twelve cards: one deal in six never ends
    outcomes = np.zeros(3, dtype=np.int64)
    for deck, sizes in (((10, 2), (6, 6)), ((8, 6), (7, 7)), ((10, 2), (1, 11))):
        rows = _engine.random_rows(deck, 3000, seed=4)
        for limits in ((None, None), (60, None), (None, 8)):
            expected, got = both(rows, sizes, STANDARD, *limits)
            assert_same(expected, got)
            outcomes += np.bincount(got[0], minlength=3)
    assert outcomes.min() > 1000, f"too few of some outcome to test: {outcomes}"


def test_unequal_hands_and_eight_classes_agree(kernel: str) -> None:
    payments = (0, 1, 2, 3, 4, 5, 6, 7)
    deck = (30, 3, 3, 3, 3, 2, 2, 2)
    rows = _engine.random_rows(deck, 3000, seed=9)
    for sizes in ((1, 47), (20, 28), (47, 1)):
        expected = _engine.play_rows(rows, sizes, payments)
        assert_same(expected, _lanes.play_rows(rows, sizes, payments))


def test_lanes_agree_with_the_reference(kernel: str) -> None:
    for players, n in ((2, 300), (3, 100), (4, 100)):
        rows = _engine.random_rows(STANDARD.deck, n, seed=11 + players)
        sizes = Rules.deal_sizes(52, players)
        got = _lanes.play_rows(rows, sizes, STANDARD.payments, None, 400)
        batch = play_batch(rows, STANDARD, players, max_tricks=400)
        for i, row in enumerate(rows):
            deal = Deal(tuple(tuple(hand.tolist())
                              for hand in np.split(row, np.cumsum(sizes)[:-1])))
            assert as_result(got, i) == play_reference(deal, STANDARD, max_tricks=400)
            assert as_result(got, i) == batch.result(i)


def test_decks_above_the_bit_planes_go_to_the_engine() -> None:
    rows = _engine.random_rows(tuple(2 * c for c in STANDARD.deck), 20, seed=3)
    assert_same(*both(rows, (52, 52), STANDARD))


def test_empty_batch() -> None:
    rows = np.zeros((0, 52), dtype=np.uint8)
    assert all(len(a) == 0 for a in _lanes.play_rows(rows, (26, 26), STANDARD.payments))


# ---------------------------------------------------------------- the random player

def plays(player: _lanes.RandomPlayer, calls: list[int], max_finds: int) -> list[object]:
    """Everything ``player`` reports over several play calls, with histograms."""
    seen: list[object] = []
    for n in calls:
        hists = (np.zeros(40, dtype=np.int64), np.zeros(40, dtype=np.int64))
        played, counts, totals, rows, results = player.play(n, max_finds, hists, (7, 1))
        seen += [played, counts.tolist(), totals.tolist(), rows.tolist(), results.tolist(),
                 hists[0].tolist(), hists[1].tolist(), player.best, player.dealt]
    return seen


def expected_plays(args: tuple, calls: list[int], max_finds: int) -> list[object]:
    """What ``plays`` must see, worked out from the stream's rows (``random_rows``) played by
    ``_engine.play_rows``: each call counts deals in order until ``max_finds`` finds."""
    deck, sizes, payments, seed, stream, max_cards, max_tricks, best, by_tricks = args
    rows = _engine.random_rows(deck, sum(calls), seed, stream)
    outcome, _, cards, tricks, _, cycle = _engine.play_rows(rows, sizes, payments, max_cards,
                                                            max_tricks)
    seen: list[object] = []
    dealt = 0
    for n in calls:
        counts, totals, found, results = [0, 0, 0], [0, 0], [], []
        card_hist, trick_hist = [0] * 40, [0] * 40
        played = 0
        while played < n and len(found) < max_finds:
            d = dealt + played
            played += 1
            counts[outcome[d]] += 1
            totals[0] += int(cards[d])
            totals[1] += int(tricks[d])
            card_hist[min(cards[d] // 7, 39)] += 1
            trick_hist[min(tricks[d], 39)] += 1
            score = int(tricks[d] if by_tricks else cards[d])
            if outcome[d] == 1 or (outcome[d] == 0 and score > best):
                best = score if outcome[d] == 0 else best
                found.append(rows[d].tolist())
                results.append([int(outcome[d]), int(cards[d]), int(tricks[d]),
                                *map(int, cycle[d])])
        dealt += played
        seen += [played, counts, totals, found, results, card_hist, trick_hist, best, dealt]
    return seen


@pytest.mark.parametrize(("deck", "sizes", "by_tricks", "limits"), [
    (STANDARD.deck, (26, 26), False, (None, None)),
    (STANDARD.deck, (26, 26), True, (3000, None)),
    (STANDARD.deck, (18, 17, 17), False, (None, 300)),
    ((14, 1, 2, 2, 1), (10, 10), False, (None, None)),       # cycles often
    ((12, 2, 1, 1, 2), (6, 6, 6), True, (500, 60)),
    ((72, 8, 8, 8, 8), (52, 52), False, (None, None)),       # rows, on the ring engine
])
def test_random_player_counts_and_keeps_what_the_engine_plays(
        kernel: str, deck: tuple[int, ...], sizes: tuple[int, ...], by_tricks: bool,
        limits: tuple[int | None, int | None]) -> None:
    # calls that split the stream differently, and finds that fill up mid-batch
    for calls, max_finds in (([5000, 1, 4999], 256), ([3000] * 4, 3), ([9000], 1)):
        if sum(deck) > 64:
            calls = [n // 20 for n in calls]
        args = (deck, sizes, STANDARD.payments[:len(deck)], 7, 2, *limits, 10, by_tricks)
        assert (plays(_lanes.RandomPlayer(*args), calls, max_finds)
                == expected_plays(args, calls, max_finds))


def test_random_player_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="payments"):
        _lanes.RandomPlayer(STANDARD.deck, (26, 26), (1, 1, 2, 3, 4), 1, 0)
    with pytest.raises(ValueError, match="sizes"):
        _lanes.RandomPlayer(STANDARD.deck, (26, 25), STANDARD.payments, 1, 0)
    player = _lanes.RandomPlayer(STANDARD.deck, (26, 26), STANDARD.payments, 1, 0)
    with pytest.raises(ValueError, match="histograms"):
        player.play(10, 5, (np.zeros(3, dtype=np.int64),), (10,))
    with pytest.raises(ValueError, match="histograms"):
        player.play(10, 5, (np.zeros(3, dtype=np.int64),) * 2, (10, 2))
    with pytest.raises(ValueError, match="trick_hist"):
        player.play(10, 5, (np.zeros(3, dtype=np.int64), np.zeros(3)), (10, 1))


# ---------------------------------------------------------------- kernels

def test_kernels_and_the_scalar_fallback() -> None:
    assert KERNELS[0] == "scalar" and _lanes.kernel() in KERNELS
    previous = _lanes.set_kernel("scalar")
    try:
        assert _lanes.kernel() == "scalar"
        rows = _engine.random_rows(STANDARD.deck, 500, seed=2)
        assert_same(*both(rows, (26, 26), STANDARD))
    finally:
        _lanes.set_kernel(previous)
    with pytest.raises(ValueError, match="kernel"):
        _lanes.set_kernel("avx1024")
    assert _lanes.set_kernel("auto") == previous


def test_play_rows_checks_its_arguments() -> None:
    rows = _engine.random_rows(STANDARD.deck, 3, seed=1)
    with pytest.raises(ValueError, match="uint8"):
        _lanes.play_rows(rows.astype(np.int64), (26, 26), STANDARD.payments)
    with pytest.raises(ValueError, match="sizes"):
        _lanes.play_rows(rows, (26, 20), STANDARD.payments)
    with pytest.raises(ValueError, match="class"):
        _lanes.play_rows(rows, (26, 26), (0, 1, 2))
    with pytest.raises(ValueError, match="max_cards"):
        _lanes.play_rows(rows, (26, 26), STANDARD.payments, 0)
