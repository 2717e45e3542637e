"""Type stubs of BMN's players (``_lanes.pyx``): deals in batches, two-player ones on SIMD
lanes."""

from collections.abc import Sequence
from typing import TypeAlias

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

# Stub-only shorthands (private: the module has no such names at runtime).
_I64: TypeAlias = npt.NDArray[np.int64]
_Rows: TypeAlias = npt.NDArray[np.uint8]
# played, counts per outcome, totals (cards, tricks), find rows, find results (outcome,
# cards, tricks, entry and period)
_Played: TypeAlias = tuple[int, _I64, _I64, _Rows, _I64]
_I8: TypeAlias = npt.NDArray[np.int8]
# play_rows' arrays: outcome, winner, cards, tricks, out, cycle
_RowResults: TypeAlias = tuple[_Rows, _I8, _I64, _I64, _I8, _I64]

def kernels() -> list[str]: ...
def kernel() -> str: ...
def set_kernel(name: str = "auto", min_cards: int = 32) -> str: ...
def play_rows(
    deals: _Rows, sizes: Sequence[int], payments: Sequence[int], max_cards: int | None = None,
    max_tricks: int | None = None,
) -> _RowResults: ...

@disjoint_base
class _Player:
    best: int

@disjoint_base
class RandomPlayer(_Player):
    dealt: int
    def __init__(
        self, deck: Sequence[int], sizes: Sequence[int], payments: Sequence[int], seed: int,
        stream: int, max_cards: int | None = None, max_tricks: int | None = None,
        best: int = 0, by_tricks: bool = False,
    ) -> None: ...
    def play(
        self, n: int, max_finds: int = 256, hists: Sequence[_I64] = (),
        widths: Sequence[int] = (),
    ) -> _Played: ...

@disjoint_base
class BlockPlayer(_Player):
    def __init__(
        self, deck: Sequence[int], sizes: Sequence[int], payments: Sequence[int],
        max_cards: int | None = None, max_tricks: int | None = None, best: int = 0,
        by_tricks: bool = False,
    ) -> None: ...
    def play(
        self, first: _Rows, n: int, max_finds: int = 256, hists: Sequence[_I64] = (),
        widths: Sequence[int] = (),
    ) -> _Played: ...
