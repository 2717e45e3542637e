"""Ctrl-C and ``kill``: how a run is stopped, and the moments it must not be.

The coordinator turns SIGINT and SIGTERM into :class:`Interrupted` (a KeyboardInterrupt that
remembers its signal, so the command can exit 130 or 143 as shells and schedulers expect).
Inside :func:`deferred` a signal is only noted: the code that commits a report and advances
the run's state with it runs to its end, and the interrupt is raised just after. So an
interrupt lands before a report is absorbed or after it is committed, never in between.

>>> with deferred() as caught:
...     pass
>>> caught
[]
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) or ``kill`` (SIGTERM) reached the coordinator."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_status(stop: BaseException | int | None) -> int:
    """The shell's status for a process stopped by a signal (or by this :class:`Interrupted`):
    128 + its number, so 130 after Ctrl-C and 143 after ``kill``."""
    signum = stop if isinstance(stop, int) else getattr(stop, "signum", None)
    return 128 + (signum or signal.SIGINT)


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


def install() -> None:
    """SIGINT and SIGTERM raise :class:`Interrupted` in the main thread from now on."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, _raise)


@contextmanager
def deferred(reraise: bool = True) -> Iterator[list[int]]:
    """Hold SIGINT and SIGTERM until the block ends; the list holds those that came.

    With ``reraise`` the first one is raised as :class:`Interrupted` when the block ends
    normally (an exception of the block itself wins: it says more). Outside the main thread no
    signal can arrive, so nothing is changed there.
    """
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}

    def note(signum: int, frame: FrameType | None) -> None:
        caught.append(signum)

    for signum in STOP_SIGNALS:
        signal.signal(signum, note)
    try:
        yield caught
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if caught and reraise:
        raise Interrupted(caught[0])
