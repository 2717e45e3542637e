"""The compiled engine: published facts, agreement with the reference, properties, the API."""

from __future__ import annotations

import csv
import dataclasses
import itertools
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st

from dealsearch.games.beggar.engine import BeggarBatch, BeggarResult, play, play_batch
from dealsearch.games.beggar.notation import (
    ITALIAN,
    STANDARD,
    Deal,
    DealError,
    Rules,
    format_deal,
    parse_deal,
)
from dealsearch.games.beggar.options import get_rules
from dealsearch.games.beggar.reference import Trick, play_reference

from deals import CASELLA

KNOWN_DEALS = Path(__file__).resolve().parents[3] / "data" / "known_deals.csv"
NESSLER_2022 = "---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---"
RUCKLIDGE_2014 = "-J------Q------AAA-----QQ-/K----JA-----------KQ-K-JJK"
LAST_COURT_WINS = "--KQ--JQQ-K-----AKJJ--A---/----------K-------A---AQ-J"
ITALIAN_CYCLE = "00302020303100000310/00100200002000000010"

# Eight card classes fill all three bit-planes of the compiled hands (class 7 sets every plane).
EIGHT_CLASSES = dataclasses.replace(
    STANDARD,
    name="eight",
    symbols=("-", "J", "Q", "K", "A", "B", "C", "D"),
    names=tuple((s, s + "s") for s in ("plain", "j", "q", "k", "a", "b", "c", "d")),
    payments=(0, 1, 2, 3, 4, 5, 6, 7),
    deck=(8, 8, 8, 8, 8, 8, 8, 8),
)

# ---------------------------------------------------------------- helpers

def split(row: np.ndarray | list[int], sizes: tuple[int, ...]) -> Deal:
    """The :class:`Deal` of one ``play_batch`` row (hand 1 first, each hand top card first)."""
    cards = [int(c) for c in row]
    bounds = list(itertools.accumulate(sizes, initial=0))
    return Deal(tuple(tuple(cards[a:b]) for a, b in itertools.pairwise(bounds)))


def shuffled(rng: np.random.Generator, deck: tuple[int, ...], n: int) -> np.ndarray:
    """``n`` rows, each the cards of ``deck`` (count per class) in random order."""
    base = np.repeat(np.arange(len(deck), dtype=np.uint8), deck)
    return rng.permuted(np.tile(base, (n, 1)), axis=1)


def random_sizes(rng: np.random.Generator, n_cards: int, players: int) -> tuple[int, ...]:
    """A random split of ``n_cards`` into ``players`` non-empty hands."""
    cuts = np.sort(rng.choice(np.arange(1, n_cards), size=players - 1, replace=False))
    bounds = [0, *cuts.tolist(), n_cards]
    return tuple(b - a for a, b in itertools.pairwise(bounds))


def disagreements(
    rows: np.ndarray,
    rules: Rules,
    players: int,
    hand_sizes: tuple[int, ...] | None = None,
    max_cards: int | None = None,
    max_tricks: int | None = None,
) -> tuple[BeggarBatch, list[str]]:
    """Play ``rows`` compiled and with the reference; describe every deal where they differ."""
    batch = play_batch(rows, rules, players, hand_sizes, max_cards, max_tricks)
    sizes = hand_sizes or Rules.deal_sizes(rows.shape[1], players)
    bad = []
    for i, row in enumerate(rows):
        deal = split(row, sizes)
        compiled = batch.result(i)
        reference = play_reference(deal, rules, max_cards, max_tricks)
        if compiled != reference:
            bad.append(
                f"{format_deal(deal, rules)} ({rules.name}, max_cards={max_cards}, "
                f"max_tricks={max_tricks}):\n  compiled  {compiled}\n  reference {reference}"
            )
    return batch, bad


def report(bad: list[str]) -> str:
    return f"{len(bad)} deals disagree, first ones:\n" + "\n".join(bad[:5])


def counts(batch: BeggarBatch) -> dict[str, int]:
    found = np.bincount(batch.outcome, minlength=3)
    return {"win": int(found[0]), "cycle": int(found[1]), "limit": int(found[2])}


