"""Ctrl-C, ``kill`` and a closed terminal: how a run is stopped, and the moments it must not be.

The coordinator turns SIGINT, SIGTERM and SIGHUP (the terminal or the ssh session went away)
into :class:`Interrupted` (a KeyboardInterrupt that remembers its signal, so the command can
exit 130, 143 or 129 as shells and schedulers expect).
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

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM,
                *([signal.SIGHUP] if hasattr(signal, "SIGHUP") else []))


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT), ``kill`` (SIGTERM) or a hang-up (SIGHUP) reached the coordinator."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_status(stop: BaseException | int | None) -> int:
    """The shell's status for a process stopped by a signal (or by this :class:`Interrupted`):
    128 + its number, so 130 after Ctrl-C, 143 after ``kill`` and 129 after a hang-up."""
    signum = stop if isinstance(stop, int) else getattr(stop, "signum", None)
    return 128 + (signum or signal.SIGINT)


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


def install() -> None:
    """SIGINT, SIGTERM and SIGHUP raise :class:`Interrupted` in the main thread from now on."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, _raise)


@contextmanager
def deferred(reraise: bool = True) -> Iterator[list[int]]:
    """Hold SIGINT, SIGTERM and SIGHUP until the block ends; the list holds those that came.

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
