"""The contract's cycle and limit properties catch the bugs they are there for: each is run on
a copy of a game with one bug planted in its compiled path (the reference left right), and
on the game itself, which passes."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from dealsearch.examples.war import War
from dealsearch.game import BatchResults, GameResult, Row
from dealsearch.games.beggar.game import BeggarGame
from dealsearch.games.durak.game import DurakGame
from dealsearch.games.spite.game import SpiteGame
from dealsearch.testing import (
    Subject,
    cycle_key_refuses_an_ending_deal,
    cycles_add_up,
    cycles_repeat_after_their_period,
    limits_cut_the_game,
    speed_table_agrees,
)

WAR_CYCLE = "02313100/22311203"     # never ends
BMN_CYCLE = "KQ---J/-Q-J-"          # enters its cycle after 2 tricks, 13 cards
SMALL_BMN = {"deck": "------JJQQK"}


def shifted(result: GameResult, measure: str, entry: int, repeat: int) -> GameResult:
    """A cycle's result with ``measure`` moved at the entry and at the first repeat."""
    if result.outcome != "cycle":
        return result
    entry_counts = {**result.entry, measure: result.entry[measure] + entry}
    counts = {**result.measures, measure: result.measures[measure] + repeat}
    return dataclasses.replace(result, measures=counts, entry=entry_counts,
                               period={m: counts[m] - entry_counts[m] for m in counts})


def shifted_batch(batch: BatchResults, cycle: int, column: int, entry: int,
                  repeat: int) -> BatchResults:
    """The same move in a batch: column ``column`` of every cycling row."""
    move = np.zeros_like(batch.entry)
    move[batch.outcome == cycle, column] = 1
    return dataclasses.replace(batch, measures=batch.measures + repeat * move,
                               entry=batch.entry + entry * move,
                               period=batch.period + (repeat - entry) * move)


class EntryOneCardLate(BeggarGame):
    """Counts the cycle's entry one card late (and so its period one card short): the counts
    still add up."""

    def play_batch(self, rows: npt.ArrayLike, options: Any) -> BatchResults:
        # BMN's batch_result reads the batch it is given, so the shift reaches it too.
        return shifted_batch(super().play_batch(rows, options), self.outcomes.index("cycle"),
                             0, 1, 0)


class RepeatOneRoundLate(War):
    """Reports the first repeat (and the entry) one round late: the period is right, the
    counts add up, the engine is consistent with itself; only its reference disagrees."""

    def play_batch(self, rows: npt.ArrayLike, options: Any) -> BatchResults:
        return shifted_batch(War().play_batch(rows, options), self.outcomes.index("cycle"),
                             0, 1, 1)

    def batch_result(self, batch: BatchResults, i: int, row: Row, options: Any) -> GameResult:
        return shifted(War().batch_result(batch, i, row, options), "rounds", 1, 1)


class LimitAsAWin(War):
    """Reports a game stopped by its limit as a win."""

    def play_batch(self, rows: npt.ArrayLike, options: Any) -> BatchResults:
        batch = War().play_batch(rows, options)
        outcome = batch.outcome.copy()
        outcome[outcome == self.outcomes.index("limit")] = self.outcomes.index("win")
        return dataclasses.replace(batch, outcome=outcome)


class KeysEveryDeal(DurakGame):
    """Gives a cycle key to a deal that ends."""

    def cycle_key(self, row: Row, options: Any) -> str:
        try:
            return super().cycle_key(row, options)
        except ValueError:
            return "hands=-/-; trump=H"


class ReferenceCountsACardMore(SpiteGame):
    """A reference that counts one card more than the engine."""

    def play_reference(self, row: Row, options: Any) -> GameResult:
        result = super().play_reference(row, options)
        return dataclasses.replace(result, measures={**result.measures,
                                                     "cards": result.measures["cards"] + 1})


def test_a_cycle_entered_one_card_late_is_caught_by_the_cut_at_its_entry() -> None:
    def subject(game: BeggarGame) -> Subject:
        return Subject(game, (SMALL_BMN,), ((SMALL_BMN, BMN_CYCLE),), rows=20)

    cycles_add_up(subject(EntryOneCardLate()))  # the counts still add up
    with pytest.raises(AssertionError, match=r"cut at max_cards=14: .* not the entry"):
        cycles_repeat_after_their_period(subject(EntryOneCardLate()))
    cycles_repeat_after_their_period(subject(BeggarGame()))


def test_a_repeat_reported_one_round_late_is_caught_by_the_reference_at_the_repeat() -> None:
    def subject(game: War) -> Subject:
        return Subject(game, ({},), (({}, WAR_CYCLE),), rows=20)

    cycles_add_up(subject(RepeatOneRoundLate()))
    with pytest.raises(AssertionError, match="not the repeat's"):
        cycles_repeat_after_their_period(subject(RepeatOneRoundLate()))
    cycles_repeat_after_their_period(subject(War()))


def test_a_limit_reported_as_a_win_is_caught() -> None:
    with pytest.raises(AssertionError, match=r"cut at max_rounds=\d+: win with .* not the limit"):
        limits_cut_the_game(Subject(LimitAsAWin(), ({},), rows=50))
    limits_cut_the_game(Subject(War(), ({},), rows=50))


def test_a_cycle_key_for_a_deal_that_ends_is_caught() -> None:
    with pytest.raises(AssertionError, match="ends, yet has the cycle key"):
        cycle_key_refuses_an_ending_deal(Subject(KeysEveryDeal(), ({},), rows=20))
    cycle_key_refuses_an_ending_deal(Subject(DurakGame(), ({},), rows=20))


def test_a_speed_table_with_mismatches_is_caught() -> None:
    with pytest.raises(AssertionError, match="the reference plays otherwise"):
        speed_table_agrees(Subject(ReferenceCountsACardMore()))
    speed_table_agrees(Subject(SpiteGame()))