class Tracker:
    """Replays a game from the reference's ``on_trick`` events, independently of its loop.

    Starting from the deal, each trick removes the played cards from the top of each player's
    hand (checking they were there) and puts the pile, in the order played, under the taker's.
    ``states[t]`` is the state after ``t`` tricks (hands, who is to move), ``cards_at[t]`` the
    cards turned by then.
    """

    def __init__(self, deal: Deal) -> None:
        self.hands = [list(hand) for hand in deal.hands]
        self.total = len(deal.cards)
        self.states: list[tuple[int, tuple[tuple[int, ...], ...]]] = [(0, self._hands())]
        self.cards_at = [0]
        self.tricks: list[Trick] = []

    def _hands(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(hand) for hand in self.hands)

    def __call__(self, trick: Trick) -> None:
        self.tricks.append(trick)
        for seat, card in trick.plays:
            assert self.hands[seat], f"seat {seat} turned a card from an empty hand"
            assert self.hands[seat].pop(0) == card, "a card was turned that was not on top"
        assert trick.taker is not None, "a trick was reported without a taker"
        self.hands[trick.taker].extend(card for _, card in trick.plays)
        assert tuple(map(len, self.hands)) == trick.hand_sizes
        self.states.append((trick.taker, self._hands()))
        self.cards_at.append(self.cards_at[-1] + len(trick.plays))

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(map(len, self.hands))


# ---------------------------------------------------------------- published facts

def known_rows() -> list[dict[str, str]]:
    with KNOWN_DEALS.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize(
    "row", known_rows(), ids=lambda row: f"{row['finder']} {row['year']}".replace(" ", "_")
)
def test_known_deal_gives_its_published_result(row: dict[str, str]) -> None:
    rules = get_rules(row["rules"])
    deal = parse_deal(row["deal"], rules)  # published deals use the whole deck
    result = play(deal, rules)
    assert result.outcome == row["outcome"]
    assert (result.cards, result.tricks) == (int(row["cards"]), int(row["tricks"]))
    if row["winner"]:
        assert result.winner == int(row["winner"])
    if row["outcome"] == "cycle":
        assert result.winner is None
        for field in ("entry_cards", "entry_tricks", "period_cards", "period_tricks"):
            if row[field]:
                assert result.to_json()["cycle"][field] == int(row[field]), field
    else:
        assert not result.entry and not result.period
    assert play_reference(deal, rules) == result


def test_known_deals_file_covers_the_rules_facts() -> None:
    deals = {row["deal"] for row in known_rows()}
    assert {NESSLER_2022, RUCKLIDGE_2014, CASELLA, ITALIAN_CYCLE} <= deals


def test_longest_known_game_is_won_by_hand_2() -> None:
    assert play(NESSLER_2022) == BeggarResult.of("win", 2, 8344, 1164, (1,))


def test_rucklidge_2014() -> None:
    result = play(RUCKLIDGE_2014)
    assert (result.outcome, result.cards, result.tricks) == ("win", 7959, 1122)


def test_all_numerals_is_52_cards_and_one_trick() -> None:
    deal = parse_deal("-" * 26 + "/" + "-" * 26, deck="any")
    result = play(deal)
    assert (result.outcome, result.cards, result.tricks) == ("win", 52, 1)
    assert play_reference(deal) == result


def test_last_court_card_still_wins() -> None:
    result = play(LAST_COURT_WINS)
    assert (result.outcome, result.cards, result.tricks) == ("win", 372, 56)


def test_casella_cycle() -> None:
    result = play(CASELLA)
    assert result.outcome == "cycle" and result.winner is None
    assert (result.cards, result.tricks) == (474, 66)
    assert result.entry == {"cards": 34, "tricks": 4}
    assert result.period == {"cards": 440, "tricks": 62}


def test_italian_cycle_is_on_its_cycle_from_the_deal() -> None:
    result = play(ITALIAN_CYCLE, ITALIAN)
    assert (result.entry, result.period) == ({"cards": 0, "tricks": 0},
                                             {"cards": 546, "tricks": 84})


# ---------------------------------------------------------------- compiled vs reference

