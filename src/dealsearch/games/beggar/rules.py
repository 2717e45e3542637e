"""Deprecated: the rules presets are in :mod:`dealsearch.games.beggar.notation` and
:mod:`dealsearch.games.beggar.options` (this module re-exports them, with a
``DeprecationWarning``)."""

from ..._moved import moved_module
from .notation import ITALIAN, MAX_CARDS, MAX_CLASSES, STANDARD, Rules
from .options import PRESETS, get_rules

moved_module(__name__, "dealsearch.games.beggar.notation (Rules, STANDARD, ITALIAN) and "
             "dealsearch.games.beggar.options (PRESETS, get_rules)")

__all__ = ["ITALIAN", "MAX_CARDS", "MAX_CLASSES", "PRESETS", "STANDARD", "Rules", "get_rules"]
