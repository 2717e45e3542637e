"""What every search strategy shares: tasks out, reports back, a checkpoint to resume from.

A strategy cuts its work into tasks small enough to finish in well under a second (so a find
reaches the log quickly), each fully determined by the spec and the task itself (so a task can
be run anywhere, and again after a crash). Workers run :func:`run_task`; only the coordinator
touches the strategy object and the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..game import (
    BatchResults,
    Game,
    GameResult,
    Layout,
    histogram,
    throughput_measure,
)
from .spec import SearchSpec

# Finds a compiled player (a sampler, a block player) returns per call: it stops there and
# says how many deals it played, and the caller calls again for the rest.
MAX_FINDS = 256


@dataclass(frozen=True)
class Task:
    """One piece of work: ``key`` names it in the checkpoint, ``payload`` carries its data."""

    key: int
    payload: dict[str, Any] = field(default_factory=dict)


def new_histograms(game: Game) -> dict[str, npt.NDArray[np.int64]]:
    """Empty length histograms, one per measure of the game, sized by
    :func:`~dealsearch.game.histogram`."""
    return {m: np.zeros(histogram(game, m)[1], dtype=np.int64) for m in game.measures}


def bin_widths(game: Game) -> dict[str, int]:
    """Bin width of each measure's histogram."""
    return {m: histogram(game, m)[0] for m in game.measures}


@dataclass
class Report:
    """What a worker sends back for a task.

    ``total`` sums the game's :func:`~dealsearch.game.throughput_measure`; ``outcomes``
    counts per outcome code.
    """

    key: int
    deals: int = 0
    total: int = 0
    outcomes: list[int] = field(default_factory=lambda: [0, 0, 0])
    # per measure (for_game sizes them; a report without them adds none)
    histograms: dict[str, npt.NDArray[np.int64]] = field(default_factory=dict)
    finds: list[tuple[str, GameResult]] = field(default_factory=list)  # (canonical text, result)
    state: dict[str, Any] | None = None     # a climber's state, to continue from
    notes: list[str] = field(default_factory=list)  # progress worth telling the user
    seconds: float = 0.0    # the worker's time on the task (sizes the next tasks)
    # deal -> (cycle key, cycle id) of each cycle find, named in the worker: naming replays
    # the game, work that would otherwise fall on the one coordinator
    cycles: dict[str, tuple[str, str]] = field(default_factory=dict)
    checked: int = 0        # a device's chunks replayed on the CPU and found equal

    @classmethod
    def for_game(cls, key: int, game: Game) -> Report:
        """An empty report with the game's outcomes and histograms."""
        return cls(key, outcomes=[0] * len(game.outcomes), histograms=new_histograms(game))

    def count(self, game: Game, counts: Sequence[int] | npt.NDArray[np.int64],
              totals: Sequence[int] | npt.NDArray[np.int64]) -> None:
        """Add per-outcome counts and per-measure totals (in the game's order)."""
        for code, n in enumerate(counts):
            self.outcomes[code] += int(n)
        self.total += int(totals[game.measures.index(throughput_measure(game))])

    def hist_args(self, game: Game) -> tuple[list[npt.NDArray[np.int64]], list[int]]:
        """The histograms and widths as the compiled loops take them."""
        return ([self.histograms[m] for m in game.measures],
                [histogram(game, m)[0] for m in game.measures])


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
        for start, stop in checkpoint.get("spans", ()):
            self.extra.update(range(start, stop))
        self.next = self.prefix

    def take(self) -> int | None:
        """The next chunk to hand out, or None when all are handed out."""
        while self.next in self.extra:
            self.next += 1
        if self.total is not None and self.next >= self.total:
            return None
        self.next += 1
        return self.next - 1

    def take_run(self, most: int) -> tuple[int, int] | None:
        """Up to ``most`` consecutive chunks not yet done, as (first, count); None when all
        are handed out. A run of chunks is the same work as its chunks one by one.

        >>> chunks = ChunkSet(10, {"prefix": 2, "extra": [5]})
        >>> chunks.take_run(4), chunks.take_run(4), chunks.take_run(9)
        ((2, 3), (6, 4), None)
        """
        first = self.take()
        if first is None:
            return None
        count = 1
        while count < most and self.next not in self.extra and (
                self.total is None or self.next < self.total):
            self.next += 1
            count += 1
        return first, count

    def finish(self, chunk: int, count: int = 1) -> None:
        """Mark ``chunk`` (and the ``count - 1`` after it) done."""
        if chunk == self.prefix and not self.extra:  # the usual case: in order
            self.prefix += count
            return
        self.extra.update(range(chunk, chunk + count))
        while self.prefix in self.extra:
            self.extra.remove(self.prefix)
            self.prefix += 1

    @property
    def all_done(self) -> bool:
        """Whether every chunk is done (never, without a total)."""
        return self.total is not None and self.prefix >= self.total

    def checkpoint(self) -> dict[str, Any]:
        """The state to resume from: single chunks done out of order in ``extra``, runs of
        them as [start, stop) in ``spans`` (a task may cover many chunks).

        >>> chunks = ChunkSet(None)
        >>> for chunk, count in ((3, 1), (6, 4), (12, 1)):
        ...     chunks.finish(chunk, count)
        >>> chunks.checkpoint()
        {'prefix': 0, 'extra': [3, 12], 'spans': [[6, 10]]}
        """
        singles: list[int] = []
        spans: list[list[int]] = []
        for chunk in sorted(self.extra):
            if spans and spans[-1][1] == chunk:
                spans[-1][1] += 1
            elif singles and singles[-1] == chunk - 1:
                spans.append([singles.pop(), chunk + 1])
            else:
                singles.append(chunk)
        state: dict[str, Any] = {"prefix": self.prefix, "extra": singles}
        if spans:
            state["spans"] = spans
        return state


