"""What a game came to: the :class:`Result` every engine returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Outcome = Literal["win", "cycle", "limit"]
OUTCOMES: tuple[Outcome, ...] = ("win", "cycle", "limit")  # index = the engine's outcome code


@dataclass(frozen=True)
class Cycle:
    """Where a never-ending game enters its cycle and how long one turn of it is."""

    entry_cards: int
    entry_tricks: int
    period_cards: int
    period_tricks: int


@dataclass(frozen=True)
class Result:
    """The outcome of one game, counted as docs/games/beggar.md says.

    Attributes:
        outcome: ``win`` (one player left or holding every card), ``cycle`` (a state repeated;
            the counts are those at the first repeated state) or ``limit`` (the agreed limit).
        winner: 1-based seat of the winner; ``None`` for a cycle or a drawn limit.
        cards: cards turned; tricks: piles taken, the final pile included.
        out: 1-based seats in the order they went out.
        cycle: entry and period of the cycle, or ``None``.
    """

    outcome: Outcome
    winner: int | None
    cards: int
    tricks: int
    out: tuple[int, ...]
    cycle: Cycle | None = None

    def to_json(self) -> dict[str, Any]:
        """The result as plain JSON-ready data (``cycle`` is ``None`` or a dict)."""
        data = asdict(self)
        data["out"] = list(self.out)
        return data
