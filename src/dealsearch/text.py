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


def counted(n: int, things: str) -> str:
    """``n`` (as :func:`count` writes it) of ``things`` (:func:`unit`: singular for one).

    >>> counted(1, "runs"), counted(1234, "finds"), counted(0, "problems")
    ('1 run', '1,234 finds', '0 problems')
    """
    return f"{count(n)} {unit(things, n)}"


def ranks_text(spans: Sequence[Sequence[int]], most: int = 3) -> str:
    """Spans of ranks ``[start, stop)`` as people read them, the first few only.

    >>> ranks_text([[0, 1000], [5000, 5001]]), ranks_text([])
    ('0 to 999, 5,000', 'none')
    """
    words = [count(a) if b == a + 1 else f"{count(a)} to {count(b - 1)}" for a, b in spans]
    more = f" and {count(len(words) - most)} more spans" if len(words) > most else ""
    return ", ".join(words[:most]) + more if words else "none"


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


_DURATION_PART = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([hms]?)")
_UNITS = {"h": 3600, "m": 60, "s": 1}
DURATION_FORMS = "8h, 30m, 90s, 1h30m, 1h30 (1 h 30 min) or 2m30 (2 min 30 s)"


def parse_duration(text: str) -> float:
    """Seconds in a budget: hours ``h``, minutes ``m`` and seconds ``s`` in that order, each
    at most once; a whole number after the last unit counts the next smaller one, as a clock
    reads (``1h30`` is 1 h 30 min, ``2m30`` is 2 min 30 s). A number needs its unit.

    >>> parse_duration("1h30m"), parse_duration("1h30"), parse_duration("2m30")
    (5400.0, 5400.0, 150.0)
    >>> parse_duration("90")
    Traceback (most recent call last):
    ValueError: bad duration '90': a number needs its unit: 90s, 90m or 90h
    """
    words = text.strip().lower()
    if words.startswith("-"):
        raise ValueError(f"bad duration {text!r}: a budget cannot be negative")
    parts, at = [], 0
    while at < len(words):
        match = _DURATION_PART.match(words, at)
        if match is None:
            break
        parts.append(match.groups())
        at = match.end()
    units = [unit for _, unit in parts]
    if not words or at < len(words) or not parts:
        raise ValueError(f"bad duration {text!r}: write e.g. {DURATION_FORMS}")
    if units == [""]:
        number = parts[0][0]
        if float(number) <= 0:   # no unit makes it a budget
            raise ValueError(f"bad duration {text!r}: must be more than zero")
        raise ValueError(f"bad duration {text!r}: a number needs its unit: "
                         f"{number}s, {number}m or {number}h")
    if units[-1] == "" and len(units) > 1 and units[-2] in ("h", "m"):  # 1h30, 2m30
        number, smaller = parts[-1][0], "minutes" if units[-2] == "h" else "seconds"
        if "." in number or int(number) >= 60:
            raise ValueError(f"bad duration {text!r}: the number after {units[-2]!r} counts "
                             f"{smaller}, 0 to 59")
        units[-1] = "m" if units[-2] == "h" else "s"
    if "" in units or units != sorted(units, key="hms".index) or len(set(units)) < len(units):
        raise ValueError(f"bad duration {text!r}: write e.g. {DURATION_FORMS}")
    numbers = [number for number, _ in parts]
    total = sum(float(n) * _UNITS[unit] for n, unit in zip(numbers, units, strict=True))
    if total <= 0:
        raise ValueError(f"bad duration {text!r}: must be more than zero")
    return total


def duration(seconds: float) -> str:
    """A duration, the one way every command writes one: seconds, minutes and hours as a
    clock reads them (a unit that is zero left out), then days and years; under a tenth of a
    second in milliseconds (``0.0 s`` would say no time passed).

    >>> duration(0.032), duration(4.25), duration(150), duration(3725), duration(8 * 3600)
    ('32 ms', '4.2 s', '2 min 30 s', '1 h 02 min', '8 h')
    >>> duration(3 * 86400), duration(4e9), duration(4e17)
    ('3 days', '127 years', '1.3e+10 years')
    """
    seconds = max(0.0, seconds)
    if 0 < seconds < 0.0995:
        return f"{max(1, round(seconds * 1000))} ms"
    if seconds < 60:
        return f"{seconds:.1f}".removesuffix(".0") + " s"
    if seconds < 3600:
        big, small, units = *divmod(round(seconds), 60), ("min", "s")
    elif seconds < 48 * 3600:
        big, small, units = *divmod(round(seconds / 60), 60), ("h", "min")
    else:
        days = seconds / 86400
        value, name = (days, "days") if days < 365.25 else (days / 365.25, "years")
        number = (f"{value:.1f}".removesuffix(".0") if value < 100 else  # 3 figures at most
                  f"{float(f'{value:.3g}'):,.0f}" if value < 1e6 else f"{value:.2g}")
        return f"{number} {unit(name, value)}"
    return f"{big} {units[0]} {small:02d} {units[1]}" if small else f"{big} {units[0]}"


def budget(seconds: float | None, deals: int | None, unit: str = "deals") -> str:
    """A search's budget in words: ``1 h 30 min or 10,000,000 deals, whichever comes first``
    (``none`` when there is none)."""
    parts = ([] if seconds is None else [duration(seconds)]) + (
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
