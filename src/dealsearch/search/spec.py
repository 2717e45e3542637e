"""What a search is asked to do: strategy, game, budget and tuning, as one serialisable spec.

The spec is stored with the run in the log, so ``--resume`` needs nothing but the run id.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, fields
from functools import cached_property
from typing import Any

from ..notation import parse_deal, parse_deck
from ..reverse import MAX_CARDS as REVERSE_CARDS
from ..rules import MAX_PLAYERS, MIN_PLAYERS, Rules, get_rules

STRATEGIES = ("random", "climb", "exhaustive")
ESCAPES = ("none", "anneal")
OBJECTIVES = ("cards", "tricks")

_DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?")


def parse_duration(text: str) -> float:
    """Seconds in ``8h``, ``30m``, ``90s``, ``1h30m`` or a plain number of seconds.

    >>> parse_duration("1h30m")
    5400.0
    """
    match = _DURATION.fullmatch(text.strip().lower())
    if not text.strip() or match is None or not any(match.groups()):
        raise ValueError(f"bad duration {text!r}: write e.g. 8h, 30m, 90s or 1h30m")
    hours, minutes, seconds = (float(g) if g else 0.0 for g in match.groups())
    total = hours * 3600 + minutes * 60 + seconds
    if total <= 0:
        raise ValueError(f"bad duration {text!r}: must be more than zero")
    return total


@dataclass(frozen=True)
class SearchSpec:
    """A search: what to look for, under which rules, with which budget.

    Without ``deals`` or ``time`` a random or climbing search runs until interrupted; an
    exhaustive search always ends when every deal of its deck has been played.
    """

    strategy: str
    rules: str = "standard"
    players: int = 2
    deck: str | None = None          # compact deck; default: the rules' full deck
    max_cards: int | None = None
    max_tricks: int | None = None
    seed: int = 0
    workers: int = 0                 # 0: every core
    deals: int | None = None         # budget in games played
    time: float | None = None        # budget in seconds
    objective: str = "cards"
    # Climbing only.
    start: str | None = None         # start every climber from this deal
    escape: str = "anneal"           # none | anneal (simulated annealing)
    stall: int = 5_000               # games without a new best before a restart
    temperature: float = 40.0        # annealing start temperature, in objective units
    reverse_every: int | None = None  # grow the best deal backwards every K new bests

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {self.strategy!r}: choose from "
                             f"{', '.join(STRATEGIES)}")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not "
                             f"{self.players}")
        if self.workers < 0:
            raise ValueError("workers must be at least 1 (0 means every core)")
        if self.objective not in OBJECTIVES:
            raise ValueError(f"unknown objective {self.objective!r}: cards or tricks")
        if self.escape not in ESCAPES:
            raise ValueError(f"unknown escape {self.escape!r}: choose from {', '.join(ESCAPES)}")
        for name in ("deals", "max_cards", "max_tricks", "stall", "reverse_every"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name.replace('_', '-')} must be at least 1")
        if self.reverse_every is not None and (self.strategy != "climb" or self.players != 2):
            raise ValueError("--reverse-every needs a 2-player climb")
        if self.reverse_every is not None and self.game_rules.deck_size > REVERSE_CARDS:
            raise ValueError(f"--reverse-every needs a deck of at most {REVERSE_CARDS} cards "
                             f"(playing backwards works on 64-bit hands)")
        if self.strategy == "exhaustive" and self.deck is None:
            raise ValueError("an exhaustive search needs --deck, e.g. --deck --------AKQJJ")
        if self.deck_counts is not None and sum(self.deck_counts) < self.players:
            raise ValueError(f"a deck of {sum(self.deck_counts)} cards cannot be dealt to "
                             f"{self.players} players")
        if self.start is not None:
            deal = parse_deal(self.start, self.game_rules, "any")
            if deal.class_counts(len(self.game_rules.deck)) != self.game_rules.deck:
                raise ValueError("--start must hold exactly the searched deck's cards")

    @cached_property
    def deck_counts(self) -> tuple[int, ...] | None:
        """The ``deck`` option as a count per class (None: the rules' deck)."""
        return None if self.deck is None else parse_deck(self.deck, get_rules(self.rules))

    @cached_property
    def game_rules(self) -> Rules:
        """The rules, with the searched deck."""
        rules = get_rules(self.rules)
        return rules if self.deck_counts is None else rules.with_deck(self.deck_counts)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """How the deck is dealt: as evenly as possible, hand 1 first."""
        return Rules.deal_sizes(self.game_rules.deck_size, self.players)

    @property
    def worker_count(self) -> int:
        """Workers to start (``workers`` or every core)."""
        return self.workers or os.cpu_count() or 1

    @property
    def by_tricks(self) -> bool:
        """Whether longer means more tricks (else more cards)."""
        return self.objective == "tricks"

    @property
    def limits(self) -> str:
        """The agreed limit in words, '' for none (finds are kept per limit)."""
        parts = []
        if self.max_cards:
            parts.append(f"max_cards={self.max_cards}")
        if self.max_tricks:
            parts.append(f"max_tricks={self.max_tricks}")
        return ",".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The spec as plain data (for the runs table)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SearchSpec:
        """Rebuild a spec from :meth:`to_json` or a campaign file; unknown keys are errors."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown search option {unknown[0]!r}")
        return cls(**data)
