"""Test hooks of a run: moments a test of a real ``dealsearch`` process needs to reach.

The run service (:class:`~dealsearch.search.runner.Runner`, for every strategy) takes them as a
parameter, and the command line only through :func:`dealsearch.cli.main.main`'s ``hooks``
keyword, which nothing but a test passes: no option, no environment variable, so a user's run
never pauses or holds.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass

from .. import interrupt

#: The moments of a search's start a test may signal it at, in order: the command line parsed;
#: the workers starting (none started yet); the run logged, before the line that names it;
#: that line printed, before the search's loop.
MOMENTS = ("parsed", "workers-starting", "run-logged", "started")


@dataclass(frozen=True)
class TestHooks:
    """What a test asks of a run (the default asks nothing).

    ``save_pause``: seconds to wait between absorbing reports and committing them (widens the
    window where an interrupt used to lose finds). ``hold_after_finds``: once the run has told
    that many finds, it stops there, still ``running``, until a signal ends the hold (to kill
    or signal it at a moment known to be after a commit). ``signal_at``: one of
    :data:`MOMENTS`, where the process sends ``signum`` to its own process group, as a
    terminal's Ctrl-C does (to stop it at exactly that moment).
    """

    __test__ = False   # a hook, not a test class for pytest to collect

    save_pause: float = 0.0
    hold_after_finds: int = 0
    signal_at: str = ""
    signum: int = signal.SIGINT

    def __post_init__(self) -> None:
        if self.save_pause < 0 or self.hold_after_finds < 0:
            raise ValueError(f"test hooks must not be negative: {self}")
        if self.signal_at not in ("", *MOMENTS):
            raise ValueError(f"no moment {self.signal_at!r}: choose from {', '.join(MOMENTS)}")

    def reach(self, moment: str) -> None:
        """The search reached ``moment`` (one of :data:`MOMENTS`): signal the process group
        if it is the test's."""
        if moment == self.signal_at:
            os.killpg(os.getpgrp(), self.signum)

    def before_commit(self) -> None:
        """Pause for ``save_pause`` seconds (none by default)."""
        if self.save_pause:
            time.sleep(self.save_pause)

    def after_find(self, told: int) -> None:
        """Hold, until a stop signal is raised out of the wait (:func:`~dealsearch.interrupt.
        check`), when ``told`` (the finds told so far, counted from 1) reaches
        ``hold_after_finds``; once only, as ``told`` only grows."""
        if self.hold_after_finds and told == self.hold_after_finds:
            with interrupt.noting():
                while True:
                    interrupt.check()
                    time.sleep(0.05)
