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


def measures(values: Mapping[str, Any], names: Iterable[str] | None = None,
             sep: str = ", ") -> str:
    """Named counts in order: ``8,344 cards, 1,164 tricks``."""
    return sep.join(f"{count(values[name])} {name}"
                    for name in (values if names is None else names) if name in values)


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
