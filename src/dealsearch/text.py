"""Plain text for people: the one formatter every command (and every game's trace) prints with.

Counts carry thousands separators, outcomes read ``win 789,175 · cycle 12``, and no Python
repr (``{'win': ...}``, ``[2]``, ``None``) ever reaches a person. Machines read ``--json``.

>>> count(8344)
'8,344'
>>> outcomes({"win": 789175, "cycle": 12, "limit": 0})
'win 789,175 · cycle 12'
>>> measures({"rounds": 8344, "turns": 1164})
'8,344 rounds, 1,164 turns'
>>> plain({"entry_bouts": 0, "period_bouts": 6, "out": [2, 3], "loser": None})
'entry bouts 0, period bouts 6, out 2/3, loser none'
>>> duration(3725)
'1 h 02 min'
>>> budget(5400, 10_000_000)
'1 h 30 min or 10,000,000 deals, whichever comes first'
>>> print(table([["win", 12], ["cycle", 3]], ["outcome", "deals"]))
outcome  deals
win         12
cycle        3

A log and an argument are texts from strangers: every text reaches a terminal through
:func:`shown` (the CLI applies it to standard output and error as a whole), and an error line
quotes a bad value through :func:`quoted` (:func:`one_line` cuts every quoted value it holds).

>>> quoted("x" * 100)
"'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (100 characters)"
>>> print(one_line(ValueError(f"seat {'9' * 5000!r}:  no")))
seat '999999999999999999999999999999999999999999999999999999999999'... (5,000 characters): no
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TextIO

DOT = " · "
# What a terminal acts on instead of showing: C0 controls but the newline and the tab (ESC
# starts a sequence that sets the window title or clears the screen, \r lets a line overwrite
# a deal printed before it), DEL and C1 controls, and the bidirectional marks, embeddings,
# overrides and isolates that reorder what follows them; and the lone surrogates that stand for
# the bytes of an argument that are not UTF-8 (written out, 0x9b is a C1 control).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                     "\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
QUOTE_LIMIT = 60   # characters of a bad value an error line quotes


def shown(text: str) -> str:
    r"""``text`` as a terminal may show it: each character it would act on instead of
    showing becomes a visible escape; newlines and tabs are kept.

    >>> print(shown("9\x1b]0;title\x07 deals\r\u202e"))
    9\x1b]0;title\x07 deals\r\u202e
    """
    return _UNSAFE.sub(lambda match: ascii(match.group())[1:-1], text)


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """A bad value for an error line: quoted, every control character escaped (the newline
    too), and cut to its first ``limit`` characters (saying how long it was)."""
    return _cut(repr(str(value)), limit)


# A value quoted by repr() (either quote) longer than an error line should quote.
_LONG_QUOTE = re.compile(f"'[^'\n]{{{QUOTE_LIMIT + 1},}}'|\"[^\"\n]{{{QUOTE_LIMIT + 1},}}\"")


def one_line(error: Exception | str) -> str:
    """An error message as one line of an error: whitespace runs (newlines too) as one
    space, and each quoted value cut to :data:`QUOTE_LIMIT` characters."""
    text = " ".join(str(error).split())
    return _LONG_QUOTE.sub(lambda match: _cut(match.group()), text)


def _cut(quote: str, limit: int = QUOTE_LIMIT) -> str:
    """A quoted text longer than ``limit`` characters: its first ``limit``, and its length."""
    inner = quote[1:-1]
    if len(inner) <= limit:
        return quote
    return f"{quote[0]}{inner[:limit]}{quote[0]}... ({count(len(inner))} characters)"


class EscapedStream:
    """A text stream that writes everything through :func:`shown`."""

    def __init__(self, stream: TextIO) -> None:
        self.unescaped = stream   # what a progress bar writes to: :func:`progress_stream`

    def write(self, text: str) -> int:
        """Write ``text`` with what a terminal would act on escaped."""
        self.unescaped.write(shown(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unescaped, name)

    # The same stream as the one under it: so tqdm, before it writes a line through this one,
    # clears its bar drawn on the other (:func:`progress_stream`).
    def __eq__(self, other: object) -> bool:
        if other is self or other is self.unescaped:
            return True
        return NotImplemented   # (a wrapper of the stream under it may say)

    def __hash__(self) -> int:
        return hash(self.unescaped)


def progress_stream() -> TextIO:
    """Where a progress bar writes: standard error past its :class:`EscapedStream` (a bar is
    our own numbers, redrawn after a carriage return)."""
    return getattr(sys.stderr, "unescaped", sys.stderr)


def count(value: float | None) -> str:
    """A count with thousands separators; a fraction keeps up to 3 significant digits."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) or (float(value).is_integer() and abs(value) >= 1000):
        return f"{int(value):,}"
    return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def measures(values: Mapping[str, Any], names: Iterable[str] | None = None,
             sep: str = ", ") -> str:
    """Named counts in order: ``8,344 cards, 1,164 tricks`` (``5 cards, 1 trick``)."""
    return sep.join(f"{count(values[name])} {unit(name, values[name])}"
                    for name in (values if names is None else names) if name in values)


