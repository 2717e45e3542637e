"""What every search strategy shares: tasks out, reports back, a checkpoint to resume from.

A strategy cuts its work into tasks small enough to finish in well under a second (so a find
reaches the log quickly), each fully determined by the spec and the task itself (so a task can
be run anywhere, and again after a crash). Workers run :func:`run_task`; only the coordinator
touches the strategy object and the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..deal import Deal
from ..engine import BatchResult
from ..notation import format_deal
from ..result import Result
from .spec import SearchSpec


@dataclass(frozen=True)
class Task:
    """One piece of work: ``key`` names it in the checkpoint, ``payload`` carries its data."""

    key: int
    payload: dict[str, Any] = field(default_factory=dict)


CARD_BIN = 10        # cards per bin of the length histogram
CARD_BINS = 2048     # the last bin takes every longer game
TRICK_BINS = 4096    # one trick per bin, the last takes every longer game
BIN_WIDTHS = {"cards": CARD_BIN, "tricks": 1}


def new_histograms() -> dict[str, npt.NDArray[np.int64]]:
    """Empty length histograms (cards, tricks) with the log's fixed bins."""
    return {"cards": np.zeros(CARD_BINS, dtype=np.int64),
            "tricks": np.zeros(TRICK_BINS, dtype=np.int64)}


@dataclass
class Report:
    """What a worker sends back for a task."""

    key: int
    deals: int = 0
    cards: int = 0
    outcomes: list[int] = field(default_factory=lambda: [0, 0, 0])
    histograms: dict[str, npt.NDArray[np.int64]] = field(default_factory=new_histograms)
    finds: list[tuple[str, Result]] = field(default_factory=list)  # (compact deal, result)
    state: dict[str, Any] | None = None     # a climber's state, to continue from
    notes: list[str] = field(default_factory=list)  # progress worth telling the user


class ChunkSet:
    """Which numbered chunks are done: a contiguous prefix plus the few finished out of order.

    Its checkpoint stays small however long the run, and a resumed run redoes only chunks that
    had not been reported.
    """

    def __init__(self, total: int | None, checkpoint: dict[str, Any] | None = None) -> None:
        checkpoint = checkpoint or {}
        self.total = total
        self.prefix = int(checkpoint.get("prefix", 0))
        self.extra = set(checkpoint.get("extra", ()))
        self.next = self.prefix

    def take(self) -> int | None:
        """The next chunk to hand out, or None when all are handed out."""
        while self.next in self.extra:
            self.next += 1
        if self.total is not None and self.next >= self.total:
            return None
        self.next += 1
        return self.next - 1

    def finish(self, chunk: int) -> None:
        """Mark ``chunk`` done."""
        self.extra.add(chunk)
        while self.prefix in self.extra:
            self.extra.remove(self.prefix)
            self.prefix += 1

    @property
    def all_done(self) -> bool:
        """Whether every chunk is done (never, without a total)."""
        return self.total is not None and self.prefix >= self.total

    def checkpoint(self) -> dict[str, Any]:
        """The state to resume from."""
        return {"prefix": self.prefix, "extra": sorted(self.extra)}


class NumberedSearch:
    """A strategy whose work is numbered chunks (random blocks, exhaustive shards): it keeps
    which are done, and its checkpoint is that :class:`ChunkSet`."""

    def __init__(self, total_chunks: int | None, checkpoint: dict[str, Any]) -> None:
        self.chunks = ChunkSet(total_chunks, checkpoint.get("chunks"))

    def absorb(self, report: Report) -> None:
        """A chunk is done."""
        self.chunks.finish(report.key)

    @property
    def finished(self) -> bool:
        """Whether every chunk is done."""
        return self.chunks.all_done

    def checkpoint(self) -> dict[str, Any]:
        """The state to resume from."""
        return {"chunks": self.chunks.checkpoint()}


def row_deal(row: npt.NDArray[np.uint8], sizes: tuple[int, ...]) -> Deal:
    """The deal of a row (hands concatenated, hand 1 first)."""
    cards = row.tolist()
    hands, start = [], 0
    for size in sizes:
        hands.append(tuple(cards[start:start + size]))
        start += size
    return Deal(tuple(hands))


def add_batch(report: Report, batch: BatchResult) -> None:
    """Count a batch of played deals into ``report``."""
    report.deals += len(batch)
    report.cards += int(batch.cards.sum())
    counts = np.bincount(batch.outcome, minlength=3)
    for code in range(3):
        report.outcomes[code] += int(counts[code])
    report.histograms["cards"] += np.bincount(
        np.minimum(batch.cards // CARD_BIN, CARD_BINS - 1), minlength=CARD_BINS)
    report.histograms["tricks"] += np.bincount(
        np.minimum(batch.tricks, TRICK_BINS - 1), minlength=TRICK_BINS)


def compact(row: npt.NDArray[np.uint8], spec: SearchSpec) -> str:
    """A row in compact notation under the spec's rules."""
    return format_deal(row_deal(row, spec.hand_sizes), spec.game_rules)


def score(result: Result, spec: SearchSpec) -> int:
    """How long a game is, by the spec's objective."""
    return result.tricks if spec.by_tricks else result.cards
