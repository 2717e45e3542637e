"""Type stubs of the compiled engine (``_engine.pyx``); the friendly API is ``engine.py``."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

def play_rows(
    deals: npt.NDArray[np.uint8],
    sizes: Sequence[int],
    payments: Sequence[int],
    max_cards: int | None = None,
    max_tricks: int | None = None,
    rings: bool = False,
) -> tuple[
    npt.NDArray[np.uint8],
    npt.NDArray[np.int8],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int8],
    npt.NDArray[np.int64],
]: ...
def random_rows(
    deck: Sequence[int], n: int, seed: int, stream: int = 0
) -> npt.NDArray[np.uint8]: ...

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

def predecessors(
    state: tuple[int, ...], payments: Sequence[int]
) -> list[tuple[int, ...]]: ...
