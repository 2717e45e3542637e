"""A find: a deal worth keeping, as a search hands it to the log and as readers get it back.

>>> cycle_json("cycle", {"cards": 3}, {"cards": 10})
{'entry_cards': 3, 'period_cards': 10}
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .rules import decode


@dataclass(frozen=True)
class Find:
    """A deal worth keeping: a new best of its run, or a game that never ends.

    ``measures``, ``entry`` and ``period`` are named by the game's measures (``entry`` and
    ``period`` empty unless the outcome is ``cycle``); ``details`` holds the rest of the
    result (BMN: winner, order out).
    """

    deal: str
    outcome: str
    measures: dict[str, int]
    strategy: str
    run_id: int
    entry: dict[str, int] = field(default_factory=dict)
    period: dict[str, int] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    cycle_key: str | None = None   # the cycle's canonical form (CycleCatalogue.cycle_key)
    cycle_id: str | None = None
    options_key: str = ""
    game_options: dict[str, Any] = field(default_factory=dict)
    game: str = field(kw_only=True)   # the game the deal was played in

    @property
    def cycle(self) -> dict[str, int] | None:
        """``entry_<measure>`` and ``period_<measure>`` of a cycle, else None."""
        return cycle_json(self.outcome, self.entry, self.period)

    def to_json(self) -> dict[str, Any]:
        """The keys ``--json`` prints for a find: the deal, outcome, measures, cycle, where it
        was found, and the game and options it was played under (and its rank, where an
        exhaustive search found it)."""
        return {"deal": self.deal, "outcome": self.outcome, **self.measures,
                "cycle": self.cycle, "strategy": self.strategy, "run_id": self.run_id,
                "game": self.game, "options": self.game_options, **ranked(self.details)}


def ranked(details: dict[str, Any]) -> dict[str, int]:
    """``{"rank": N}`` for a find an exhaustive search made (its details hold its rank)."""
    rank = details.get("rank")
    return {"rank": rank} if isinstance(rank, int) and not isinstance(rank, bool) else {}


def cycle_json(outcome: str, entry: dict[str, int], period: dict[str, int]
               ) -> dict[str, int] | None:
    """``{entry_<m>: .., period_<m>: ..}`` for a cycle (entries first), None otherwise."""
    if outcome != "cycle":
        return None
    return {f"entry_{m}": v for m, v in entry.items()} | {
        f"period_{m}": v for m, v in period.items()}


def decode_find(row: sqlite3.Row) -> dict[str, Any]:
    """A finds row with its JSON decoded and each measure, entry and period as a key
    (:class:`DamagedRow` if it breaks the log's rules)."""
    find = decode("finds", row)
    for key in ("entry", "period"):
        find[key] = find[key] or {}
    find |= find["measures"]
    for name in ("entry", "period"):
        for m in find["measures"]:
            find[f"{name}_{m}"] = find[name].get(m)
    return find


def iter_lines(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Finds from :meth:`RecordLog.finds` in the ``--json`` shape of a find."""
    for row in rows:
        yield {"deal": row["deal"], "outcome": row["outcome"], **row["measures"],
               "cycle": cycle_json(row["outcome"], row["entry"], row["period"]),
               "strategy": row["strategy"], "run_id": row["run_id"], "game": row["game"],
               "options": row["game_options"], **ranked(row["details"])}
