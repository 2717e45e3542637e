"""Durak (podkidnoy, perevodnoy, pair against pair) under named deterministic policies.

The game is :class:`~dealsearch.games.durak.game.DurakGame`; this module only registers it.
The rules as the engine plays them: the docs' Durak page.
"""

from typing import Any

from ...game import register
from . import game as _game

DURAK = register(_game.DurakGame())

# Names this package exported before each module had one role: still importable, with a
# DeprecationWarning naming the module they live in now.
_MOVED = {"DurakGame": "game", "DurakOptions": "options", "POLICIES": "options",
          "random_rows": "notation"}
# (The old module dealsearch.games.durak.cards is a shim of its own, cards.py.)


def __getattr__(name: str) -> Any:
    from ..._moved import moved

    return moved(__name__, _MOVED, name)


__all__ = ["DURAK"]
