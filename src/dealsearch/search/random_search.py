"""Random search: uniformly random deals, dealt and played in compiled code.

Chunk ``k`` of a run plays the deals of PRNG stream ``(seed, k)``, so a run is reproducible for
a seed whatever the number of workers, and a resumed run replays only unreported chunks.
"""

from __future__ import annotations

from typing import Any

from .. import _engine
from ..result import OUTCOMES, Cycle, Result
from .base import CARD_BIN, NumberedSearch, Report, Task, compact
from .spec import SearchSpec

CHUNK_DEALS = 100_000  # about a quarter of a second on one core


class RandomSearch(NumberedSearch):
    """Hands out chunks of random deals until the deal budget is spent (or forever)."""

    name = "random"

    def __init__(self, spec: SearchSpec, checkpoint: dict[str, Any]) -> None:
        self.spec = spec
        super().__init__(None if spec.deals is None else -(-spec.deals // CHUNK_DEALS),
                         checkpoint)

    @property
    def total_deals(self) -> int | None:
        """Deals the whole run will play, if bounded."""
        return self.spec.deals

    def next_task(self) -> Task | None:
        """The next chunk, or None once the budget is handed out."""
        chunk = self.chunks.take()
        if chunk is None:
            return None
        size = CHUNK_DEALS
        if self.spec.deals is not None:
            size = min(size, self.spec.deals - chunk * CHUNK_DEALS)
        return Task(chunk, {"deals": size})


def play_chunk(spec: SearchSpec, task: Task) -> Report:
    """Play one chunk of random deals; keep each deal longer than all before it, and cycles."""
    rules = spec.game_rules
    player = _engine.RandomPlayer(rules.deck, spec.hand_sizes, rules.payments, spec.seed,
                                  task.key, spec.max_cards, spec.max_tricks, 0, spec.by_tricks)
    report = Report(task.key)
    remaining = task.payload["deals"]
    while remaining:
        played, counts, cards, _, rows, results = player.play(
            remaining, 256, report.histograms["cards"], report.histograms["tricks"], CARD_BIN)
        remaining -= played
        report.deals += played
        report.cards += int(cards)
        for code in range(3):
            report.outcomes[code] += int(counts[code])
        for row, values in zip(rows, results.tolist(), strict=True):
            outcome, winner, n_cards, tricks, *cycle = values
            found = Result(OUTCOMES[outcome], None if winner < 0 else winner + 1, n_cards, tricks,
                           (), Cycle(*cycle) if OUTCOMES[outcome] == "cycle" else None)
            report.finds.append((compact(row, spec), found))
    return report
