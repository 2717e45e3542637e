"""Type stubs of the GPU kernel compiled for the CPU (``_gpu_emulate.pyx``)."""

from typing import Any

import numpy as np
import numpy.typing as npt

HANDBACK: int
MAX_CARDS: int
MAX_BINS: int
BLOCK: int
SPAN: int

def seed_key(seed: int) -> int: ...
def bmn_random(grid: tuple[int], block: tuple[int], args: tuple[Any, ...]) -> None: ...
def bmn_unrank(grid: tuple[int], block: tuple[int], args: tuple[Any, ...]) -> None: ...
def bmn_blocks(grid: tuple[int], block: tuple[int], args: tuple[Any, ...]) -> None: ...
def bmn_records(grid: tuple[int], block: tuple[int], args: tuple[Any, ...]) -> None: ...
def next_rows(rows: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]: ...
def deal_rows(
    courts: npt.NDArray[np.uint8],
    n_cards: int,
    seed_key: int,
    streams: npt.NDArray[np.uint64],
    deals: npt.NDArray[np.uint64],
) -> npt.NDArray[np.uint8]: ...
