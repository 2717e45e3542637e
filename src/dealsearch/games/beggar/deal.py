"""Deprecated: :class:`Deal` is in :mod:`dealsearch.games.beggar.notation` (this module
re-exports it, with a ``DeprecationWarning``)."""

from ..._moved import moved_module
from .notation import Deal

moved_module(__name__, "dealsearch.games.beggar.notation")

__all__ = ["Deal"]
