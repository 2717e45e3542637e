"""Type stubs of the compiled Spite and Malice engine (``_engine.pyx``); the friendly API is
``dealsearch.games.spite`` (the registered Game)."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

RESULT_COLUMNS: tuple[str, ...]

def checked_rows(rows: npt.ArrayLike) -> npt.NDArray[np.uint8]: ...

@disjoint_base
class Engine:
    settings: tuple[bool, bool, tuple[int, int], int]
    def __init__(
        self, recycle: bool, free_sides: bool, policies: Sequence[int], max_turns: int
    ) -> None: ...
    def play_rows(self, rows: npt.ArrayLike) -> npt.NDArray[np.int64]: ...
    def play_position(self, packed: npt.ArrayLike) -> tuple[int, ...]: ...
    def cycle_positions(self, row: npt.ArrayLike) -> list[bytes] | None: ...
    def kernel(self) -> Any: ...  # a dealsearch._kernel.Kernel (which has no stub yet)
