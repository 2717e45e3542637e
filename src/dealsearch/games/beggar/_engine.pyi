"""Type stubs of the compiled engine (``_engine.pyx``); the friendly API is ``engine.py``."""

from collections.abc import Sequence
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

# Stub-only shorthands (private: the module has no such names at runtime).
_U8: TypeAlias = npt.NDArray[np.uint8]
_I8: TypeAlias = npt.NDArray[np.int8]
_I64: TypeAlias = npt.NDArray[np.int64]
# play_rows' arrays: outcome, winner, cards, tricks, out, cycle
_RowResults: TypeAlias = tuple[_U8, _I8, _I64, _I64, _I8, _I64]

def play_rows(
    deals: _U8, sizes: Sequence[int], payments: Sequence[int], max_cards: int | None = None,
    max_tricks: int | None = None, rings: bool = False,
) -> _RowResults: ...
def random_rows(deck: Sequence[int], n: int, seed: int, stream: int = 0) -> _U8: ...
def predecessors(state: tuple[int, ...], payments: Sequence[int]) -> list[tuple[int, ...]]: ...
