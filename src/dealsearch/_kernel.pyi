"""Type stubs of the C-level game interface (``_kernel.pyx``)."""

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