FULL_DECK_SETS = [
    # (name, rules, players, deals, seed)
    ("standard-2p", STANDARD, 2, 20_000, 101),
    ("standard-3p", STANDARD, 3, 5_000, 102),
    ("standard-4p", STANDARD, 4, 5_000, 103),
    ("italian-2p", ITALIAN, 2, 5_000, 104),
    ("italian-3p", ITALIAN, 3, 1_000, 105),
    ("italian-4p", ITALIAN, 4, 1_000, 106),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "rules", "players", "n", "seed"), FULL_DECK_SETS,
                         ids=[s[0] for s in FULL_DECK_SETS])
def test_compiled_agrees_with_reference_full_decks(
    name: str, rules: Rules, players: int, n: int, seed: int
) -> None:
    rows = shuffled(np.random.default_rng(seed), rules.deck, n)
    batch, bad = disagreements(rows, rules, players)
    assert not bad, report(bad)
    assert len(batch) == n


# Small decks: the ones of the brief, plus class mixes where random deals often never end.
SMALL_DECKS = [
    (base.with_deck(deck), deck)
    for base, deck in [
        (STANDARD, (6, 1, 1, 1, 1)),
        (STANDARD, (8, 1, 2, 1, 1)),
        (STANDARD, (6, 2, 1, 1, 1)),
        (STANDARD, (8, 2, 0, 0, 0)),
        (STANDARD, (10, 1, 1, 0, 0)),
        (STANDARD, (10, 1, 0, 1, 0)),
        (STANDARD, (12, 0, 2, 0, 0)),
        (ITALIAN, (8, 2, 0, 0)),
        (ITALIAN, (10, 1, 1, 0)),
    ]
]


def small_deck_batches(seed: int, per_batch: int) -> Iterator[tuple[Rules, np.ndarray,
                                                                    int, tuple[int, ...] | None]]:
    """Seeded batches: every small deck, 2-4 players, dealt evenly and in unequal hands."""
    rng = np.random.default_rng(seed)
    for rules, deck in SMALL_DECKS:
        n_cards = sum(deck)
        for players in (2, 3, 4):
            splits: list[tuple[int, ...] | None] = [None]
            splits += [random_sizes(rng, n_cards, players) for _ in range(3)]
            for sizes in splits:
                yield rules, shuffled(rng, deck, per_batch), players, sizes


def test_compiled_agrees_with_reference_small_and_unequal_decks() -> None:
    seen = {"win": 0, "cycle": 0, "limit": 0}
    total = 0
    for rules, rows, players, sizes in small_deck_batches(seed=201, per_batch=60):
        batch, bad = disagreements(rows, rules, players, sizes)
        assert not bad, report(bad)
        for key, value in counts(batch).items():
            seen[key] += value
        total += len(rows)
    assert total >= 5_000
    assert seen["cycle"] >= 100, seen  # the cycle detector's replay path is exercised
    assert seen["limit"] == 0


def test_compiled_agrees_with_reference_small_decks_with_limits() -> None:
    rng = np.random.default_rng(202)
    seen = {"win": 0, "cycle": 0, "limit": 0}
    for rules, rows, players, sizes in small_deck_batches(seed=203, per_batch=25):
        # Limits around the length of small games: some games end first, some cycle first.
        max_cards = int(rng.integers(5, 120)) if rng.random() < 0.6 else None
        max_tricks = int(rng.integers(1, 25)) if max_cards is None or rng.random() < 0.3 else None
        batch, bad = disagreements(rows, rules, players, sizes, max_cards, max_tricks)
        assert not bad, report(bad)
        for key, value in counts(batch).items():
            seen[key] += value
    assert min(seen.values()) >= 50, seen


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_agrees_with_reference_with_limits(players: int) -> None:
    rng = np.random.default_rng(300 + players)
    seen = {"win": 0, "cycle": 0, "limit": 0}
    for _ in range(20):
        rows = shuffled(rng, STANDARD.deck, 100)
        max_cards = int(rng.integers(1, 600)) if rng.random() < 0.5 else None
        max_tricks = int(rng.integers(1, 80)) if max_cards is None or rng.random() < 0.3 else None
        batch, bad = disagreements(rows, STANDARD, players, None, max_cards, max_tricks)
        assert not bad, report(bad)
        for key, value in counts(batch).items():
            seen[key] += value
    assert seen["limit"] >= 100 and seen["win"] >= 100, seen


