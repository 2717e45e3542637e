"""Exhaustive search: every distinct deal of a block of ranks, sharded by rank.

The deals are the distinct deals of the game's layout (:mod:`.distinct`): fixed segments keep
their cards, an unordered segment is played once per content; without either, they are the
distinct orderings of the deck (a multiset) in lexicographic order of the card codes. A
search covers the ranks ``[START, END)`` it is given (default: all), in shards; unranking a
task's first deal makes every task independent of the others, and each next deal is the
previous one stepped to the next ordering (a game's block player, or
:meth:`DistinctDeals.block`). On ``--device gpu`` (or ``emulate``) a game's device block player
plays the tasks (:func:`~dealsearch.search.device.play_block_on_device`), for the same
report. :mod:`dealsearch.orderings` numbers the orderings of a plain multiset.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ..game import GameResult, finished, specialised_block_player
from ..strategies import StrategyDefaults, register_strategy
from .base import MAX_FINDS, NumberedSearch, Report, Task, add_batch, compact, results_of
from .device import play_block_on_device
from .distinct import DistinctDeals, numbering
from .spec import SearchSpec

# Deals: about a month on 100 cores at BMN's speed. An exhaustive search of more needs a part
# of the space to search (ranks, deals or time).
MAX_EXHAUSTIVE = 10**13
MAX_SHARD = 50_000   # deals: a shard; a task is a run of shards, sized by the workers' speed
GPU_MAX_UNITS = 16_384  # shards a GPU task may take: under 2 s at 5 * 10^8 deals/s
BATCH = 10_000       # rows played at once by a game's batch player


class EndlessSpace(ValueError):
    """An exhaustive search of a whole space too big to finish, with no part named."""

    def __init__(self, total: int, projection: str = "") -> None:
        self.total = total
        super().__init__(f"an exhaustive search of all {total:.3g} deals would never end"
                         f"{projection}: give --ranks START:END, --deals N or --time T to "
                         f"search part of it")


def block(spec: SearchSpec) -> tuple[int, int] | None:
    """The ranks ``[START, END)`` an exhaustive spec asks for (None: every deal)."""
    ranks = spec.settings.get("ranks")
    return None if ranks is None else (ranks[0], ranks[1])


@register_strategy
class ExhaustiveSearch(StrategyDefaults, NumberedSearch):
    """Hands out runs of shards of ranks until every deal of the block has been played.

    The block is the spec's ranks (default: every deal of the layout), cut short by a deal
    budget; shard ``k`` covers ranks ``first + k*size`` on, all shards one size but the
    last. The checkpoint names the ranks played, as ``[start, stop)`` spans.
    """

    name = "exhaustive"
    setting_names: ClassVar[tuple[str, ...]] = ("ranks", "verify_blocks")
    plays_every_deal = True
    not_random = "an exhaustive search plays every deal of its deck once, not random deals"

    def __init__(self, spec: SearchSpec, checkpoint: dict[str, Any]) -> None:
        self.spec = spec
        self.plays_twice = bool(spec.settings.get("verify_blocks"))
        self.first, end = block(spec) or (0, DistinctDeals(spec.layout).total)
        if spec.deals is not None:
            end = min(end, self.first + spec.deals)
        self.end = end
        self.total_deals = end - self.first
        # Enough shards to keep every worker busy, none so big that a find waits long.
        shards = max(spec.worker_count * 8, -(-self.total_deals // MAX_SHARD))
        self.shard_size = max(1, -(-self.total_deals // shards))
        super().__init__(-(-self.total_deals // self.shard_size), checkpoint)

    @property
    def task_deals(self) -> int:
        """Deals of one unit of work (a task is a run of shards)."""
        return self.shard_size

    @property
    def max_units(self) -> int | None:
        """The most shards a task may take, if not the runner's usual (a GPU needs long
        tasks to keep busy)."""
        return GPU_MAX_UNITS if self.spec.device == "gpu" else None

    def next_task(self, units: int = 1) -> Task | None:
        """The next run of at most ``units`` shards, or None when all are handed out."""
        taken = self.take_run(units, self.spec.device == "gpu")
        if taken is None:
            return None
        shard, count = taken
        start = self.first + shard * self.shard_size
        return Task(shard, {"start": start, "shard": self.shard_size,
                            "deals": min(count * self.shard_size, self.end - start)})

    def absorb(self, report: Report) -> list[Report]:
        """A run of shards is done (all full but perhaps the block's last)."""
        self.chunks.finish(report.key, max(1, -(-report.deals // self.shard_size)))
        return [report]

    @staticmethod
    def work(spec: SearchSpec, task: Task) -> Report:
        """Worker side: :func:`play_shard`."""
        return play_shard(spec, task)

    @classmethod
    def settle(cls, spec: SearchSpec) -> dict[str, Any]:
        """``ranks`` (a block ``[START, END)`` of the layout's ranks, default every deal) and
        ``verify_blocks`` (play each task twice and compare), checked: the space must be one
        the search can number, and small enough to finish unless a budget or ranks say which
        part to play."""
        cls.refuse_unknown(spec)
        ranks = spec.settings.get("ranks")
        verify = spec.settings.get("verify_blocks", False)
        if not isinstance(verify, bool):
            raise ValueError(f"verify-blocks must be true or false, not {verify!r}")
        if ranks is not None:
            ranks = tuple(ranks) if isinstance(ranks, list | tuple) else (ranks,)
            if (len(ranks) != 2 or not all(isinstance(r, int) and not isinstance(r, bool)
                                            for r in ranks) or not 0 <= ranks[0] < ranks[1]):
                raise ValueError(f"bad ranks {spec.settings['ranks']!r}: START:END, whole "
                                 "numbers with 0 <= START < END")
        total = numbering(spec.layout).total
        if ranks is not None and ranks[1] > total:
            raise ValueError(f"--ranks {ranks[0]}:{ranks[1]}: this layout has {total:,} deals, "
                             f"ranks 0 to {total - 1:,}")
        if total > MAX_EXHAUSTIVE and ranks is None and spec.deals is None and spec.time is None:
            raise EndlessSpace(total)
        return {"ranks": None if ranks is None else list(ranks), "verify_blocks": verify}

    def played(self) -> list[list[int]]:
        """The ranks played so far, as sorted ``[start, stop)`` spans.

        >>> from dealsearch.search.spec import SearchSpec
        >>> search = ExhaustiveSearch(SearchSpec("exhaustive", game="beggar", workers=1,
        ...     game_options=dict(deck="----JJQQK"), settings=dict(ranks=[100, 200])), {})
        >>> _ = search.absorb(Report(search.next_task(2).key, deals=2 * search.shard_size))
        >>> search.shard_size, search.played()
        (13, [[100, 126]])
        """
        done = self.chunks.checkpoint()
        shards = [[0, done["prefix"]]] if done["prefix"] else []
        shards += [[k, k + 1] for k in done["extra"]] + done.get("spans", [])
        spans: list[list[int]] = []
        for a, b in sorted(shards):
            start = self.first + a * self.shard_size
            stop = min(self.end, self.first + b * self.shard_size)
            if spans and spans[-1][1] == start:
                spans[-1][1] = stop
            else:
                spans.append([start, stop])
        return spans

    def checkpoint(self) -> dict[str, Any]:
        """The shards done, and the ranks they hold (for people and other tools)."""
        return {**super().checkpoint(), "ranks": self.played()}


def measure_rate(spec: SearchSpec, seconds: float = 0.5) -> float:
    """Deals per second one core plays of the spec's layout, measured on blocks taken across
    the space (the deals of low ranks are not typical), on the CPU whatever the spec's
    device."""
    total = DistinctDeals(spec.layout).total
    played, began = 0, time.perf_counter()
    for part in range(1, 9):
        size = 2_000 if played == 0 else max(1_000, int(played / (time.perf_counter() - began)
                                                         * seconds / 8))
        start = min(total * part // 9, max(0, total - size))
        played += play_shard_cpu(spec, Task(0, {"start": start, "deals": min(size, total)})
                                 ).deals
    return played / (time.perf_counter() - began)


def play_shard(spec: SearchSpec, task: Task) -> Report:
    """Play every deal of a run of shards; report every cycle and the longest games, each
    with its rank in the details. On the game's own block player where it has one; on the
    spec's device, the same report (its chunks: the task's shards)."""
    if spec.device != "cpu":
        return play_block_on_device(spec, task, task.payload["shard"], play_shard_cpu)
    return play_shard_cpu(spec, task)


def play_shard_cpu(spec: SearchSpec, task: Task) -> Report:
    """:func:`play_shard` on the CPU."""
    deals = DistinctDeals(spec.layout)
    player = (specialised_block_player(spec.plugin, spec.options, spec.objective or "")
              if deals.plain else None)
    if player is None:
        return _play_batches(spec, task, deals)
    game = spec.plugin
    report = Report.for_game(task.key, game)
    hists, widths = report.hist_args(game)
    start = task.payload["start"]
    stop = min(deals.total, start + task.payload["deals"])
    while start < stop:
        played, counts, totals, rows, _ = player.play(deals.row(start), stop - start,
                                                      MAX_FINDS, hists, widths)
        report.deals += played
        report.count(game, counts, totals)
        rows = np.asarray(rows)
        for row, found in zip(rows, results_of(spec, rows), strict=True):
            report.finds.append(_ranked(spec, row, found, deals.number(row)))
        start += played
    return report


def _ranked(spec: SearchSpec, row: npt.NDArray[np.uint8], result: GameResult, number: int
            ) -> tuple[str, GameResult]:
    """A find: the deal's text, and its result with its rank among the details."""
    return compact(row, spec), replace(result, details={**result.details, "rank": number})


def shard_blocks(deals: DistinctDeals, task: Task) -> Iterator[tuple[int, npt.NDArray[np.uint8]]]:
    """The deals of a task, in blocks of at most :data:`BATCH` rows, each with the rank of
    its first."""
    start, stop = task.payload["start"], task.payload["start"] + task.payload["deals"]
    while start < stop:
        block = deals.block(start, min(BATCH, stop - start))
        yield start, block
        start += len(block)


def _play_batches(spec: SearchSpec, task: Task, deals: DistinctDeals) -> Report:
    """:func:`play_shard` on the game's batch player: every cycle, and the longest game."""
    game, options = spec.plugin, spec.options
    report = Report.for_game(task.key, game)
    ended = [game.outcomes.index(o) for o in finished(game)]
    cycle = game.outcomes.index("cycle") if "cycle" in game.outcomes else -1
    objective = game.measures.index(spec.objective or game.measures[0])
    longest = None
    for first, block in shard_blocks(deals, task):
        batch = game.play_batch(block, options)
        add_batch(report, game, batch)
        for i in np.flatnonzero(batch.outcome == cycle):
            report.finds.append(_ranked(spec, block[i],
                                        game.batch_result(batch, int(i), block[i], options),
                                        first + int(i)))
        wins = np.flatnonzero(np.isin(batch.outcome, ended))
        if len(wins):
            lengths = batch.measures[wins, objective]
            best = int(wins[np.argmax(lengths)])
            if longest is None or lengths.max() > longest[0]:
                longest = (int(lengths.max()), _ranked(
                    spec, block[best], game.batch_result(batch, best, block[best], options),
                    first + best))
    if longest is not None:
        report.finds.append(longest[1])
    return report
