"""Durak options ([Options]) and policies ([Policies]) as one frozen, validated value.

>>> DurakOptions(players=3, policy="aggressive").key()
'players=3;variant=podkidnoy;deck=36;policy=aggressive;first_limit=6;first_transfer=no;show_trump=no;throw_after_take=yes;max_bouts=none'
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from dealsearch.plugin import GameError

#: The presets of [Options]: variant name -> (transfers, pairs).
PRESETS: dict[str, tuple[bool, bool]] = {
    "podkidnoy": (False, False),
    "perevodnoy": (True, False),
    "pairs": (False, True),
    "pairs-perevodnoy": (True, True),
}
#: Policy names of [Policies]; the index is the compiled engine's policy code.
POLICIES: tuple[str, ...] = ("cheapest", "aggressive")
DECKS: tuple[int, ...] = (36, 52)
MIN_PLAYERS, MAX_PLAYERS = 2, 6


@dataclass(frozen=True)
class DurakOptions:
    """Every option of [Options] table plus the seats' policies and the agreed limit.

    ``policy`` is one name for every seat or a comma-separated list (or sequence) with one
    name per seat; it is stored as :attr:`policies`, one name per seat.
    ``max_bouts`` ``None`` means no agreed limit.
    """

    players: int = 2
    variant: str = "podkidnoy"
    deck: int = 36
    policy: Any = "cheapest"
    first_limit: int = 6
    first_transfer: bool = False
    show_trump: bool = False
    throw_after_take: bool = True
    max_bouts: int | None = None
    policies: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        players = _integer(self.players, "players")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise GameError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {players}")
        if self.variant not in PRESETS:
            raise GameError(f"unknown variant {self.variant!r}: choose from "
                            f"{', '.join(PRESETS)}")
        if PRESETS[self.variant][1] and players != 4:
            raise GameError(f"variant {self.variant} needs 4 players, not {players}")
        deck = _integer(self.deck, "deck")
        if deck not in DECKS:
            raise GameError(f"deck must be 36 or 52, not {deck}")
        first_limit = _integer(self.first_limit, "first_limit")
        if first_limit not in (5, 6):
            raise GameError(f"first_limit must be 5 or 6, not {first_limit}")
        names = self.policy.split(",") if isinstance(self.policy, str) else list(self.policy)
        names = [str(name).strip().lower() for name in names]
        for name in names:
            if name not in POLICIES:
                raise GameError(f"unknown policy {name!r}: choose from {', '.join(POLICIES)}")
        if len(names) == 1:
            names *= players
        if len(names) != players:
            raise GameError(f"{len(names)} policies for {players} players: give one name "
                            f"or one per seat")
        max_bouts = self.max_bouts
        if max_bouts is not None:
            max_bouts = _integer(max_bouts, "max_bouts")
            if max_bouts < 0:
                raise GameError(f"max_bouts must be 0 or more, not {max_bouts}")
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "deck", deck)
        object.__setattr__(self, "first_limit", first_limit)
        object.__setattr__(self, "max_bouts", max_bouts)
        object.__setattr__(self, "policies", tuple(names))
        object.__setattr__(self, "policy", _policy_text(names))
        for name in ("first_transfer", "show_trump", "throw_after_take"):
            object.__setattr__(self, name, bool(getattr(self, name)))

    @property
    def transfers(self) -> bool:
        """Perevodnoy: transfers ([Perevodnoy]) allowed."""
        return PRESETS[self.variant][0]

    @property
    def pairs(self) -> bool:
        """Pair vs pair ([Pair against pair])."""
        return PRESETS[self.variant][1]

    def key(self) -> str:
        """The canonical text of the options (the log's key)."""
        return ";".join(f"{name}={_text(value)}" for name, value in self.to_json().items())

    def to_json(self) -> dict[str, Any]:
        """Every option, defaults included, as JSON-ready data: the fields the constructor
        takes, in their order (``DurakOptions(**options.to_json()) == options``)."""
        return {option.name: getattr(self, option.name) for option in fields(self)
                if option.init}

    def engine_rules(self) -> dict[str, Any]:
        """The keyword arguments of the compiled engine's entry points."""
        return {
            "players": self.players,
            "deck": self.deck,
            "transfers": self.transfers,
            "pairs": self.pairs,
            "first_limit": self.first_limit,
            "first_transfer": self.first_transfer,
            "show_trump": self.show_trump,
            "throw_after_take": self.throw_after_take,
            "policies": [POLICIES.index(name) for name in self.policies],
            "max_bouts": -1 if self.max_bouts is None else self.max_bouts,
        }


MAX_COUNT = 2**62   # limits are int64 in the compiled engine; beyond this, nothing is asked


def _integer(value: Any, name: str) -> int:
    """A whole number from an int, a whole float or text; anything else is a GameError."""
    if isinstance(value, bool):
        raise GameError(f"{name} must be a whole number, not {value!r}")
    if isinstance(value, float) and not value.is_integer():
        raise GameError(f"{name} must be a whole number, not {value!r}")
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise GameError(f"{name} must be a whole number, not {value!r}") from None
    if abs(number) > MAX_COUNT:
        raise GameError(f"{name} {number} is out of range (at most {MAX_COUNT})")
    return number


def _policy_text(names: list[str]) -> str:
    return names[0] if len(set(names)) == 1 else ",".join(names)


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