def test_compiled_agrees_with_reference_64_cards_and_8_classes() -> None:
    """Full 64-card hands and piles and class 7 (every bit-plane set) in the compiled loop."""
    rng = np.random.default_rng(401)
    cases = [
        (STANDARD, (48, 4, 4, 4, 4)),
        (STANDARD, (60, 1, 1, 1, 1)),
        (STANDARD, (62, 2, 0, 0, 0)),  # these two often never end
        (STANDARD, (62, 1, 1, 0, 0)),
        (EIGHT_CLASSES, EIGHT_CLASSES.deck),
        (EIGHT_CLASSES, (62, 0, 0, 0, 0, 0, 0, 2)),
    ]
    cycles = 0
    for rules, deck in cases:
        assert sum(deck) == 64
        for players in (2, 3, 4):
            for sizes in (None, random_sizes(rng, 64, players)):
                rows = shuffled(rng, deck, 100)
                batch, bad = disagreements(rows, rules, players, sizes)
                assert not bad, report(bad)
                cycles += counts(batch)["cycle"]
                _, bad = disagreements(rows[:30], rules, players, sizes, max_tricks=15)
                assert not bad, report(bad)
    assert cycles >= 50, cycles


def test_compiled_agrees_with_reference_on_every_deal_of_a_tiny_deck() -> None:
    deck = (4, 1, 1, 1, 1)
    cards = [cls for cls, n in enumerate(deck) for _ in range(n)]
    rows = np.array(sorted(set(itertools.permutations(cards))), dtype=np.uint8)
    assert len(rows) == 1680
    for players in (2, 3, 4):
        for sizes in itertools.product(range(1, 8), repeat=players):
            if sum(sizes) == len(cards):
                _, bad = disagreements(rows, STANDARD, players, sizes)
                assert not bad, report(bad)


# ---------------------------------------------------------------- properties (hypothesis)

PROPERTY_DECKS = [*SMALL_DECKS, (STANDARD, STANDARD.deck), (ITALIAN, ITALIAN.deck)]


@st.composite
def games(draw: st.DrawFn, decks: list[tuple[Rules, tuple[int, ...]]] = PROPERTY_DECKS
          ) -> tuple[Rules, Deal]:
    """Rules and a deal of one of ``decks``: any order, 2-4 players, any non-empty hands."""
    rules, deck = draw(st.sampled_from(decks))
    cards = draw(st.permutations([cls for cls, n in enumerate(deck) for _ in range(n)]))
    players = draw(st.integers(2, 4))
    if draw(st.booleans()):
        sizes = Rules.deal_sizes(len(cards), players)
    else:
        cuts = sorted(draw(st.lists(st.integers(1, len(cards) - 1), min_size=players - 1,
                                    max_size=players - 1, unique=True)))
        sizes = tuple(b - a for a, b in itertools.pairwise([0, *cuts, len(cards)]))
    deal = split(cards, sizes)
    note(f"deal {format_deal(deal, rules)} under {rules.name} rules, deck {deck}")
    return rules, deal


limits = st.tuples(st.none() | st.integers(1, 300), st.none() | st.integers(1, 60)).filter(
    lambda lim: lim != (None, None)
)


@settings(max_examples=300, deadline=None)
@given(game=games(), limit=st.none() | limits)
def test_cards_are_conserved_at_every_trick(
    game: tuple[Rules, Deal], limit: tuple[int | None, int | None] | None
) -> None:
    rules, deal = game
    max_cards, max_tricks = limit or (None, None)
    tracker = Tracker(deal)
    result = play_reference(deal, rules, max_cards, max_tricks, on_trick=tracker)
    for trick in tracker.tricks:
        assert trick.taker is not None
        assert sum(trick.hand_sizes) == tracker.total
    # Every turned card is in exactly one trick; every taken pile is a counted trick.
    assert len(tracker.tricks) == result.tricks
    assert tracker.cards_at[-1] == result.cards
    assert play(deal, rules, max_cards, max_tricks) == result


