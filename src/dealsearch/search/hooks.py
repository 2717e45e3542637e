"""Test hooks of a run: moments a test of a real ``dealsearch`` process needs to reach.

A search (:class:`~dealsearch.search.Runner`) or a game's own run loop takes them as a
parameter, and the command line only through :func:`dealsearch.cli.main.main`'s ``hooks``
keyword, which nothing but a test passes: no option, no environment variable, so a user's run
never pauses or holds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class TestHooks:
    """What a test asks of a run (the default asks nothing).

    ``save_pause``: seconds to wait between absorbing reports and committing them (widens the
    window where an interrupt used to lose finds). ``hold_after_finds``: once the run has told
    that many finds, it stops there, still ``running``, until a signal ends the hold (to kill
    or signal it at a moment known to be after a commit).
    """

    __test__ = False   # a hook, not a test class for pytest to collect

    save_pause: float = 0.0
    hold_after_finds: int = 0

    def __post_init__(self) -> None:
        if self.save_pause < 0 or self.hold_after_finds < 0:
            raise ValueError(f"test hooks must not be negative: {self}")

    def before_commit(self) -> None:
        """Pause for ``save_pause`` seconds (none by default)."""
        if self.save_pause:
            time.sleep(self.save_pause)

    def after_find(self, told: int) -> None:
        """Hold, until a signal raises out of the wait, when ``told`` (the finds told so far,
        counted from 1) reaches ``hold_after_finds``; once only, as ``told`` only grows."""
        if self.hold_after_finds and told == self.hold_after_finds:
            while True:
                time.sleep(1)
