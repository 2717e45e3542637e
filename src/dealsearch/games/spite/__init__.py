"""Spite and Malice (Злоба) under named deterministic policies.

The game is :class:`~dealsearch.games.spite.game.SpiteGame`; this module only registers it.
The rules as the engine plays them: the docs' Spite and Malice page.
"""

from typing import Any

from ...game import register
from . import game as _game

SPITE = register(_game.SpiteGame())

# Names this package exported before each module had one role: still importable, with a
# DeprecationWarning naming the module they live in now.
_MOVED = {"SpiteGame": "game", "cycle_key_of": "game", "random_rows": "notation"}


def __getattr__(name: str) -> Any:
    from ..._moved import moved

    if name == "random_deals":  # random_deals(n, seed): random_rows(None, n, seed) now
        import warnings

        from .notation import random_rows

        warnings.warn(f"{__name__}.random_deals(n, seed) is deprecated: use "
                      f"{__name__}.notation.random_rows(options, n, seed), as in every game",
                      DeprecationWarning, stacklevel=2)
        return lambda n, seed: random_rows(None, n, seed)
    return moved(__name__, _MOVED, name)


__all__ = ["SPITE"]