def check_cycle(deal: Deal, rules: Rules, result: BeggarResult) -> None:
    """The reported cycle is real: the state after the entry comes back after one period,
    no state repeats earlier, and a limit at the repeat stops the game at the same counts."""
    assert result.outcome == "cycle" and result.winner is None
    assert result.period["tricks"] >= 1 and result.period["cards"] >= 1
    assert (result.cards, result.tricks) == (result.entry["cards"] + result.period["cards"],
                                             result.entry["tricks"] + result.period["tricks"])
    tracker = Tracker(deal)
    play_reference(deal, rules, on_trick=tracker)
    entry, repeat = result.entry["tricks"], result.tricks
    assert len(tracker.states) == repeat + 1
    assert tracker.states[entry] == tracker.states[repeat]
    assert len(set(tracker.states[:repeat])) == repeat, "an earlier state already repeated"
    assert tracker.cards_at[entry] == result.entry["cards"]
    assert tracker.cards_at[repeat] == result.cards
    for limited in (play(deal, rules, max_tricks=repeat),
                    play_reference(deal, rules, max_tricks=repeat),
                    play(deal, rules, max_cards=result.cards)):
        assert limited.outcome == "limit"
        assert (limited.cards, limited.tricks) == (result.cards, result.tricks)


CYCLE_RICH_DECKS = [(r, d) for r, d in SMALL_DECKS if sum(d[1:]) <= 2]


@settings(max_examples=300, deadline=None)
@given(game=games(CYCLE_RICH_DECKS))
def test_a_reported_cycle_really_repeats(game: tuple[Rules, Deal]) -> None:
    rules, deal = game
    result = play(deal, rules)
    event(result.outcome)
    assert play_reference(deal, rules) == result
    if result.outcome == "cycle":
        check_cycle(deal, rules, result)
    else:
        assert not result.period and result.winner is not None


def test_seeded_cycles_really_repeat() -> None:
    """The hypothesis test may draw few cycles; these seeded ones are always checked."""
    check_cycle(parse_deal(CASELLA), STANDARD, play(CASELLA))
    check_cycle(parse_deal(ITALIAN_CYCLE, ITALIAN), ITALIAN, play(ITALIAN_CYCLE, ITALIAN))
    checked = {2: 0, 3: 0, 4: 0}
    for rules, rows, players, sizes in small_deck_batches(seed=501, per_batch=40):
        batch = play_batch(rows, rules, players, sizes)
        for i in np.flatnonzero(batch.outcome == 1)[:3]:
            deal = split(rows[i], sizes or Rules.deal_sizes(rows.shape[1], players))
            check_cycle(deal, rules, batch.result(int(i)))
            checked[players] += 1
    assert min(checked.values()) >= 10, checked


def most_cards(sizes: tuple[int, ...]) -> int | None:
    most = max(sizes)
    return sizes.index(most) + 1 if sizes.count(most) == 1 else None


@settings(max_examples=300, deadline=None)
@given(game=games(), limit=limits)
def test_limited_game_ends_at_the_first_trick_past_the_limit(
    game: tuple[Rules, Deal], limit: tuple[int | None, int | None]
) -> None:
    rules, deal = game
    max_cards, max_tricks = limit

    def reached(cards: int, tricks: int) -> bool:
        return (max_cards is not None and cards >= max_cards) or (
            max_tricks is not None and tricks >= max_tricks
        )

    tracker = Tracker(deal)
    result = play_reference(deal, rules, max_cards, max_tricks, on_trick=tracker)
    assert play(deal, rules, max_cards, max_tricks) == result
    if result.outcome == "limit":
        assert not result.period
        assert reached(result.cards, result.tricks)
        assert not reached(tracker.cards_at[-2], result.tricks - 1), "played past the limit"
        assert result.winner == most_cards(tracker.sizes)
        unlimited = play(deal, rules)
        assert unlimited.cards >= result.cards and unlimited.tricks >= result.tricks
    else:
        assert play(deal, rules) == result, "a limit that was not reached changed the game"


