"""Random search: uniformly random deals, dealt and played in compiled code.

Chunk ``k`` of a run plays the deals of PRNG stream ``(seed, k)``, so a run is reproducible for
a seed whatever the number of workers, and a resumed run replays only unreported chunks. A game
whose dealer is counter-based (BMN: deal ``j`` of chunk ``k`` is a function of the seed, ``k``
and ``j``) plays the same deals on any device (``--device``, :mod:`dealsearch.search.device`).

A game names its dealer (``random_dealer``) when it changes which deals a seed gives; the
checkpoint records it, and a run dealt by another dealer is not continued (its chunks left
would be other deals than the run began with: the run would no longer be its seed's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._kernel import Kernel
from ..errors import BadOption
from ..game import SearchSampler, finished, specialised_sampler
from ..strategies import StrategyDefaults, register_strategy
from ._generic import Sampler
from .base import MAX_FINDS, NumberedSearch, Report, Task, compact, results_of
from .device import play_on_device
from .spec import SearchSpec

CHUNK_DEALS = 100_000  # deals of stream (seed, k); a task plays a run of such chunks
GPU_MAX_UNITS = 16_384  # chunks a GPU task may take: under 2 s at 10^9 deals/s


@register_strategy
class RandomSearch(StrategyDefaults, NumberedSearch):
    """Hands out chunks of random deals until the deal budget is spent (or forever)."""

    name = "random"
    random_deals = True

    def __init__(self, spec: SearchSpec, checkpoint: dict[str, Any]) -> None:
        self.spec = spec
        super().__init__(None if spec.deals is None else -(-spec.deals // CHUNK_DEALS),
                         checkpoint)
        self.dealer = spec.plugin.random_dealer
        began = self.chunks.prefix or self.chunks.extra
        if began and checkpoint.get("dealer", "") != self.dealer:
            raise BadOption(f"this run was dealt by an earlier {spec.plugin.name} dealer, which "
                            f"this version no longer has (its seed now gives other deals): "
                            f"start a new run")

    def checkpoint(self) -> dict[str, Any]:
        """The chunks done, and the dealer that dealt them."""
        return {**super().checkpoint(), "dealer": self.dealer} if self.dealer else \
            super().checkpoint()

    @property
    def total_deals(self) -> int | None:
        """Deals the whole run will play, if bounded."""
        return self.spec.deals

    task_deals = CHUNK_DEALS   # deals of one unit of work (a task is a run of units)

    @property
    def max_units(self) -> int | None:
        """The most units a task may take, if not the runner's usual (a GPU needs long
        tasks to keep busy)."""
        return GPU_MAX_UNITS if self.spec.device == "gpu" else None

    def next_task(self, units: int = 1) -> Task | None:
        """The next run of at most ``units`` chunks, or None once the budget is handed out.

        Chunk ``k`` is always the deals of stream ``(seed, k)``, whichever task plays it: so
        tasks of any size play the same deals, and a resumed run the same chunks.
        """
        taken = self.take_run(units, self.spec.device == "gpu")
        if taken is None:
            return None
        first, count = taken
        size = count * CHUNK_DEALS
        if self.spec.deals is not None:
            size = min(size, self.spec.deals - first * CHUNK_DEALS)
        return Task(first, {"deals": size})

    def absorb(self, report: Report) -> list[Report]:
        """A run of chunks is done (all full but perhaps the budget's last)."""
        self.chunks.finish(report.key, max(1, -(-report.deals // CHUNK_DEALS)))
        return [report]

    @staticmethod
    def work(spec: SearchSpec, task: Task) -> Report:
        """Worker side: :func:`play_chunk`."""
        return play_chunk(spec, task)


def sampler(spec: SearchSpec, stream: int, best: int = 0) -> SearchSampler:
    """The game's own fast random player if it has one, else the generic compiled sampler."""
    game, options = spec.plugin, spec.options
    objective = spec.objective or game.measures[0]
    fast = specialised_sampler(game, options, spec.seed, stream, objective, best)
    if fast is not None:
        return fast
    layout = spec.layout
    kernel: Kernel = game.kernel(options)
    return Sampler(kernel, layout.deck, layout.segments, layout.unordered, layout.fixed,
                   spec.seed, stream, game.measures.index(objective), 0,
                   game.outcomes.index("cycle") if "cycle" in game.outcomes else -1,
                   len(game.outcomes), best,
                   [game.outcomes.index(o) for o in finished(game)])


def play_chunk(spec: SearchSpec, task: Task) -> Report:
    """Play a run of chunks of random deals; in each chunk keep each deal longer than all
    before it in the chunk, and every cycle (so a run of chunks finds what its chunks do).
    On the spec's device: the same report from any (:mod:`dealsearch.search.device`)."""
    if spec.device != "cpu":
        return play_on_device(spec, task, CHUNK_DEALS, play_chunk_cpu)
    return play_chunk_cpu(spec, task)


def play_chunk_cpu(spec: SearchSpec, task: Task) -> Report:
    """:func:`play_chunk` on the CPU."""
    game = spec.plugin
    report = Report.for_game(task.key, game)
    hists, widths = report.hist_args(game)
    left = task.payload["deals"]
    chunk = task.key
    while left:
        player = sampler(spec, chunk)
        remaining = min(left, CHUNK_DEALS)
        left -= remaining
        chunk += 1
        while remaining:
            played, counts, totals, rows, _ = player.play(remaining, MAX_FINDS, hists, widths)
            remaining -= played
            report.deals += played
            report.count(game, counts, totals)
            rows = np.asarray(rows)
            for row, found in zip(rows, results_of(spec, rows), strict=True):
                report.finds.append((compact(row, spec), found))
    return report
