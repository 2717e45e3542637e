"""Deals of any size: the ring engine (``_ring.pyx``) agrees with the reference to the card.

Deals of more than 64 cards play on rings, chosen by size; ``play_rows(..., rings=True)`` puts
smaller deals on rings too, so the two compiled engines can be held against each other on
every deal of a small deck (where cycles are common). Searches with a two-pack deck (104
cards) run end to end.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from dealsearch._permutations import permutation_block
from dealsearch.cli import main
from dealsearch.games.beggar import _engine, _lanes
from dealsearch.games.beggar.engine import play, play_batch
from dealsearch.games.beggar.notation import STANDARD, Deal, Rules, format_deal, parse_deal
from dealsearch.games.beggar.reference import play_reference
from dealsearch.orderings import count_deals, unrank

TWO_PACKS = "-" * 72 + "J" * 8 + "Q" * 8 + "K" * 8 + "A" * 8


def split(row: np.ndarray, sizes: tuple[int, ...]) -> Deal:
    cards = [int(c) for c in row]
    bounds = list(itertools.accumulate(sizes, initial=0))
    return Deal(tuple(tuple(cards[a:b]) for a, b in itertools.pairwise(bounds)))


def decks(n_cards: int) -> list[tuple[int, ...]]:
    """A deck of ``n_cards`` with the standard court cards (two packs' worth from 104 on), and
    one with a single jack and queen."""
    packs = 2 if n_cards >= 104 else 1
    return [(n_cards - 16 * packs, *(4 * packs,) * 4), (n_cards - 2, 1, 1, 0, 0)]


# Decks of each size with few court cards, where games that never end are common enough to
# find by dealing (at 361 cards, about 1 deal in 300).
CYCLING = {63: (61, 1, 1, 0, 0), 64: (62, 1, 1, 0, 0), 65: (63, 1, 1, 0, 0),
           104: (102, 1, 1, 0, 0), 361: (358, 3, 0, 0, 0)}


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("n_cards", [63, 64, 65, 104, 361])
def test_compiled_agrees_with_reference(n_cards: int, players: int) -> None:
    rng = np.random.default_rng(1000 * n_cards + players)
    sizes = Rules.deal_sizes(n_cards, players)
    seen = set()
    for deck in decks(n_cards):
        rules = STANDARD.with_deck(deck)
        base = np.repeat(np.arange(5, dtype=np.uint8), deck)
        rows = rng.permuted(np.tile(base, (8, 1)), axis=1)
        for max_cards, max_tricks in ((None, None), (3 * n_cards, None), (None, 12)):
            batch = play_batch(rows, rules, players, None, max_cards, max_tricks)
            for i, row in enumerate(rows):
                reference = play_reference(split(row, sizes), rules, max_cards, max_tricks)
                assert batch.result(i) == reference, (
                    f"{format_deal(split(row, sizes))} max_cards={max_cards} "
                    f"max_tricks={max_tricks}")
                seen.add(reference.outcome)
    assert {"win", "limit"} <= seen, "the deals should reach both outcomes"


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("n_cards", sorted(CYCLING))
def test_cycles_agree_with_reference(n_cards: int, players: int) -> None:
    """Deals that never end, found by the compiled random player: entry and period exact, and
    a limit before the cycle is noticed (the reference stores every state) is a limit."""
    deck = CYCLING[n_cards]
    rules = STANDARD.with_deck(deck)
    sizes = Rules.deal_sizes(n_cards, players)
    player = _lanes.RandomPlayer(deck, sizes, STANDARD.payments, 1, players)
    _, _, _, rows, results = player.play(3_000, max_finds=64)
    rows = rows[results[:, 0] == 1][:3]
    assert len(rows), "the deck should give cycles"
    for limits in ((None, None), (None, 3)):
        batch = play_batch(rows, rules, players, None, *limits)
        for i, row in enumerate(rows):
            reference = play_reference(split(row, sizes), rules, *limits)
            assert batch.result(i) == reference, format_deal(split(row, sizes))
            assert reference.outcome in (("cycle",) if limits[1] is None else ("cycle", "limit"))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rings_and_bit_planes_agree_on_every_deal_of_a_small_deck(players: int) -> None:
    deck = (6, 2, 2, 1, 0)          # ------JJQQK: 13,860 deals, dozens of them cycle
    rows = permutation_block(np.array(unrank(0, deck), dtype=np.uint8), count_deals(deck))
    sizes = Rules.deal_sizes(11, players)
    for limits, outcome in (((None, None), 1), ((30, None), 2), ((None, 5), 2)):
        planes = _engine.play_rows(rows, sizes, STANDARD.payments, *limits)
        rings = _engine.play_rows(rows, sizes, STANDARD.payments, *limits, rings=True)
        assert (planes[0] == outcome).any(), "cycles (limits) should occur"
        for name, a, b in zip(("outcome", "winner", "cards", "tricks", "out", "cycle"),
                              planes, rings, strict=True):
            assert (a == b).all(), f"{name} differs with limits {limits}"


def test_the_361_card_exercise_deal() -> None:
    """182 + 179 cards: hand 2's last card, an ace, is paid with hand 1's last three numerals,
    so every card is turned and the game is one trick long."""
    deal = parse_deal("-" * 182 + "/" + "-" * 178 + "A", deck="any")
    result = play(deal)
    assert result == play_reference(deal)
    assert (result.cards, result.tricks, result.winner) == (361, 1, 2)


def test_a_ring_cycle_really_repeats() -> None:
    """A cycle found at 65 cards: after entry + period cards the state is the same again."""
    deck = (63, 1, 1, 0, 0)
    rows = _engine.random_rows(deck, 50, 3)
    batch = play_batch(rows, STANDARD.with_deck(deck), 3)
    cycles = np.flatnonzero(batch.outcome == 1)
    assert len(cycles)
    for i in cycles[:5]:
        result = batch.result(int(i))
        entry, period = result.entry, result.period
        assert result.outcome == "cycle"
        deal = split(rows[i], Rules.deal_sizes(65, 3))
        # the limit at the entry and at one period later stops on the same trick boundary
        early = play_reference(deal, STANDARD.with_deck(deck), max_tricks=entry["tricks"])
        late = play_reference(deal, STANDARD.with_deck(deck),
                              max_tricks=entry["tricks"] + period["tricks"])
        assert late.cards - early.cards == period["cards"]


@pytest.mark.parametrize("strategy", ["random", "climb"])
def test_a_two_pack_search_runs_and_its_finds_replay(capsys, tmp_path, strategy: str) -> None:
    assert main(["search", strategy, "--deck", TWO_PACKS, "--players", "4", "--deals", "3000",
                 "--workers", "1", "--seed", "3", "--json", "--quiet",
                 "--db", str(tmp_path / "log.sqlite")]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    finds, summary = lines[:-1], lines[-1]
    assert summary["deals"] == 3000 and finds
    rules = STANDARD.with_deck((72, 8, 8, 8, 8))
    for find in finds[-3:]:
        deal = parse_deal(find["deal"], rules)
        assert len(deal.cards) == 104 and deal.players == 4
        assert play_reference(deal, rules).cards == find["cards"]


def test_an_exhaustive_search_over_65_cards_matches_the_reference(capsys, tmp_path) -> None:
    deck = "-" * 63 + "JQ"      # 65 * 64 = 4,160 deals, most of them never end
    assert main(["search", "exhaustive", "--deck", deck, "--players", "2", "--workers", "1",
                 "--json", "--quiet", "--db", str(tmp_path / "log.sqlite")]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    rules = STANDARD.with_deck((63, 1, 1, 0, 0))
    rows = permutation_block(np.array(unrank(0, rules.deck), dtype=np.uint8), 4160)
    outcomes = [play_reference(split(row, (33, 32)), rules).outcome for row in rows[::13]]
    summary = lines[-1]
    assert summary["deals"] == 4160
    assert sum(summary["outcomes"].values()) == 4160
    # every 13th deal, by the reference: the search's counts must hold them
    assert outcomes.count("cycle") <= summary["outcomes"]["cycle"]
    assert {f["deal"] for f in lines[:-1] if f["outcome"] == "cycle"} >= {
        format_deal(split(row, (33, 32)), rules) for row, outcome
        in zip(rows[::13], outcomes, strict=True) if outcome == "cycle"}


EIGHT = STANDARD.__class__(
    name="eight", symbols=("-", "J", "Q", "K", "A", "B", "C", "D"),
    names=tuple((s, s + "s") for s in ("plain", "j", "q", "k", "a", "b", "c", "d")),
    payments=(0, 1, 2, 3, 4, 5, 6, 7), deck=(8,) * 8, ranks={})


def random_sizes(rng: np.random.Generator, n_cards: int, players: int) -> tuple[int, ...]:
    cuts = np.sort(rng.choice(np.arange(1, n_cards), size=players - 1, replace=False))
    return tuple(int(b - a) for a, b in itertools.pairwise([0, *cuts.tolist(), n_cards]))


def test_unequal_hands_and_eight_classes_agree_with_reference() -> None:
    """Random deck sizes over 64, random hand sizes, every payment of 1 to 7 cards."""
    rng = np.random.default_rng(8)
    for _ in range(40):
        n_cards, players = int(rng.integers(65, 200)), int(rng.integers(2, 5))
        row = rng.integers(0, 8, size=(1, n_cards), dtype=np.uint8)
        row[0, rng.random(n_cards) < 0.6] = 0      # mostly numerals, as in real decks
        sizes = random_sizes(rng, n_cards, players)
        rules = EIGHT.with_deck(tuple(np.bincount(row[0], minlength=8).tolist()))
        for limits in ((None, None), (None, 25)):
            compiled = play_batch(row, rules, players, sizes, *limits).result(0)
            assert compiled == play_reference(split(row[0], sizes), rules, *limits), sizes


def test_rings_and_bit_planes_agree_on_unequal_hands_and_eight_classes() -> None:
    rng = np.random.default_rng(9)
    rows = rng.integers(0, 8, size=(3000, 60), dtype=np.uint8)
    rows[rng.random(rows.shape) < 0.55] = 0
    for players in (2, 3, 4):
        sizes = random_sizes(rng, 60, players)
        for limits in ((None, None), (500, None)):
            planes = _engine.play_rows(rows, sizes, EIGHT.payments, *limits)
            rings = _engine.play_rows(rows, sizes, EIGHT.payments, *limits, rings=True)
            for a, b in zip(planes, rings, strict=True):
                assert (a == b).all(), (players, sizes, limits)
