"""The argument checks every compiled entry point makes once, before its unchecked loop.

The engines' nogil loops index C arrays without bounds checks, so each ``def`` entry point
checks its arguments first, here, with one wording for every engine.

>>> whole("seats", 3, 2, 4)
3
>>> whole("seats", 5, 2, 4)
Traceback (most recent call last):
ValueError: seats must be 2 to 4, not 5
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np


def whole(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int in [low, high] (either bound may be None); ValueError naming
    ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        if high is None:
            allowed = f"at least {low}"
        elif low is None:
            allowed = f"at most {high}"
        else:
            allowed = f"{low} to {high}"
        raise ValueError(f"{name} must be {allowed}, not {value}")
    return int(value)


def whole_list(name: str, values: Iterable[Any], low: int | None, high: int | None,
               min_len: int, max_len: int) -> list[int]:
    """A sequence of ``min_len`` to ``max_len`` whole numbers in [low, high]."""
    try:
        items = list(values)
    except TypeError:
        raise ValueError(f"{name} must be a sequence of whole numbers, not {values!r}") from None
    if not min_len <= len(items) <= max_len:
        wanted = f"{min_len}" if min_len == max_len else f"{min_len} to {max_len}"
        raise ValueError(f"{name} must have {wanted} entries, not {len(items)}")
    return [whole(f"{name}[{i}]", item, low, high) for i, item in enumerate(items)]
