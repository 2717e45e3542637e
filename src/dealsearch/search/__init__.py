"""Search strategies (random, climb, exhaustive) and the local runner that drives them.

The strategies only produce deals and read results; they know nothing of the log's schema or
the command line, and a game only through :class:`dealsearch.game.Game` and its features:
its layout, its kernel (played by the generic compiled loops in ``_generic``) or its own fast
loops (a :class:`~dealsearch.game.FastSearch`'s ``random_player`` and ``climber``, a
:class:`~dealsearch.game.FastBlocks`' ``block_player``), its text and its results.
"""

from .runner import Runner, Summary
from .spec import SearchSpec

__all__ = ["Runner", "SearchSpec", "Summary"]
