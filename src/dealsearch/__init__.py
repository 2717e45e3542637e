"""dealsearch: find record-long and never-ending deals of card games, exactly and fast.

The games are plug-ins (:mod:`dealsearch.game`, one folder each under ``dealsearch.games``);
the default game's :func:`play` and :func:`play_batch` are here for convenience.

>>> import dealsearch
>>> dealsearch.play("---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---").cards
8344
"""

from .games.beggar.engine import play, play_batch

__all__ = ["play", "play_batch"]