@settings(max_examples=300, deadline=None)
@given(game=games(), limit=limits)
def test_limited_game_never_reports_a_win_by_exhaustion(
    game: tuple[Rules, Deal], limit: tuple[int | None, int | None]
) -> None:
    """docs/games/beggar.md, [Play]: once the limit is reached, the game ends when the pile in play
    is taken;
    "report it as limited, never as a win by exhaustion".

    The limit is reached once ``max_cards`` cards have been turned, or once ``max_tricks``
    piles have been taken at trick boundaries. The pile a last player standing takes after the
    others ran out is counted as a trick but comes after the game was decided, so it alone
    does not reach the trick limit.
    """
    rules, deal = game
    max_cards, max_tricks = limit
    tracker = Tracker(deal)
    result = play_reference(deal, rules, max_cards, max_tricks, on_trick=tracker)
    assert play(deal, rules, max_cards, max_tricks) == result
    last_out = result.out[-1] - 1 if result.out else None
    taken_after_the_end = bool(
        result.outcome == "win" and tracker.tricks and last_out in tracker.tricks[-1].went_out
    )
    boundary_tricks = result.tricks - taken_after_the_end
    if (max_cards is not None and result.cards >= max_cards) or (
        max_tricks is not None and boundary_tricks >= max_tricks
    ):
        assert result.outcome == "limit", result
        assert result.winner == most_cards(tracker.sizes)


@pytest.mark.parametrize(
    ("text", "max_cards"),
    [
        ("J-/-", 1),  # the J reaches the limit; taking its pile gives hand 1 every card
        ("A/-", 1),  # the A reaches the limit; hand 2 runs out paying, hand 1 takes the pile
    ],
)
def test_limit_reached_before_the_game_ends_is_reported_as_limit(
    text: str, max_cards: int
) -> None:
    deal = parse_deal(text, deck="any")
    for result in (play(deal, max_cards=max_cards),
                   play_reference(deal, max_cards=max_cards)):
        assert (result.outcome, result.winner) == ("limit", 1), result


@settings(max_examples=200, deadline=None)
@given(game=games())
def test_who_went_out_and_who_won(game: tuple[Rules, Deal]) -> None:
    rules, deal = game
    result = play(deal, rules)
    seats = set(range(1, deal.players + 1))
    assert len(set(result.out)) == len(result.out) and set(result.out) <= seats
    if result.outcome == "win":
        assert result.winner not in result.out
        assert set(result.out) | {result.winner} == seats
    else:
        assert result.winner is None and len(result.out) <= deal.players - 2


# ---------------------------------------------------------------- play_batch input checks

