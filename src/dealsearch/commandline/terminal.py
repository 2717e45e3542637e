"""A search outlives its screen: output to a closed pipe or a gone terminal is dropped.

``dealsearch search ... | head -2``, a pager quit, a log-reader that exits: the first write to
the closed pipe fails (EPIPE), and it used to fail the run. Nothing failed: the search only
lost its screen, and everything it prints is in the log. So while :func:`screen_optional` is
in force, standard output and standard error that cannot be written any more are pointed at
the null device, and the search goes on to its budget writing to the log alone. (A closed
terminal also hangs the process up, SIGHUP, which ends the run ``interrupted``:
:mod:`dealsearch.interrupt`.) Output to a file whose disk is full is dropped the same way, and
the command ends saying so in one line (:class:`~dealsearch.errors.OutputFailed`, exit 1).

And a log or an argument is a text from a stranger: while :func:`escaped` is in force (the
whole of every command), all that standard output and standard error print goes through
:func:`dealsearch.text.shown`, so no escape sequence of a deal, a strategy or a machine name
reaches the terminal.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from ..errors import OutputFailed
from ..text import EscapedStream

# EPIPE: the reader of the pipe is gone; EIO: the terminal is gone.
_GONE = (errno.EPIPE, errno.EIO, errno.ENXIO)
#: The file the output goes to cannot grow: its disk or quota is full, or it is at its limit.
FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class OptionalStream:
    """A text stream whose writes never fail because its reader went away."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.lost = False
        self.full: OSError | None = None   # why, if it was lost to a full disk

    def write(self, text: str) -> int:
        """Write ``text``, or drop it once the reader is gone."""
        if not self.lost:
            try:
                return self.stream.write(text)
            except OSError as error:
                self._lose(error)
        return len(text)

    def flush(self) -> None:
        """Flush, or drop what is buffered once the reader is gone."""
        if not self.lost:
            try:
                self.stream.flush()
            except OSError as error:
                self._lose(error)

    def isatty(self) -> bool:
        """Whether the stream is a terminal still there."""
        return not self.lost and self.stream.isatty()

    def _lose(self, error: OSError) -> None:
        if error.errno not in _GONE + FULL:
            raise error
        self.lost = True
        if error.errno in FULL:   # said once the command ends (screen_optional)
            self.full = error
        drop(self.stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def drop(stream: TextIO) -> None:
    """Point ``stream``'s descriptor at the null device: what it still holds would fail again
    when Python flushes it at exit."""
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)


@contextlib.contextmanager
def screen_optional() -> Iterator[None]:
    """Within the block, standard output and standard error never fail a write. Output lost
    to a full disk (not to a reader gone) is :class:`~dealsearch.errors.OutputFailed` once
    the block ends, unless it ends in another error."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _optional(sys.stdout), _optional(sys.stderr)
    streams = [_unwrapped(sys.stdout), _unwrapped(sys.stderr)]
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError):
                stream.flush()
        sys.stdout, sys.stderr = saved
    full = next((s.full for s in streams if s.full is not None), None)
    if full is not None:
        raise OutputFailed(f"cannot write the output: {full.strerror}: the run went on "
                           "without it, and its finds are in the log (dealsearch records)")


def _unwrapped(stream: Any) -> OptionalStream:
    return stream.unescaped if isinstance(stream, EscapedStream) else stream


def _optional(stream: TextIO) -> Any:
    """``stream`` as an :class:`OptionalStream`, under its escaping if it has one."""
    if isinstance(stream, EscapedStream):
        return EscapedStream(OptionalStream(stream.unescaped))  # type: ignore[arg-type]
    return OptionalStream(stream)


@contextlib.contextmanager
def escaped() -> Iterator[None]:
    """Within the block, standard output and standard error show every text escaped
    (:func:`dealsearch.text.shown`)."""
    saved = sys.stdout, sys.stderr
    sys.stdout = EscapedStream(sys.stdout)  # type: ignore[assignment]
    sys.stderr = EscapedStream(sys.stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
