"""A deal: the hands as card classes, hand 1 first, each hand top card first."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Deal:
    """The starting hands. ``hands[0]`` leads; ``hands[s][0]`` is the first card seat ``s`` turns.

    Cards are class numbers under some :class:`~dealsearch.games.beggar.rules.Rules`
    (0 = plain card).

    >>> Deal(((0, 4), (1, 0))).hand_sizes
    (2, 2)
    """

    hands: tuple[tuple[int, ...], ...]

    @property
    def players(self) -> int:
        """Number of hands (players)."""
        return len(self.hands)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards in each hand."""
        return tuple(len(hand) for hand in self.hands)

    @property
    def cards(self) -> tuple[int, ...]:
        """All cards, hand 1 first: the row layout of :func:`dealsearch.play_batch`."""
        return tuple(card for hand in self.hands for card in hand)

    def class_counts(self, n_classes: int) -> tuple[int, ...]:
        """How many cards of each class the deal holds."""
        counts = [0] * n_classes
        for card in self.cards:
            counts[card] += 1
        return tuple(counts)
