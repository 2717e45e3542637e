"""Type stubs of the compiled engine (``_engine.pyx``); the friendly API is ``engine.py``."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

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

def predecessors(
    state: tuple[int, ...], payments: Sequence[int]
) -> list[tuple[int, ...]]: ...
