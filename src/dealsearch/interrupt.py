"""Ctrl-C, ``kill`` and a closed terminal: how a run is stopped, and the moments it must not be.

SIGINT, SIGTERM and SIGHUP (the terminal or the ssh session went away) become
:class:`Interrupted` (a KeyboardInterrupt that remembers its signal, so the command can exit
130, 143 or 129 as shells and schedulers expect). How they become it depends on the code:

- A process that starts workers and writes a log (a search, the factory) only *notes* a
  signal (:func:`noting`), and raises it at its own safe points (:func:`check`), at most a
  few tenths of a second apart. A handler that raised at once would raise inside whatever
  the main thread runs at that moment: logging's or threading's fork handlers,
  multiprocessing's start-up or exit handlers, none of which can take an exception there
  (a lost Ctrl-C, a hang on workers that ignore Ctrl-C, a traceback, a run left running).
- A command that only reads and computes in its own process raises at once
  (:func:`raising`): there the usual KeyboardInterrupt is what a user expects.

Each noted signal is raised once: a second Ctrl-C, noted while the first is being handled,
is raised at the next safe point (to hurry the stop).
Inside :func:`deferred` nothing is raised: the code that commits a report and advances the
run's state with it runs to its end, and the interrupt is raised just after. So an interrupt
lands before a report is absorbed or after it is committed, never in between.

>>> with deferred() as caught:
...     pass
>>> caught
[]
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, wait
from contextlib import contextmanager
from types import FrameType
from typing import Any

POLL = 0.1   # seconds between safe points while waiting for workers

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM,
                *([signal.SIGHUP] if hasattr(signal, "SIGHUP") else []))

_noted: list[int] = []   # the signals noted since the outermost noting() began, in order
_raised = 0              # how many of them check() has raised
_depth = 0               # nested noting() blocks
_holds = 0               # nested deferred() blocks: only the outermost raises at its end


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


def _note(signum: int, frame: FrameType | None) -> None:
    _noted.append(signum)


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def _handlers(handler: Any, others: Any = None) -> Iterator[None]:
    """``handler`` for every stop signal (or for SIGINT, and ``others`` for the rest) within
    the block, the previous ones after it."""
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    for signum in STOP_SIGNALS:
        signal.signal(signum, handler if others is None or signum == signal.SIGINT
                      else others)
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


@contextmanager
def noting() -> Iterator[None]:
    """Within the block, stop signals are noted, never raised where they land: code that
    can stop asks :func:`check` at its safe points. Nested blocks share the notes; outside
    the main thread (where no signal arrives) nothing changes."""
    global _depth, _raised
    if not _in_main_thread():
        yield
        return
    if _depth == 0:
        _noted.clear()
        _raised = 0
    _depth += 1
    try:
        with _handlers(_note):
            yield
    finally:
        _depth -= 1


def install() -> None:
    """Note stop signals from now to the end of the process (:func:`noting` for good): the
    command's entry point calls it first thing, so that a signal during start-up or during
    the interpreter's exit (while multiprocessing joins the workers) is never raised inside
    library code."""
    global _depth
    if _in_main_thread():
        for signum in STOP_SIGNALS:
            signal.signal(signum, _note)
        _depth += 1


@contextmanager
def raising() -> Iterator[None]:
    """Within the block, Ctrl-C raises :class:`Interrupted` at once (first any signal noted
    and not yet raised), and SIGTERM and SIGHUP end the process as by default (a pool's
    workers forked here are ended by SIGTERM): for code that only computes or reads."""
    if not _in_main_thread():
        yield
        return
    check()
    with _handlers(_raise, signal.SIG_DFL):
        yield


def check() -> None:
    """Raise :class:`Interrupted` for the next noted signal not yet raised, if any: called at
    a safe point of the code."""
    global _raised
    if _raised < len(_noted):
        _raised += 1
        raise Interrupted(_noted[_raised - 1])


@contextmanager
def deferred(reraise: bool = True) -> Iterator[list[int]]:
    """Hold SIGINT, SIGTERM and SIGHUP until the block ends; the list holds those that came.

    With ``reraise`` a signal not raised yet is raised as :class:`Interrupted` when the block
    ends normally (an exception of the block itself wins: it says more); without, the block's
    caller has dealt with those that came, and no later safe point raises them. A block held
    inside another leaves both to the outermost (a run's last commit, held so that its status
    is written whatever comes, is never cut short by a commit's own hold). Outside the main
    thread no signal can arrive, so nothing is changed there.
    """
    global _holds, _raised
    caught: list[int] = []
    if not _in_main_thread():
        yield caught
        return
    with noting():
        before = len(_noted)
        _holds += 1
        try:
            yield caught
        finally:
            _holds -= 1
            caught.extend(_noted[before:])
        if _holds == 0:
            if reraise:
                check()
            else:
                _raised = len(_noted)


def results(futures: Sequence[Future[Any]]) -> list[Any]:
    """The results of ``futures`` in order, once all are done: a wait with a safe point
    (:func:`check`) every :data:`POLL` seconds, so a noted signal stops it."""
    pending = set(futures)
    while pending:
        check()
        pending = wait(pending, timeout=POLL).not_done
    check()   # workers killed by the signal that stops us too (kill to the group): a stop
    return [future.result() for future in futures]