ROWS = np.zeros((2, 52), dtype=np.uint8)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"deals": np.zeros(52, dtype=np.uint8)},
         "deals must be a 2-D array (one deal a row), not 1-D"),
        ({"deals": np.zeros((1, 2, 52), dtype=np.uint8)},
         "deals must be a 2-D array (one deal a row), not 3-D"),
        ({"deals": ROWS, "players": 1}, "players must be 2 to 4, not 1"),
        ({"deals": ROWS, "players": 5}, "players must be 2 to 4, not 5"),
        ({"deals": ROWS, "hand_sizes": (26, 25)},
         "hand sizes (26, 25) do not split 52 cards into 2 hands"),
        ({"deals": ROWS, "hand_sizes": (52, 0)},
         "hand sizes (52, 0) do not split 52 cards into 2 hands"),
        ({"deals": ROWS, "hand_sizes": (20, 20, 12)},
         "hand sizes (20, 20, 12) do not split 52 cards into 2 hands"),
        ({"deals": ROWS, "players": 3, "hand_sizes": (53, -1, 0)},
         "hand sizes (53, -1, 0) do not split 52 cards into 3 hands"),
        ({"deals": np.zeros((1, 1), dtype=np.uint8)},
         "hand sizes (1, 0) do not split 1 cards into 2 hands"),
        ({"deals": np.zeros((1, 65_536), dtype=np.uint8)},
         "65536 cards: a deal holds at most 65535"),
        ({"deals": np.full((1, 52), 5, dtype=np.uint8)},
         "card class 5 is not in the standard rules"),
        ({"deals": np.full((1, 40), 4, dtype=np.uint8), "rules": ITALIAN},
         "card class 4 is not in the italian rules"),
        ({"deals": ROWS, "max_cards": 0}, "max_cards must be a positive whole number, not 0"),
        ({"deals": ROWS, "max_cards": -5}, "max_cards must be a positive whole number, not -5"),
        ({"deals": ROWS, "max_tricks": 1.5},
         "max_tricks must be a positive whole number, not 1.5"),
        ({"deals": ROWS, "max_tricks": "10"},
         "max_tricks must be a positive whole number, not '10'"),
    ],
)
def test_play_batch_rejects_bad_input(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        play_batch(**kwargs)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_play_rejects_bad_text() -> None:
    with pytest.raises(DealError, match="unknown card"):
        play("--X/--")


# ---------------------------------------------------------------- the API

def test_play_takes_text_or_a_deal() -> None:
    assert play(CASELLA) == play(parse_deal(CASELLA))
    assert play(ITALIAN_CYCLE, ITALIAN) == play(parse_deal(ITALIAN_CYCLE, ITALIAN), ITALIAN)
    # Text may be any cards of the variant: play() does not demand the whole deck.
    partial = "K10Q/2A3J"
    assert play(partial) == play(parse_deal(partial, deck="any"))
    assert play(partial) == play_reference(parse_deal(partial, deck="any"))
    assert play(CASELLA, max_tricks=10) == play_reference(parse_deal(CASELLA), max_tricks=10)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_batch_result_arrays(players: int) -> None:
    rows = shuffled(np.random.default_rng(600 + players), STANDARD.deck, 50)
    batch = play_batch(rows, players=players, max_tricks=150)
    assert len(batch) == 50
    for name, dtype, shape in [
        ("outcome", np.uint8, (50,)),
        ("winner", np.int8, (50,)),
        ("cards", np.int64, (50,)),
        ("tricks", np.int64, (50,)),
        ("out", np.int8, (50, players)),
        ("measures", np.int64, (50, 2)),
        ("entry", np.int64, (50, 2)),
        ("period", np.int64, (50, 2)),
    ]:
        array = getattr(batch, name)
        assert array.dtype == dtype, name
        assert array.shape == shape, name
    assert set(batch.outcome.tolist()) <= {0, 1, 2}
    assert ((batch.winner >= 0) & (batch.winner <= players)).all()
    assert ((batch.out >= 0) & (batch.out <= players)).all()
    # Out columns are filled from the left and 0-padded.
    filled = batch.out > 0
    assert (filled[:, :-1] | ~filled[:, 1:]).all()
    for i in range(len(batch)):
        result = batch.result(i)
        assert isinstance(result, BeggarResult)
        assert result.winner == (int(batch.winner[i]) or None)
        assert (batch.period[i] == 0).all() == (not result.period)


def test_play_batch_accepts_lists_and_empty_batches() -> None:
    rows = shuffled(np.random.default_rng(7), STANDARD.deck, 3)
    from_list = play_batch(rows.tolist())
    from_array = play_batch(rows)
    assert [from_list.result(i) for i in range(3)] == [from_array.result(i) for i in range(3)]
    empty = play_batch(np.zeros((0, 52), dtype=np.uint8))
    assert len(empty) == 0 and empty.out.shape == (0, 2) and empty.period.shape == (0, 2)


def test_play_batch_default_hand_sizes_deal_hand_1_first() -> None:
    rows = shuffled(np.random.default_rng(8), STANDARD.deck, 200)
    default = play_batch(rows, players=3)
    explicit = play_batch(rows, players=3, hand_sizes=(18, 17, 17))
    for i in range(len(rows)):
        assert default.result(i) == explicit.result(i)


@pytest.mark.parametrize("players", [3, 4])
def test_out_order_matches_the_reference(players: int) -> None:
    rows = shuffled(np.random.default_rng(700 + players), STANDARD.deck, 1_000)
    batch = play_batch(rows, players=players)
    sizes = Rules.deal_sizes(52, players)
    unsorted = 0
    for i in range(len(rows)):
        result = batch.result(i)
        reference = play_reference(split(rows[i], sizes))
        assert result.out == reference.out, format_deal(split(rows[i], sizes))
        unsorted += list(result.out) != sorted(result.out)
    assert unsorted >= 50  # players do not simply go out in seat order
