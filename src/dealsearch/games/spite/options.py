"""The options of Spite and Malice (docs/games/spite.md, [Options]): frozen, validated once, one
key.

>>> SpiteOptions(policies="greedy,cautious", max_turns=200).key()
'recycle=bottom;side_piles=seed;policies=greedy,cautious;max_turns=200'
>>> SpiteOptions(policies="cautious").policies
('cautious', 'cautious')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dealsearch.plugin import GameError

RECYCLE = ("bottom", "none")
SIDE_PILES = ("seed", "free")
POLICIES = ("greedy", "cautious")


def parse_policies(value: str | Sequence[str]) -> tuple[str, str]:
    """``[seat 1, seat 2]`` from ``"greedy"`` (both seats), ``"greedy,cautious"`` or a pair.

    >>> parse_policies("greedy, cautious")
    ('greedy', 'cautious')
    """
    names = value.split(",") if isinstance(value, str) else list(value)
    names = [str(name).strip() for name in names]
    if len(names) == 1:
        names *= 2
    if len(names) != 2:
        raise GameError(f"policy: give one policy or two (seat 1,seat 2), not {len(names)}")
    for name in names:
        if name not in POLICIES:
            raise GameError(f"policy: unknown policy {name!r}: choose from "
                            f"{', '.join(POLICIES)}")
    return names[0], names[1]


MAX_TURNS = 2**62   # the compiled engine counts turns in int64


def parse_max_turns(value: int | str | None) -> int | None:
    """The agreed limit: a positive whole number of turns, or ``None``/``"none"`` for none.

    >>> parse_max_turns("150"), parse_max_turns("none")
    (150, None)
    """
    if value is None or (isinstance(value, str) and value.strip().lower() == "none"):
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise GameError(f"max-turns: {value!r} is not a whole number")
    try:
        turns = int(value)
    except ValueError:
        raise GameError(f"max-turns: {value!r} is not a whole number") from None
    if turns < 1:
        raise GameError(f"max-turns: {value!r} is not a positive whole number")
    if turns > MAX_TURNS:
        raise GameError(f"max-turns: {turns} is out of range (at most {MAX_TURNS})")
    return turns


@dataclass(frozen=True)
class SpiteOptions:
    """One setting of the game: the two rule options, a policy per seat and the agreed limit.

    Attributes:
        recycle: ``bottom`` (finished centre piles go under the stock in played order) or
            ``none`` (they leave the game).
        side_piles: ``seed`` (the seed's building rule for side piles) or ``free``.
        policies: the policy of seat 1 and of seat 2 (``greedy`` or ``cautious``); a single
            name or ``"p1,p2"`` text is accepted and normalised to a pair.
        max_turns: the agreed limit (a game ends at the first turn boundary with that many
            turns), or ``None``.
    """

    recycle: str = "bottom"
    side_piles: str = "seed"
    policies: tuple[str, str] = ("greedy", "greedy")
    max_turns: int | None = None

    def __post_init__(self) -> None:
        if self.recycle not in RECYCLE:
            raise GameError(f"recycle: unknown value {self.recycle!r}: choose from "
                            f"{', '.join(RECYCLE)}")
        if self.side_piles not in SIDE_PILES:
            raise GameError(f"side-piles: unknown value {self.side_piles!r}: choose from "
                            f"{', '.join(SIDE_PILES)}")
        object.__setattr__(self, "policies", parse_policies(self.policies))
        object.__setattr__(self, "max_turns", parse_max_turns(self.max_turns))

    def key(self) -> str:
        """The canonical text of the options (the log's key), every field included."""
        limit = "none" if self.max_turns is None else str(self.max_turns)
        return (f"recycle={self.recycle};side_piles={self.side_piles};"
                f"policies={','.join(self.policies)};max_turns={limit}")

    def to_json(self) -> dict[str, Any]:
        """The options as JSON-ready data."""
        return {"recycle": self.recycle, "side_piles": self.side_piles,
                "policies": list(self.policies), "max_turns": self.max_turns}