class NumberedSearch:
    """A strategy whose work is numbered chunks (random blocks, exhaustive shards): it keeps
    which are done, and its checkpoint is that :class:`ChunkSet`."""

    def __init__(self, total_chunks: int | None, checkpoint: dict[str, Any]) -> None:
        self.chunks = ChunkSet(total_chunks, checkpoint.get("chunks"))

    def take_run(self, units: int, gpu: bool) -> tuple[int, int] | None:
        """Up to ``units`` consecutive chunks not yet done, as (first, count), or None when
        all are handed out; for a GPU a power of two of them, so that task sizes rarely
        change: a GPU plays the next task ahead, which serves only if it is the same size."""
        if gpu:
            units = 1 << (units.bit_length() - 1)
        return self.chunks.take_run(units)

    def absorb(self, report: Report) -> list[Report]:
        """A chunk is done."""
        self.chunks.finish(report.key)
        return [report]

    @property
    def finished(self) -> bool:
        """Whether every chunk is done."""
        return self.chunks.all_done

    def checkpoint(self) -> dict[str, Any]:
        """The state to resume from."""
        return {"chunks": self.chunks.checkpoint()}


def random_row(layout: Layout, rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """A uniformly random row: the deck shuffled, each fixed segment keeping its cards."""
    row = np.array(layout.deck, dtype=np.uint8)
    if not any(layout.fixed):
        return rng.permutation(row)
    free = np.concatenate([np.arange(a, b) for (a, b), fixed in
                           zip(layout.bounds(), layout.fixed, strict=True) if not fixed]
                          or [np.zeros(0, dtype=np.int64)])
    row[free] = rng.permutation(row[free])
    for (a, b), fixed in zip(layout.bounds(), layout.fixed, strict=True):
        if fixed:
            row[a:b] = rng.permutation(row[a:b])
    return row


def crossover(layout: Layout, first: npt.NDArray[np.uint8], second: npt.NDArray[np.uint8],
              rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """A child of two rows: ``first`` with a random stretch of ``second`` copied in (two-point
    crossover: a stretch keeps runs of cards, which is what a long game is made of), then made
    a deal of the layout again: in each part (the positions outside fixed segments, and each
    fixed segment) the cards it holds too many of, at random places outside the stretch where
    possible, become the cards it lacks, in random order.

    >>> layout = Layout((0, 0, 0, 1, 2), (5,))
    >>> child = crossover(layout, np.array([1, 2, 0, 0, 0], np.uint8),
    ...                   np.array([0, 0, 0, 2, 1], np.uint8), np.random.default_rng(3))
    >>> sorted(child.tolist()) == list(layout.deck)
    True
    """
    n = layout.n_cards
    start, stop = sorted(int(i) for i in rng.choice(n + 1, 2, replace=False))
    child = first.copy()
    child[start:stop] = second[start:stop]
    inside = np.zeros(n, dtype=bool)
    inside[start:stop] = True
    free = [i for (a, b), fixed in zip(layout.bounds(), layout.fixed, strict=True)
            if not fixed for i in range(a, b)]
    parts = [np.array(free, dtype=np.int64)] + [
        np.arange(a, b) for (a, b), fixed in zip(layout.bounds(), layout.fixed, strict=True)
        if fixed]
    for part in parts:
        want = np.bincount(first[part], minlength=256)   # the part's cards (first is a deal)
        have = np.bincount(child[part], minlength=256)
        surplus = have - want
        drop = []
        for i in sorted(rng.permutation(part), key=lambda i: inside[i]):  # outside first
            if surplus[child[i]] > 0:
                surplus[child[i]] -= 1
                drop.append(i)
        child[drop] = rng.permutation(np.repeat(np.arange(256), np.maximum(want - have, 0)))
    return child


def results_of(spec: SearchSpec, rows: npt.NDArray[np.uint8]) -> list[GameResult]:
    """Full results (details included) of a few rows, played again by the game's batch."""
    if not len(rows):
        return []
    batch = spec.plugin.play_batch(rows, spec.options)
    return [spec.plugin.batch_result(batch, i, rows[i], spec.options) for i in range(len(rows))]


def add_batch(report: Report, game: Game, batch: BatchResults) -> None:
    """Count a batch of played rows into ``report``."""
    report.deals += len(batch)
    counts = np.bincount(batch.outcome, minlength=len(game.outcomes))
    report.count(game, counts, batch.measures.sum(axis=0))
    for m, measure in enumerate(game.measures):
        width, bins = histogram(game, measure)
        report.histograms[measure] += np.bincount(
            np.minimum(batch.measures[:, m] // width, bins - 1), minlength=bins)


def compact(row: npt.NDArray[np.uint8], spec: SearchSpec) -> str:
    """A row in the game's canonical text under the spec's options."""
    return spec.plugin.format(row, spec.options)


def score(result: GameResult, spec: SearchSpec) -> int:
    """How long a game is, by the spec's objective."""
    return int(result.measures[spec.objective or ""])