def unit(name: str, value: Any) -> str:
    """A measure's name for ``value`` of it: singular for exactly one.

    >>> unit("tricks", 1), unit("passes", 1), unit("tricks", 2)
    ('trick', 'pass', 'tricks')
    """
    if value != 1 or not name.endswith("s") or isinstance(value, bool):
        return name
    return name[:-2] if name.endswith(("sses", "xes", "ches", "shes")) else name[:-1]


def outcomes(values: Mapping[str, int], keep_zero: bool = False) -> str:
    """Outcome counts: ``win 789,175 · cycle 12`` (zeros left out; ``none`` if all are)."""
    parts = [f"{name} {count(n)}" for name, n in values.items() if n or keep_zero]
    return DOT.join(parts) or "none"


def plain(value: Any) -> str:
    """Any value as a person reads it: lists joined, mappings as ``key value`` pairs."""
    if value is None or isinstance(value, bool | int | float):
        return count(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return ", ".join(f"{str(k).replace('_', ' ')} {plain(v)}" for k, v in value.items())
    if isinstance(value, Sequence | set | frozenset):
        items = [plain(v) for v in value]
        if value and all(isinstance(v, int) for v in value):
            return "/".join(items)  # per seat, as deals write hand sizes: 27/25
        if len(items) <= 2:
            return " and ".join(items) or "none"
        return ", ".join(items[:-1]) + " and " + items[-1]
    return str(value)


def pairs(values: Mapping[str, Any]) -> str:
    """``key value`` pairs of a mapping, None values left out: a result's details."""
    return ", ".join(f"{str(k).replace('_', ' ')} {plain(v)}" for k, v in values.items()
                     if v is not None)


def duration(seconds: float) -> str:
    """A duration: ``4.2 s``, ``3 min 20 s``, ``1 h 02 min``."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def exact_duration(seconds: float) -> str:
    """A duration as it was asked for, every unit that is not zero: ``1 h 30 min``, ``8 h``,
    ``2 min 30 s``, ``1.5 s``."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{int(hours)} h"] if hours else []
    if minutes:
        parts.append(f"{int(minutes)} min")
    if secs or not parts:
        parts.append(f"{secs:g} s")
    return " ".join(parts)


def budget(seconds: float | None, deals: int | None, unit: str = "deals") -> str:
    """A search's budget in words: ``1 h 30 min or 10,000,000 deals, whichever comes first``
    (``none`` when there is none)."""
    parts = ([] if seconds is None else [exact_duration(seconds)]) + (
        [] if deals is None else [f"{count(deals)} {unit}"])
    if len(parts) == 2:
        return f"{parts[0]} or {parts[1]}, whichever comes first"
    return parts[0] if parts else "none"


def rate(amount: float, seconds: float, unit: str = "deals") -> str:
    """``206,000 deals/s`` (``- deals/s`` before any time has passed)."""
    if seconds <= 0:
        return f"- {unit}/s"
    return f"{count(round(amount / seconds))} {unit}/s"


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str],
          left: Iterable[int] = (0,), indent: str = "") -> str:
    """A plain table: columns two spaces apart, numbers right-aligned, text columns (the
    indexes in ``left``) left-aligned; no line ends in spaces."""
    cells = [[str(h) for h in headers]] + [
        [v if isinstance(v, str) else plain(v) for v in row] for row in rows]
    lefts = set(left)
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        parts = [cell.ljust(widths[i]) if i in lefts else cell.rjust(widths[i])
                 for i, cell in enumerate(row)]
        lines.append((indent + "  ".join(parts)).rstrip())
    return "\n".join(lines)
