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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

DOT = " · "


def count(value: float | None) -> str:
    """A count with thousands separators; a fraction keeps up to 3 significant digits."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) or (float(value).is_integer() and abs(value) >= 1000):
        return f"{int(value):,}"
    return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"


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
