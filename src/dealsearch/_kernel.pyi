"""Type stubs of ``_kernel.pyx``: a game under fixed options as one C function pointer."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

class Kernel:
    n_cards: int
    n_measures: int
    def play(
        self, row: npt.NDArray[np.uint8] | Sequence[int]
    ) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]: ...
