"""The published deals (``data/known_deals.csv``) and their published results.

>>> len(load_known()) >= 10
True
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cached_property
from importlib import resources

from ...plugin import count
from .engine import BeggarResult
from .notation import Deal, Rules, parse_deal
from .options import get_rules


@dataclass(frozen=True)
class KnownDeal:
    """One published deal with what its publication says about it."""

    text: str
    rules_name: str
    outcome: str
    cards: int
    tricks: int
    winner: int | None
    cycle: dict[str, int] | None  # entry_cards, entry_tricks, period_cards, period_tricks
    finder: str
    year: int
    source: str

    @property
    def rules(self) -> Rules:
        """The rules the deal is played under."""
        return get_rules(self.rules_name)

    @cached_property
    def deal(self) -> Deal:
        """The deal, parsed (the published deals use the full deck)."""
        return parse_deal(self.text, self.rules)

    @property
    def published(self) -> str:
        """The published result in a few words."""
        return self._summary(self.outcome, self.cards, self.tricks)

    def summary_of(self, result: BeggarResult) -> str:
        """A computed result in the same words as :attr:`published`."""
        return self._summary(result.outcome, result.cards, result.tricks)

    @staticmethod
    def _summary(outcome: str, cards: int, tricks: int) -> str:
        return f"{outcome} {count(cards)} / {count(tricks)}"

    def matches(self, result: BeggarResult) -> bool:
        """Whether ``result`` agrees with everything published about the deal."""
        return (
            result.outcome == self.outcome
            and (result.cards, result.tricks) == (self.cards, self.tricks)
            and (self.winner is None or result.winner == self.winner)
            and (self.cycle is None or result.to_json()["cycle"] == self.cycle)
        )


def _optional_int(text: str) -> int | None:
    return int(text) if text.strip() else None


def load_known() -> list[KnownDeal]:
    """Every published deal shipped with the package, oldest first."""
    csv_file = resources.files(__package__).joinpath("data", "known_deals.csv")
    text = csv_file.read_text(encoding="utf-8")
    known = []
    for row in csv.DictReader(text.splitlines()):
        names = ("entry_cards", "entry_tricks", "period_cards", "period_tricks")
        cycle = {k: int(row[k]) for k in names} if all(row[k].strip() for k in names) else None
        known.append(KnownDeal(
            text=row["deal"], rules_name=row["rules"], outcome=row["outcome"],
            cards=int(row["cards"]), tricks=int(row["tricks"]),
            winner=_optional_int(row["winner"]), cycle=cycle, finder=row["finder"],
            year=int(row["year"]), source=row["source"],
        ))
    return known
