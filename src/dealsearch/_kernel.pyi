"""Type stubs of the C-level game interface (``_kernel.pyx``)."""

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

@disjoint_base
class Kernel:
    @property
    def n_cards(self) -> int: ...
    @property
    def n_measures(self) -> int: ...
    def check_row(self, row: npt.ArrayLike) -> npt.NDArray[np.uint8]: ...
    def play(
        self, row: npt.ArrayLike
    ) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]: ...

@disjoint_base
class PythonKernel(Kernel):
    @property
    def play_fn(
        self,
    ) -> Callable[[npt.NDArray[np.uint8]], tuple[int, Any, Any, Any]]: ...
    failure: BaseException | None
    def __init__(
        self,
        play_fn: Callable[[npt.NDArray[np.uint8]], tuple[int, Any, Any, Any]],
        n_cards: int,
        n_measures: int,
        row_check: Callable[[npt.NDArray[np.uint8]], None] | None = None,
    ) -> None: ...
