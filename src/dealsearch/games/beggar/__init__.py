"""Beggar-My-Neighbour, the first game plug-in (registered as ``beggar``).

The game is :class:`~dealsearch.games.beggar.game.BeggarGame`; this module only registers it.
The rules as the engine plays them: the docs' Beggar-My-Neighbour page.

>>> from dealsearch.game import get_game
>>> get_game("beggar").measures
('cards', 'tricks')
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

from ...game import register
from .game import BeggarGame

BEGGAR = register(BeggarGame())

__all__ = ["BEGGAR", "BeggarGame"]

# Names this package exported before each moved to its module (a DeprecationWarning names
# the new home): name -> (module, name there).
_MOVED = {
    "Beggar": ("game", "BeggarGame"),
    "describe": ("game", "describe"),
    "BatchResult": ("engine", "BeggarBatch"),
    "BeggarBatch": ("engine", "BeggarBatch"),
    "BeggarResult": ("engine", "BeggarResult"),
    "Result": ("engine", "BeggarResult"),
    "play": ("engine", "play"),
    "play_batch": ("engine", "play_batch"),
    "random_deals": ("engine", "shuffled_rows"),
    "random_rows": ("notation", "random_rows"),
    "Deal": ("notation", "Deal"),
    "DealError": ("notation", "DealError"),
    "ITALIAN": ("notation", "ITALIAN"),
    "Rules": ("notation", "Rules"),
    "STANDARD": ("notation", "STANDARD"),
    "format_deal": ("notation", "format_deal"),
    "parse_deal": ("notation", "parse_deal"),
    "BeggarOptions": ("options", "BeggarOptions"),
    "PRESETS": ("options", "PRESETS"),
    "get_rules": ("options", "get_rules"),
    "make_options": ("options", "beggar_options"),
}

# The two old result classes are the framework's results now, built from other fields.
_RESHAPED = {
    "Result": " (a GameResult: measures cards/tricks, entry, period, details winner/out; "
              "BeggarResult.of builds one from the old fields)",
    "random_deals": " (random_deals(n, rules, seed); every game's is "
                    "notation.random_rows(options, n, seed))",
    "BatchResult": " (a BatchResults: measures, entry, period columns cards/tricks; winner, "
                   "out)",
}


def __getattr__(name: str) -> Any:
    """The names this package used to export, from their modules, with a
    ``DeprecationWarning`` that says where each lives now."""
    if name in _MOVED:
        module, new = _MOVED[name]
        warnings.warn(f"dealsearch.games.beggar.{name} is deprecated: use "
                      f"dealsearch.games.beggar.{module}.{new}{_RESHAPED.get(name, '')}",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(f"{__name__}.{module}"), new)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
