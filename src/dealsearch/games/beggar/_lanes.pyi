"""Type stubs of the lanes engine (``_lanes.pyx``): two-player BMN deals on SIMD lanes."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

DECK_MAX: int

def kernels() -> list[str]: ...
def kernel() -> str: ...
def set_kernel(name: str = "auto", min_cards: int = 32) -> str: ...
def play_rows(
    deals: npt.NDArray[np.uint8],
    sizes: Sequence[int],
    payments: Sequence[int],
    max_cards: int | None = None,
    max_tricks: int | None = None,
) -> tuple[
    npt.NDArray[np.uint8],
    npt.NDArray[np.int8],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int8],
    npt.NDArray[np.int64],
]: ...

@disjoint_base
class RandomPlayer:
    best: int
    dealt: int
    def __init__(
        self,
        deck: Sequence[int],
        sizes: Sequence[int],
        payments: Sequence[int],
        seed: int,
        stream: int,
        max_cards: int | None = None,
        max_tricks: int | None = None,
        best: int = 0,
        by_tricks: bool = False,
    ) -> None: ...
    def play(
        self,
        n: int,
        max_finds: int = 256,
        card_hist: npt.NDArray[np.int64] | None = None,
        trick_hist: npt.NDArray[np.int64] | None = None,
        card_bin: int = 10,
    ) -> tuple[
        int, npt.NDArray[np.int64], int, int, npt.NDArray[np.uint8], npt.NDArray[np.int64]
    ]: ...

@disjoint_base
class BlockPlayer:
    best: int
    def __init__(
        self,
        deck: Sequence[int],
        sizes: Sequence[int],
        payments: Sequence[int],
        max_cards: int | None = None,
        max_tricks: int | None = None,
        best: int = 0,
        by_tricks: bool = False,
    ) -> None: ...
    def play(
        self,
        first: npt.NDArray[np.uint8],
        n: int,
        max_finds: int = 256,
        card_hist: npt.NDArray[np.int64] | None = None,
        trick_hist: npt.NDArray[np.int64] | None = None,
        card_bin: int = 10,
    ) -> tuple[
        int, npt.NDArray[np.int64], int, int, npt.NDArray[np.uint8], npt.NDArray[np.int64]
    ]: ...
